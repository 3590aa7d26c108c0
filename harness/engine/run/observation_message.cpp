#include "harness/engine/run/observation_message.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "harness/model/result_json.h"
#include "harness/model/text.h"
#include "harness/support/version.h"

namespace reapcheck {
namespace {

constexpr std::string_view kKind = "reapcheck-observation";

std::string this_binary() {
  return std::string(reapcheck_version());
}

}  // namespace

std::string write_observation_message(const ObservationMessage& message) {
  const nlohmann::json j = {{"message", kKind},
                            {"binary", this_binary()},
                            {"job", message.job},
                            {"observation", message.observed}};
  return json_text(j);
}

ObservationMessage read_observation_message(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a case's message is not JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("message", "") != kKind) {
    throw std::runtime_error("a case's message is not an observation");
  }
  if (const std::string binary = j.value("binary", ""); binary != this_binary()) {
    throw std::runtime_error("a case's message comes from reapcheck " + binary +
                             ", not from this binary (" + this_binary() + ")");
  }
  try {
    return {j.at("job").get<size_t>(), j.at("observation").get<CaseObservation>()};
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a case's observation cannot be read: ") + e.what());
  }
}

}  // namespace reapcheck
