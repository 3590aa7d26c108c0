#include "harness/engine/tree/fixture.h"

#include <debian_packages.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "harness/sandbox/host_view.h"
#include "harness/sandbox/project_view.h"
#include "reaper/os/sys_error.h"

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
  if (node.stop_self) j["stop_signal"] = node.stop_signal;
  if (!node.rename.empty()) j["rename"] = node.rename;
  if (!node.threads.empty()) j["threads"] = node.threads;
  if (node.clear_env) j["clear_env"] = true;
  if (!node.cgroup.empty()) j["cgroup"] = node.cgroup;
  if (node.freeze) j["freeze"] = true;
  if (node.vfork_hold) j["vfork_hold"] = true;
  if (node.c_member) j["c_member"] = true;
  for (auto [key, on] :
       {std::pair{"detached", node.detached}, {"unref", node.unref}, {"fork", node.fork}}) {
    if (on) j[key] = true;
  }
  j["children"] = nlohmann::json::array();
  for (const auto& c : node.children) j["children"].push_back(tree_spec(c));
  return j;
}

namespace {

// A command agent's package goes into the worktree, as a checkout would hold it. node_modules
// (large, installed by set-up) is a folder of the worktree's own whose entries link to the
// installed ones: tools write their caches there (Vite's .vite-temp), never into the fixtures,
// which the sandbox shows read-only and every case shares.
// Its dot-entries are npm's and tools' own (caches such as .vite, left there by a run that wrote
// into the fixtures): only .bin, the packages' commands, is linked.
void link_modules(const std::filesystem::path& modules, const std::filesystem::path& target) {
  std::filesystem::create_directory(target);
  for (const auto& entry : std::filesystem::directory_iterator(modules)) {
    const std::string name = entry.path().filename().string();
    if (name.front() == '.' && name != ".bin") continue;
    std::filesystem::create_directory_symlink(entry.path(), target / name);
  }
}

void copy_package(const std::filesystem::path& package, const std::filesystem::path& worktree) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(package)) {
    throw std::runtime_error("fixture package " + package.string() + " does not exist");
  }
  for (const auto& entry : fs::directory_iterator(package)) {
    const auto target = worktree / entry.path().filename();
    if (entry.path().filename() == "node_modules") {
      link_modules(entry.path(), target);
    } else {
      fs::copy(entry.path(), target, fs::copy_options::recursive);
    }
  }
}

// The program a scenario needs first, for the missing-interpreter check.
std::string program_of(const Scenario& s) {
  if (s.agent) return s.agent->command.front();
  return std::string(to_string(s.fixture));  // perl or node
}

// Writes `tree`'s spec under `worktree` and returns the argv that builds it with `fixture`.
std::vector<std::string> tree_command(const TreeNode& tree, Fixture fixture,
                                      const std::filesystem::path& worktree, const Layout& layout,
                                      const std::string& inside_kill = {}) {
  std::filesystem::create_directories(worktree / ".reapcheck");
  const auto spec_path = worktree / ".reapcheck" / "spec.json";
  nlohmann::json spec = tree_spec(tree);
  if (!inside_kill.empty()) spec["inside_kill"] = inside_kill;
  std::ofstream out(spec_path);
  out << spec.dump() << '\n';  // compact: 5,000 members stay a small file
  out.close();
  if (!out) reaper::throw_sys("write " + spec_path.string());
  if (fixture == Fixture::node) {
    return {layout.find_program("node"), (layout.fixtures / "node" / "tree.js").string(),
            spec_path.string()};
  }
  return {layout.find_program("perl"), (layout.fixtures / "perl" / "tree.pl").string(),
          spec_path.string()};
}

}  // namespace

std::vector<std::string> prepare_fixture(const Scenario& scenario,
                                         const std::filesystem::path& worktree,
                                         const Layout& layout, const std::string& inside_kill) {
  if (scenario.agent) {
    // A project's own folder is shown to the case as it is (project_view.h).
    if (!scenario.agent->observed()) {
      copy_package(layout.fixtures / "node" / scenario.agent->package, worktree);
    }
    return scenario.agent->command;
  }
  return tree_command(scenario.tree, scenario.fixture, worktree, layout, inside_kill);
}

const std::vector<std::string>& sibling_roles() {
  static const std::vector<std::string> roles = {"sibling-agent", "sibling-child"};
  return roles;
}

