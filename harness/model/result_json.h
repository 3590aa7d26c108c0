// The JSON form of the result model: the contract outside tools read, and the form a case's
// result crosses the sandbox boundary in, so both always agree.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/model/result.h"

namespace reapcheck {

void to_json(nlohmann::json& j, const ProcessRecord& p);
void from_json(const nlohmann::json& j, ProcessRecord& p);
void to_json(nlohmann::json& j, const BystanderHit& b);
void from_json(const nlohmann::json& j, BystanderHit& b);
void to_json(nlohmann::json& j, const OpenPort& p);
void from_json(const nlohmann::json& j, OpenPort& p);
void to_json(nlohmann::json& j, const RebindFailure& f);
void from_json(const nlohmann::json& j, RebindFailure& f);
void to_json(nlohmann::json& j, const RaceRecord& r);
void from_json(const nlohmann::json& j, RaceRecord& r);
void to_json(nlohmann::json& j, const Party& p);
void from_json(const nlohmann::json& j, Party& p);
void to_json(nlohmann::json& j, const SignalRecord& r);
void from_json(const nlohmann::json& j, SignalRecord& r);
void to_json(nlohmann::json& j, const LateMember& l);
void from_json(const nlohmann::json& j, LateMember& l);
// A case's observation: the fields of a result that a case sends back (the internal message,
// engine/observation_message.h) and that results.json holds beside the case's identity and verdict.
void to_json(nlohmann::json& j, const CaseObservation& c);
void from_json(const nlohmann::json& j, CaseObservation& c);
void to_json(nlohmann::json& j, const CaseResult& c);
void from_json(const nlohmann::json& j, CaseResult& c);
void to_json(nlohmann::json& j, const ScenarioNotes& n);
void from_json(const nlohmann::json& j, ScenarioNotes& n);
void to_json(nlohmann::json& j, const RunInfo& i);
void from_json(const nlohmann::json& j, RunInfo& i);
void to_json(nlohmann::json& j, const RunResult& r);
void from_json(const nlohmann::json& j, RunResult& r);

}  // namespace reapcheck
