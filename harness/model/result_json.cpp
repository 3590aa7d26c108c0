#include "harness/model/result_json.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "harness/model/reaper_name.h"

namespace reapcheck {
namespace {

// Bytes as lower-case hex, two digits a byte: the exact form of a string that is not UTF-8.
std::string to_hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

}  // namespace

namespace {

Verdict verdict_from(const nlohmann::json& j) {
  auto v = parse_verdict(j.get<std::string>());
  if (!v) throw std::runtime_error("unknown verdict '" + j.get<std::string>() + "'");
  return *v;
}

}  // namespace

void to_json(nlohmann::json& j, const ProcessRecord& p) {
  j = {{"pid", p.pid},     {"ppid", p.ppid}, {"pgid", p.pgid}, {"sid", p.sid},
       {"state", p.state}, {"role", p.role}, {"argv", p.argv}};
  if (!p.escape.empty()) j["escape"] = p.escape;
  if (!p.started_by.empty()) j["started_by"] = p.started_by;
}

void from_json(const nlohmann::json& j, ProcessRecord& p) {
  j.at("pid").get_to(p.pid);
  j.at("ppid").get_to(p.ppid);
  j.at("pgid").get_to(p.pgid);
  j.at("sid").get_to(p.sid);
  j.at("state").get_to(p.state);
  j.at("role").get_to(p.role);
  j.at("argv").get_to(p.argv);
  p.escape = j.value("escape", std::string());
  p.started_by = j.value("started_by", std::vector<std::string>{});
}

void to_json(nlohmann::json& j, const BystanderHit& b) {
  j = {{"pid", b.pid},         {"role", b.role},
       {"signal", b.signal},   {"sender_pid", b.sender_pid},
       {"si_code", b.si_code}, {"sender", b.sender()}};
}

void from_json(const nlohmann::json& j, BystanderHit& b) {
  j.at("pid").get_to(b.pid);
  j.at("role").get_to(b.role);
  j.at("signal").get_to(b.signal);
  j.at("sender_pid").get_to(b.sender_pid);
  b.si_code = j.value("si_code", 0);
}

void to_json(nlohmann::json& j, const OpenPort& p) {
  j = {{"port", p.port}, {"pid", p.pid}, {"role", p.role}};
}

void from_json(const nlohmann::json& j, OpenPort& p) {
  j.at("port").get_to(p.port);
  j.at("pid").get_to(p.pid);
  j.at("role").get_to(p.role);
}

void to_json(nlohmann::json& j, const RebindFailure& f) {
  j = {{"port", f.port}, {"role", f.role}, {"error", f.error}, {"holder", f.holder}};
}

void from_json(const nlohmann::json& j, RebindFailure& f) {
  j.at("port").get_to(f.port);
  j.at("role").get_to(f.role);
  j.at("error").get_to(f.error);
  f.holder = j.value("holder", 0);
}

void to_json(nlohmann::json& j, const RaceRecord& r) {
  j = {{"kind", to_string(r.kind)}, {"target", r.target},    {"target_id", r.target_id},
       {"decoy_pid", r.decoy_pid},  {"opened", r.opened},    {"placed_ms", r.placed_ms},
       {"detail", r.detail},        {"attempts", r.attempts}};
}

void from_json(const nlohmann::json& j, RaceRecord& r) {
  const auto kind = parse_bystander_kind(j.at("kind").get<std::string>());
  if (!kind) throw std::runtime_error("unknown race kind " + j.at("kind").dump());
  r.kind = *kind;
  j.at("target").get_to(r.target);
  j.at("target_id").get_to(r.target_id);
  j.at("decoy_pid").get_to(r.decoy_pid);
  j.at("opened").get_to(r.opened);
  r.placed_ms = j.value("placed_ms", -1.0);
  r.detail = j.value("detail", "");
  r.attempts = j.value("attempts", 1);
}

namespace {

constexpr std::pair<Blocker::Kind, const char*> kBlockerKinds[] = {
    {Blocker::Kind::declared_skip, "declared-skip"},
    {Blocker::Kind::unsupported, "unsupported"},
    {Blocker::Kind::setup_failed, "setup-failed"},
};
constexpr std::pair<Party::Kind, const char*> kPartyKinds[] = {
    {Party::Kind::member, "member"},   {Party::Kind::tree, "tree"},
    {Party::Kind::reaper, "reaper"},   {Party::Kind::bystander, "bystander"},
    {Party::Kind::harness, "harness"},
};
constexpr std::pair<ReaperOutcome::Status, const char*> kOutcomes[] = {
    {ReaperOutcome::Status::done, "done"},
    {ReaperOutcome::Status::failed, "failed"},
    {ReaperOutcome::Status::timed_out, "timed-out"},
};

template <typename E, size_t N>
const char* name_of(const std::pair<E, const char*> (&names)[N], E value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
E value_of(const std::pair<E, const char*> (&names)[N], const nlohmann::json& j) {
  const std::string text = j.get<std::string>();
  for (const auto& [v, name] : names) {
    if (text == name) return v;
  }
  throw std::runtime_error("unknown value '" + text + "'");
}

// In order: an object would sort its keys, so the phases are an array of [name, ms].
nlohmann::json phases_json(const std::vector<std::pair<std::string, double>>& phases) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [phase, ms] : phases) out.push_back({phase, ms});
  return out;
}

}  // namespace