std::vector<std::string> prepare_sibling(const Scenario& scenario,
                                         const std::filesystem::path& worktree,
                                         const Layout& layout) {
  TreeNode sibling;
  sibling.role = sibling_roles()[0];
  sibling.children.emplace_back();
  sibling.children.back().role = sibling_roles()[1];
  // Built as the agent's tree is: by C members where the agent is one.
  sibling.c_member = scenario.tree.c_member;
  sibling.children.back().c_member = scenario.tree.c_member;
  // A package's agent is a node program: its sibling is a node tree. A project's command may be
  // anything: its sibling is the perl tree, which needs nothing installed beyond the harness.
  const Fixture fixture =
      scenario.agent && !scenario.agent->observed() ? Fixture::node : scenario.fixture;
  return tree_command(sibling, fixture, worktree, layout);
}

// Why `program` (a command's first word) cannot be started from `dir`, or empty: a path is taken
// from there, a name looked up in PATH, as a shell does.
std::string not_startable(const std::string& program, const std::filesystem::path& dir,
                          const Layout& layout) {
  namespace fs = std::filesystem;
  if (program.find('/') == std::string::npos) {
    const std::string found = layout.find_program(program);
    // Under a closed home the folder below it is put back (path_put_back()); one closed itself
    // cannot be.
    if (const fs::path closed =
            found.empty() ? fs::path() : closed_after_put_back(fs::path(found).parent_path());
        !closed.empty()) {
      return fmt::format(
          "'{}' is {} in PATH, under {}, which lets only its owner in: the case, which runs as an "
          "id of its own, would run another {} found further on in PATH, or none; give others "
          "search permission there (chmod o+x {}), or put the program on a path others can reach",
          program, found, closed.string(), program, closed.string());
    }
    if (!found.empty()) return {};
    if (fs::exists(dir / program)) {
      return "'" + program + "' is not a program found in PATH; to run the one in " + dir.string() +
             ", write ./" + program;
    }
    return "'" + program + "' is not a program found in PATH";
  }
  const fs::path path = fs::path(program).is_absolute() ? fs::path(program) : dir / program;
  if (!fs::exists(path)) return "'" + program + "': no such file in " + dir.string();
  if (fs::is_directory(path)) return "'" + program + "' is a directory";
  if (::access(path.c_str(), X_OK) != 0) return "'" + program + "' is not executable (chmod +x)";
  return {};
}

std::string unrunnable(const CommandAgent& a, const Layout& layout) {
  if (!std::filesystem::is_directory(a.dir)) {
    return "the agent's folder " + a.dir.string() + " is not a directory";
  }
  const auto temp = std::filesystem::weakly_canonical(layout.temp);
  const auto [d, t] = std::mismatch(a.dir.begin(), a.dir.end(), temp.begin(), temp.end());
  if (d == a.dir.end()) {
    return "the agent's folder " + a.dir.string() + " holds " + temp.string() +
           ", where reapcheck keeps each case's scratch: give a folder of the project's own";
  }
  if (std::string why = project_refusal(a.dir); !why.empty()) return why;
  return not_startable(a.command.front(), a.dir, layout);
}

std::string missing_interpreters(const std::vector<Scenario>& scenarios, const Layout& layout) {
  for (const auto& s : scenarios) {
    if (s.agent && s.agent->observed()) {
      if (std::string why = unrunnable(*s.agent, layout); !why.empty()) {
        return "scenario '" + s.id + "': " + why;
      }
      continue;
    }
    if (s.agent) {
      // A package with dependencies needs them installed (scripts/setup.sh runs npm ci).
      const auto dir = layout.fixtures / "node" / s.agent->package;
      std::ifstream manifest(dir / "package.json");
      auto json = nlohmann::json::parse(manifest, nullptr, false);
      const bool has_deps = !json.is_discarded() &&
                            (json.contains("dependencies") || json.contains("devDependencies"));
      if (has_deps && !std::filesystem::is_directory(dir / "node_modules")) {
        return "scenario '" + s.id + "' needs " + dir.string() +
               "/node_modules: run scripts/setup.sh (it runs npm ci there)";
      }
    }
    const std::string program = program_of(s);
    if (layout.find_program(program).empty()) {
      constexpr debian::Program kPerl = "perl", kNode = "node", kNpm = "npm";
      return fmt::format(
          "{} is not installed (needed by scenario '{}'); install it (Debian: {}, {} {}), or run "
          "the other scenarios",
          program, s.id, kPerl.package, kNode.package, kNpm.package);
    }
  }
  return {};
}

}  // namespace reapcheck
