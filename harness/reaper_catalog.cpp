#include "reaper_catalog.h"

#include "paths.h"
#include "reaper/external.h"

namespace reapcheck {
namespace {

ReaperChoice exec_choice(std::string id, const std::string& command, std::string needs,
                         bool preset) {
  return {std::move(id), "exec: " + command,
          [command] { return reaper::make_exec_command(command); }, std::move(needs), preset};
}

ReaperChoice supervise_choice(std::string id, const std::string& command, std::string needs,
                              bool preset) {
  return {std::move(id), "supervise: " + command,
          [command] { return reaper::make_supervise(command); }, std::move(needs), preset};
}

std::vector<ReaperChoice> build() {
  std::vector<ReaperChoice> all;
  for (const auto& r : reaper::builtin_reapers()) {
    all.push_back({std::string(r.id), std::string(r.technique), r.make, "", false});
  }
  // Presets: well-known reapers, run as their users run them.
  all.push_back(supervise_choice("tini", "tini -s --", "tini", true));
  all.push_back(supervise_choice("tini-group", "tini -s -g --", "tini", true));
  all.push_back(supervise_choice("dumb-init", "dumb-init --", "dumb-init", true));
  all.push_back(supervise_choice("catatonit", "catatonit --", "catatonit", true));
  all.push_back(supervise_choice("bwrap", "bwrap --die-with-parent --unshare-pid --dev-bind / / --",
                                 "bwrap", true));
  // tree-kill as node tools use it: SIGTERM to the tree under the agent, then SIGKILL after the
  // grace period to whatever tree-kill still finds.
  const std::string tree_kill = (fixtures_dir() / "node" / "tree-kill" / "kill.js").string();
  all.push_back(exec_choice("tree-kill",
                            "node " + tree_kill + " {pid} SIGTERM; sleep {grace_s}; node " +
                                tree_kill + " {pid} SIGKILL 2>/dev/null || true",
                            "node", true));
  all.push_back(exec_choice(
      "kill-group",
      "/bin/kill -TERM -- -{pgid}; sleep {grace_s}; /bin/kill -KILL -- -{pgid} 2>/dev/null || true",
      "", true));
  return all;
}

}  // namespace

const std::vector<ReaperChoice>& reaper_catalog() {
  static const std::vector<ReaperChoice> all = build();
  return all;
}

std::vector<std::string> builtin_reaper_ids() {
  std::vector<std::string> ids;
  for (const auto& r : reaper_catalog()) {
    if (!r.preset) ids.push_back(r.id);
  }
  return ids;
}

std::vector<std::string> preset_reaper_ids() {
  std::vector<std::string> ids;
  for (const auto& r : reaper_catalog()) {
    if (r.preset) ids.push_back(r.id);
  }
  return ids;
}

std::optional<ReaperChoice> resolve_reaper(std::string_view id) {
  for (const auto& r : reaper_catalog()) {
    if (r.id == id) return r;
  }
  constexpr std::string_view kExec = "exec:", kSupervise = "supervise:";
  if (id.substr(0, kExec.size()) == kExec && id.size() > kExec.size()) {
    return exec_choice(std::string(id), std::string(id.substr(kExec.size())), "", false);
  }
  if (id.substr(0, kSupervise.size()) == kSupervise && id.size() > kSupervise.size()) {
    return supervise_choice(std::string(id), std::string(id.substr(kSupervise.size())), "", false);
  }
  return std::nullopt;
}

std::string valid_reaper_ids() {
  std::string out;
  for (const auto& r : reaper_catalog()) out += (out.empty() ? "" : ", ") + r.id;
  return out + ", or exec:CMD / supervise:CMD";
}

}  // namespace reapcheck