void to_json(nlohmann::json& j, const Party& p) {
  j = {
      {"kind", name_of(kPartyKinds, p.kind)}, {"pid", p.pid}, {"role", p.role}, {"alive", p.alive}};
}

void from_json(const nlohmann::json& j, Party& p) {
  p.kind = value_of(kPartyKinds, j.at("kind"));
  j.at("pid").get_to(p.pid);
  j.at("role").get_to(p.role);
  p.alive = j.value("alive", true);
}

void to_json(nlohmann::json& j, const SignalRecord& r) {
  j = {{"at_ms", r.at_ms},
       {"sender", r.sender},
       {"sender_argv", r.sender_argv},
       {"call", r.call},
       {"target", r.target},
       {"by_pidfd", r.by_pidfd},
       {"kernel", r.kernel},
       {"pinned", r.pinned},
       {"reached", r.reached},
       {"signal", r.signal},
       {"result", r.result},
       {"counts", r.counts()},
       {"stray", r.stray()},
       {"hit_outside", r.hit_outside()}};
}

void from_json(const nlohmann::json& j, SignalRecord& r) {
  j.at("at_ms").get_to(r.at_ms);
  j.at("sender").get_to(r.sender);
  r.sender_argv = j.value("sender_argv", std::vector<std::string>{});
  j.at("call").get_to(r.call);
  j.at("target").get_to(r.target);
  r.by_pidfd = j.value("by_pidfd", false);
  r.kernel = j.value("kernel", false);
  r.pinned = j.value("pinned", false);
  j.at("reached").get_to(r.reached);
  j.at("signal").get_to(r.signal);
  r.result = j.value("result", "");
}

void to_json(nlohmann::json& j, const LateMember& l) {
  j = {{"process", l.process}, {"died_after_ms", l.died_after_ms}, {"on_its_own", l.on_its_own}};
}

void from_json(const nlohmann::json& j, LateMember& l) {
  j.at("process").get_to(l.process);
  l.died_after_ms = j.value("died_after_ms", -1.0);
  l.on_its_own = j.value("on_its_own", false);
}

