#include "fixture.h"

#include <fstream>

#include "paths.h"
#include "reaper/sys_error.h"

namespace reapcheck {

nlohmann::json tree_spec(const TreeNode& node) {
  auto ignore = node.ignore;
  auto exit_on = node.exit_on;
  if (node.hold) {  // see TreeNode::hold: the harness releases it with SIGUSR1
    ignore.push_back("TERM");
    exit_on.push_back("USR1");
  }
  nlohmann::json j = {{"role", node.role}, {"setsid", node.setsid}, {"setpgid", node.setpgid},
                      {"reap", node.reap}, {"ignore", ignore},      {"exit_on", exit_on}};
  if (!node.exec.empty()) j["exec"] = node.exec;
  for (auto [key, on] : {std::pair{"transient", node.transient},
                         {"stop_self", node.stop_self},
                         {"storm", node.storm},
                         {"via_shell", node.via_shell},
                         {"on_pty", node.on_pty}}) {
    if (on) j[key] = true;
  }
  if (!node.rename.empty()) j["rename"] = node.rename;
  j["children"] = nlohmann::json::array();
  for (const auto& c : node.children) j["children"].push_back(tree_spec(c));
  return j;
}

std::vector<std::string> prepare_fixture(const Scenario& scenario,
                                         const std::filesystem::path& worktree) {
  std::filesystem::create_directories(worktree / ".reapcheck");
  const auto spec_path = worktree / ".reapcheck" / "spec.json";
  std::ofstream out(spec_path);
  out << tree_spec(scenario.tree).dump(2) << '\n';
  out.close();
  if (!out) reaper::throw_sys("write " + spec_path.string());
  return {find_in_path("perl"), (fixtures_dir() / "perl" / "tree.pl").string(), spec_path.string()};
}

std::string missing_interpreters(const std::vector<Scenario>& scenarios) {
  if (scenarios.empty() || !find_in_path("perl").empty()) return {};
  return "perl is not installed (needed by scenario '" + scenarios.front().id +
         "' and every perl-fixture scenario); install Debian's perl package";
}

}  // namespace reapcheck