void to_json(nlohmann::json& j, const CaseObservation& c) {
  j = {{"blocked", c.blocked ? nlohmann::json{{"kind", name_of(kBlockerKinds, c.blocked->kind)},
                                              {"reason", c.blocked->reason}}
                             : nlohmann::json(nullptr)},
       {"reaper_outcome",
        {{"status", name_of(kOutcomes, c.reaper_outcome.status)},
         {"message", c.reaper_outcome.message},
         {"supervisor_killed_after_ms", c.reaper_outcome.supervisor_killed_after_ms}}},
       {"members", c.members},
       {"survivors", c.survivors},
       {"ended_by_harness", c.ended_by_harness},
       {"bystanders_hit", c.bystanders_hit},
       {"open_ports", c.open_ports},
       {"reaper_steps", c.reaper_steps},
       {"signals", c.signals},
       {"missing_evidence", c.missing_evidence},
       {"late", c.late},
       {"rebind_failures", c.rebind_failures},
       {"reaper_left_running", c.reaper_left_running},
       {"race", c.race ? nlohmann::json(*c.race) : nlohmann::json(nullptr)},
       {"settle_ms", c.settle_ms},
       {"watched_ms", c.watched_ms},
       {"busy_at_bound", c.busy_at_bound},
       {"timings_ms",
        {{"tree", c.tree_ms},
         {"kill", c.kill_ms},
         {"all_dead", c.all_dead_ms},
         {"case", c.case_ms}}},
       {"phases_ms", phases_json(c.phases_ms)},
       {"cpu_ms",
        {{"reaper", c.reaper_cpu_ms},
         {"reaper_children", c.reaper_children_cpu_ms},
         {"harness", c.harness_cpu_ms}}}};
}

void to_json(nlohmann::json& j, const CaseResult& c) {
  to_json(j, static_cast<const CaseObservation&>(c));
  j.update({{"scenario", c.scenario},
            {"reaper", c.reaper},
            {"reaper_display", shown_reaper(c.reaper)},
            {"tags", c.tags},
            {"run", c.run},
            {"verdict", to_string(c.verdict)},
            {"expected", to_string(c.expected)},
            {"expected_also", verdict_names(c.expected_also)},
            {"expected_reason", c.expected_reason},
            {"expected_where", c.expected_where},
            {"as_expected", c.as_expected()},
            {"reason", c.reason}});
  if (!c.reaper_bytes.empty()) j["reaper_bytes"] = to_hex(c.reaper_bytes);
}

void from_json(const nlohmann::json& j, CaseObservation& c) {
  if (j.contains("blocked") && !j["blocked"].is_null()) {
    c.blocked =
        Blocker{value_of(kBlockerKinds, j["blocked"].at("kind")), j["blocked"].value("reason", "")};
  }
  if (j.contains("reaper_outcome")) {
    c.reaper_outcome.status = value_of(kOutcomes, j["reaper_outcome"].at("status"));
    c.reaper_outcome.message = j["reaper_outcome"].value("message", "");
    c.reaper_outcome.supervisor_killed_after_ms =
        j["reaper_outcome"].value("supervisor_killed_after_ms", -1);
  }
  c.members = j.value("members", std::vector<ProcessRecord>{});
  j.at("survivors").get_to(c.survivors);
  c.ended_by_harness = j.value("ended_by_harness", std::vector<pid_t>{});
  j.at("bystanders_hit").get_to(c.bystanders_hit);
  c.open_ports = j.value("open_ports", std::vector<OpenPort>{});
  c.reaper_steps = j.value("reaper_steps", std::vector<std::string>{});
  c.signals = j.value("signals", std::vector<SignalRecord>{});
  c.missing_evidence = j.value("missing_evidence", std::vector<std::string>{});
  c.late = j.value("late", std::vector<LateMember>{});
  c.rebind_failures = j.value("rebind_failures", std::vector<RebindFailure>{});
  c.reaper_left_running = j.value("reaper_left_running", std::vector<ProcessRecord>{});
  if (j.contains("race") && !j["race"].is_null()) c.race = j["race"].get<RaceRecord>();
  c.settle_ms = j.value("settle_ms", 0);
  c.watched_ms = j.value("watched_ms", 0.0);
  c.busy_at_bound = j.value("busy_at_bound", false);
  const auto& t = j.at("timings_ms");
  t.at("kill").get_to(c.kill_ms);
  t.at("all_dead").get_to(c.all_dead_ms);
  c.case_ms = t.value("case", 0.0);
  c.tree_ms = t.value("tree", 0.0);
  if (j.contains("phases_ms")) {
    for (const auto& p : j["phases_ms"]) {
      c.phases_ms.emplace_back(p.at(0).get<std::string>(), p.at(1).get<double>());
    }
  }
  if (j.contains("cpu_ms")) {
    const auto& cpu = j["cpu_ms"];
    c.reaper_cpu_ms = cpu.value("reaper", 0.0);
    c.reaper_children_cpu_ms = cpu.value("reaper_children", 0.0);
    c.harness_cpu_ms = cpu.value("harness", 0.0);
  }
}

void from_json(const nlohmann::json& j, CaseResult& c) {
  c.scenario = j.value("scenario", "");
  c.reaper = j.value("reaper", "");
  c.reaper_bytes = from_hex(j.value("reaper_bytes", ""));
  c.tags = j.value("tags", std::vector<std::string>{});
  c.run = j.value("run", 1);
  c.verdict = verdict_from(j.at("verdict"));
  c.expected = verdict_from(j.at("expected"));
  for (const auto& v : j.value("expected_also", nlohmann::json::array())) {
    c.expected_also.push_back(verdict_from(v));
  }
  c.expected_reason = j.value("expected_reason", "");
  c.expected_where = j.value("expected_where", "");
  j.at("reason").get_to(c.reason);
  from_json(j, static_cast<CaseObservation&>(c));
}

void to_json(nlohmann::json& j, const ScenarioNotes& n) {
  j = {{"description", n.description},
       {"escapes", n.escapes},
       {"passing", n.passing},
       {"technique", n.technique}};
}

void from_json(const nlohmann::json& j, ScenarioNotes& n) {
  n.description = j.value("description", "");
  n.escapes = j.value("escapes", std::vector<std::string>{});
  n.passing = j.value("passing", std::vector<std::string>{});
  n.technique = j.value("technique", "");
}

void to_json(nlohmann::json& j, const RunInfo& i) {
  nlohmann::json options = nlohmann::json::object();
  for (const auto& [name, value] : i.options) options[name] = value;
  j = {{"version", i.version},
       {"kernel", i.kernel},
       {"host", i.host},
       {"started", i.started},
       {"options", options},
       {"shard", i.shard},
       {"plan", {{"scenarios", i.plan_scenarios}, {"reapers", i.plan_reapers}}}};
}

void from_json(const nlohmann::json& j, RunInfo& i) {
  i.version = j.value("version", "");
  i.kernel = j.value("kernel", "");
  i.host = j.value("host", "");
  i.started = j.value("started", "");
  i.shard = j.value("shard", "");
  if (j.contains("plan")) {
    i.plan_scenarios = j["plan"].value("scenarios", std::vector<std::string>{});
    i.plan_reapers = j["plan"].value("reapers", std::vector<std::string>{});
  }
  if (j.contains("options")) {
    for (const auto& [name, value] : j["options"].items()) {
      i.options.emplace_back(name, value.get<std::string>());
    }
  }
}

void to_json(nlohmann::json& j, const RunResult& r) {
  j = {{"format", "reapcheck-results/1"},
       {"pid_namespace", "pids are those inside each case's sandbox"},
       {"grace_ms", r.grace_ms},
       {"repeat", r.repeat},
       {"wall_s", r.wall_s},
       {"info", r.info},
       {"scenarios", r.scenarios},
       {"incomplete", r.never_run > 0},
       {"never_run", r.never_run},
       {"cases", r.cases}};
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
}

void from_json(const nlohmann::json& j, RunResult& r) {
  j.at("cases").get_to(r.cases);
  r.grace_ms = j.value("grace_ms", 0);
  r.repeat = j.value("repeat", 1);
  r.wall_s = j.value("wall_s", 0.0);
  if (j.contains("info")) j["info"].get_to(r.info);
  if (j.contains("scenarios")) j["scenarios"].get_to(r.scenarios);
  r.never_run = j.value("never_run", 0);
  r.stopped = j.value("stopped", "");
}

}  // namespace reapcheck
