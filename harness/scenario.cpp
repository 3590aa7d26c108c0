#include "scenario.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "reaper_catalog.h"

namespace reapcheck {
namespace {

// Signals a member may ignore or exit on. SIGKILL and SIGSTOP cannot be caught, and SIGCHLD
// would change how the member reaps, so none of those is accepted.
const std::set<std::string, std::less<>> kCatchable = {
    "HUP", "INT", "QUIT", "TERM", "USR1", "USR2", "PIPE", "ALRM", "TSTP", "TTIN", "TTOU", "CONT"};

constexpr std::pair<BystanderKind, std::string_view> kBystanderKinds[] = {
    {BystanderKind::sibling_agent, "sibling-agent"}, {BystanderKind::lookalike, "lookalike"},
    {BystanderKind::reaper_group, "reaper-group"},   {BystanderKind::recycled_pid, "recycled-pid"},
    {BystanderKind::recycled_pgid, "recycled-pgid"},
};

bool has_role(const TreeNode& n, const std::string& role) {
  if (n.role == role) return true;
  return std::any_of(n.children.begin(), n.children.end(),
                     [&](const TreeNode& c) { return has_role(c, role); });
}

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::source_region& where, const std::string& what) const {
    throw ScenarioError(
        fmt::format("{}:{}:{}: {}", file_.string(), where.begin.line, where.begin.column, what));
  }

  void only_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                 std::string_view where) const {
    for (const auto& [key, value] : t) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(key.source(),
           fmt::format("unknown key '{}' in {} (expected one of: {})", key.str(), where, list));
    }
  }

  std::string string_at(const toml::table& t, std::string_view key, bool required) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (required) fail(t.source(), fmt::format("missing key '{}' (a string)", key));
      return {};
    }
    if (!n->is_string()) fail(n->source(), fmt::format("'{}' must be a string", key));
    return std::string(*n->as_string());
  }

  bool bool_at(const toml::table& t, std::string_view key, bool fallback) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return fallback;
    if (!n->is_boolean()) fail(n->source(), fmt::format("'{}' must be true or false", key));
    return n->as_boolean()->get();
  }

  std::vector<std::string> strings_at(const toml::table& t, std::string_view key) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) return out;
    const toml::array* a = n->as_array();
    if (a == nullptr) fail(n->source(), fmt::format("'{}' must be an array of strings", key));
    for (const auto& item : *a) {
      if (!item.is_string()) fail(item.source(), fmt::format("'{}' holds a non-string", key));
      out.emplace_back(*item.as_string());
    }
    return out;
  }

  std::vector<std::string> signals_at(const toml::table& t, std::string_view key) const {
    auto names = strings_at(t, key);
    for (const auto& name : names) {
      if (kCatchable.count(name) == 0) {
        std::string list;
        for (const auto& s : kCatchable) list += (list.empty() ? "" : " ") + s;
        fail(t.get(key)->source(),
             fmt::format("'{}' in '{}' is not a signal a member can catch (one of: {})", name, key,
                         list));
      }
    }
    return names;
  }

  TreeNode node(const toml::table& t, bool is_root, std::set<std::string>& roles) const {
    only_keys(t, {"role",   "setsid",    "setpgid",   "reap",  "ignore",    "exit_on", "exec",
                  "hold",   "transient", "stop_self", "storm", "via_shell", "on_pty",  "rename",
                  "copies", "chain",     "detached",  "unref", "fork",      "children"},
              "a tree node");
    TreeNode n;
    n.role = string_at(t, "role", true);
    if (n.role.empty() || n.role.find_first_of(" \t\n") != std::string::npos) {
      fail(t.get("role")->source(), "'role' must be one word");
    }
    if (!roles.insert(n.role).second) {
      fail(t.get("role")->source(), fmt::format("role '{}' is used twice", n.role));
    }
    n.setsid = bool_at(t, "setsid", false);
    n.setpgid = bool_at(t, "setpgid", false);
    n.reap = bool_at(t, "reap", true);
    n.ignore = signals_at(t, "ignore");
    n.exit_on = signals_at(t, "exit_on");
    n.exec = strings_at(t, "exec");
    n.hold = bool_at(t, "hold", false);
    n.transient = bool_at(t, "transient", false);
    n.stop_self = bool_at(t, "stop_self", false);
    n.storm = bool_at(t, "storm", false);
    n.via_shell = bool_at(t, "via_shell", false);
    n.on_pty = bool_at(t, "on_pty", false);
    n.detached = bool_at(t, "detached", false);
    n.unref = bool_at(t, "unref", false);
    n.fork = bool_at(t, "fork", false);
    n.rename = string_at(t, "rename", false);
    for (const char* key : {"transient", "stop_self", "via_shell", "on_pty"}) {
      if (is_root && bool_at(t, key, false)) {
        fail(t.get(key)->source(), fmt::format("the agent (the tree's root) cannot be '{}'", key));
      }
    }
    if (n.hold && (is_root || !n.exec.empty())) {
      fail(t.get("hold")->source(), "'hold' is for a member that is neither the agent nor exec'd");
    }
    if (is_root && !n.exec.empty()) {
      fail(t.get("exec")->source(),
           "the agent (the tree's root) cannot exec: nobody would "
           "announce it");
    }
    if (!n.exec.empty() && t.contains("children")) {
      fail(t.get("exec")->source(), "a node that execs cannot have children");
    }
    if (const toml::node* c = t.get("children")) {
      const toml::array* arr = c->as_array();
      if (arr == nullptr)
        fail(c->source(), "'children' must be an array of tables ([[...children]])");
      for (const auto& child : *arr) {
        if (!child.is_table()) fail(child.source(), "each child must be a table");
        const toml::table& ct = *child.as_table();
        const int copies = count_at(ct, "copies");
        if (copies == 1) {
          n.children.push_back(node(ct, false, roles));
          continue;
        }
        // `copies = N`: N siblings alike, roles suffixed -1 .. -N.
        std::set<std::string> scratch_roles;
        TreeNode proto = node(ct, false, scratch_roles);
        if (!proto.children.empty()) {
          fail(ct.get("copies")->source(), "'copies' is for a member without children");
        }
        for (int i = 1; i <= copies; ++i) {
          TreeNode copy = proto;
          copy.role = proto.role + "-" + std::to_string(i);
          if (!roles.insert(copy.role).second) {
            fail(ct.get("role")->source(), fmt::format("role '{}' is used twice", copy.role));
          }
          n.children.push_back(std::move(copy));
        }
      }
    }
    // `chain = N`: the node nested N deep, roles suffixed -1 .. -N; the deepest has the children.
    if (const int depth = count_at(t, "chain"); depth > 1) {
      if (is_root) fail(t.get("chain")->source(), "the agent cannot be a chain");
      roles.erase(n.role);
      TreeNode link = n;
      for (int i = depth; i >= 1; --i) {
        TreeNode outer = n;
        outer.role = n.role + "-" + std::to_string(i);
        outer.children = i == depth ? n.children : std::vector<TreeNode>{link};
        if (!roles.insert(outer.role).second) {
          fail(t.get("role")->source(), fmt::format("role '{}' is used twice", outer.role));
        }
        link = std::move(outer);
      }
      n = std::move(link);
    }
    return n;
  }

  // A positive count for `copies` or `chain`; 1 when absent.
  int count_at(const toml::table& t, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return 1;
    if (!n->is_integer() || n->as_integer()->get() < 1 || n->as_integer()->get() > 5000) {
      fail(n->source(), fmt::format("'{}' must be a whole number from 1 to 5000", key));
    }
    return static_cast<int>(n->as_integer()->get());
  }

  Expectation expectation(const toml::table& t, std::string_view reaper) const {
    only_keys(t, {"verdict", "reason"}, fmt::format("[known.{}]", reaper));
    Expectation e;
    std::string text = string_at(t, "verdict", true);
    auto v = parse_verdict(text);
    if (!v || *v == Verdict::pass || *v == Verdict::skipped || *v == Verdict::setup_error) {
      fail(t.get("verdict")->source(),
           fmt::format("'{}' is not a weakness verdict (one of: leak, bystander-hit, "
                       "reaper-error, reaper-timeout)",
                       text));
    }
    e.verdict = *v;
    e.reason = string_at(t, "reason", true);
    if (e.reason.empty()) fail(t.get("reason")->source(), "a known weakness needs its reason");
    return e;
  }

  BystanderSpec bystander(const toml::table& t, const TreeNode& tree) const {
    only_keys(t, {"kind", "target"}, "a [[bystanders]] entry");
    const std::string kind = string_at(t, "kind", true);
    auto it = std::find_if(std::begin(kBystanderKinds), std::end(kBystanderKinds),
                           [&](const auto& k) { return k.second == kind; });
    if (it == std::end(kBystanderKinds)) {
      std::string list;
      for (const auto& k : kBystanderKinds)
        list += (list.empty() ? "" : ", ") + std::string(k.second);
      fail(t.get("kind")->source(),
           fmt::format("unknown bystander kind '{}' (one of: {})", kind, list));
    }
    BystanderSpec b{it->first, string_at(t, "target", false)};
    if (b.is_race() && b.target.empty()) {
      fail(t.source(), fmt::format("a {} bystander needs 'target': the role whose {} it takes",
                                   kind, b.kind == BystanderKind::recycled_pid ? "pid" : "pgid"));
    }
    if (!b.is_race() && !b.target.empty()) {
      fail(t.get("target")->source(), fmt::format("a {} bystander takes no 'target'", kind));
    }
    if (b.is_race() && !has_role(tree, b.target)) {
      fail(t.get("target")->source(), fmt::format("no member has the role '{}'", b.target));
    }
    return b;
  }

  CommandAgent command_agent(const toml::table& t) const {
    only_keys(t, {"command", "package", "members", "ports"}, "[agent]");
    CommandAgent a;
    a.command = strings_at(t, "command");
    if (a.command.empty())
      fail(t.source(), "[agent] needs 'command', the program and its arguments");
    a.package = string_at(t, "package", true);
    a.members = strings_at(t, "members");
    if (a.members.empty())
      fail(t.source(), "[agent] needs 'members', the roles its processes announce");
    if (const toml::node* p = t.get("ports")) {
      if (!p->is_table()) fail(p->source(), "'ports' maps an environment variable to a role");
      for (const auto& [var, role] : *p->as_table()) {
        if (!role.is_string()) fail(role.source(), "a port's value is the role listening on it");
        a.ports.emplace_back(std::string(var.str()), std::string(*role.as_string()));
      }
    }
    return a;
  }

  // The node tree builder knows spawn's options, not perl's system calls.
  void node_only(const TreeNode& n) const {
    if (n.setsid || n.setpgid || n.transient || n.stop_self || n.storm || n.via_shell || n.on_pty ||
        n.hold || !n.rename.empty() || !n.exec.empty()) {
      throw ScenarioError(
          fmt::format("{}: member '{}': the node fixture supports role, detached, "
                      "unref, fork, ignore, exit_on and children",
                      file_.string(), n.role));
    }
    for (const auto& c : n.children) node_only(c);
  }

  void perl_only(const TreeNode& n) const {
    if (n.detached || n.unref || n.fork) {
      throw ScenarioError(
          fmt::format("{}: member '{}': detached, unref and fork need "
                      "fixture = \"node\"; the perl fixture uses setsid",
                      file_.string(), n.role));
    }
    for (const auto& c : n.children) perl_only(c);
  }

  void check_reaper(std::string_view id, const toml::source_region& where) const {
    for (const auto& r : reaper_catalog()) {
      if (r.id == id) return;
    }
    std::string ids;
    for (const auto& r : reaper_catalog()) ids += (ids.empty() ? "" : ", ") + r.id;
    fail(where, fmt::format("unknown reaper '{}' (built-in reapers and presets: {})", id, ids));
  }

  Scenario scenario(const toml::table& root) const {
    only_keys(root,
              {"description", "tags", "tree", "agent", "fixture", "bystanders", "known", "skip"},
              "the scenario");
    Scenario s;
    s.file = file_;
    s.id = file_.stem().string();
    s.description = string_at(root, "description", true);
    s.tags = strings_at(root, "tags");
    const toml::table* tree = root["tree"].as_table();
    const toml::table* agent = root["agent"].as_table();
    if ((tree == nullptr) == (agent == nullptr)) {
      fail(root.source(),
           "a scenario needs either [tree] (a fixture tree: the agent and its "
           "members) or [agent] (a command run from a package), not both");
    }
    s.fixture = string_at(root, "fixture", false);
    if (s.fixture.empty()) s.fixture = "perl";
    if (s.fixture != "perl" && s.fixture != "node") {
      fail(root.get("fixture")->source(), "'fixture' is perl or node");
    }
    std::set<std::string> roles;
    if (agent != nullptr) {
      s.agent = command_agent(*agent);
      s.tree.role = "agent";  // the tree is then only the announced roles, flat
      return finish(s, root);
    }
    s.tree = node(*tree, true, roles);
    if (s.fixture == "node") {
      node_only(s.tree);
    } else {
      perl_only(s.tree);
    }
    return finish(s, root);
  }

  // What follows the agent's description: bystanders, expectations and skips.
  Scenario finish(Scenario& s, const toml::table& root) const {
    if (const toml::node* b = root.get("bystanders")) {
      const toml::array* arr = b->as_array();
      if (arr == nullptr)
        fail(b->source(), "'bystanders' must be an array of tables ([[bystanders]])");
      for (const auto& entry : *arr) {
        if (!entry.is_table()) fail(entry.source(), "each bystander must be a table");
        s.bystanders.push_back(bystander(*entry.as_table(), s.tree));
        if (s.bystanders.back().is_race() &&
            std::count_if(s.bystanders.begin(), s.bystanders.end(),
                          [](const BystanderSpec& x) { return x.is_race(); }) > 1) {
          fail(entry.source(),
               "a scenario holds one race: one recycled-pid or recycled-pgid decoy");
        }
      }
    }
    if (const toml::node* k = root.get("skip")) {
      if (!k->is_table()) fail(k->source(), "'skip' must be a table of [skip.<reaper>]");
      for (const auto& [reaper_id, value] : *k->as_table()) {
        check_reaper(reaper_id.str(), reaper_id.source());
        if (!value.is_table()) fail(value.source(), "a skip must be a table with a reason");
        only_keys(*value.as_table(), {"reason"}, fmt::format("[skip.{}]", reaper_id.str()));
        std::string reason = string_at(*value.as_table(), "reason", true);
        if (reason.empty()) fail(value.source(), "a skip needs its reason");
        s.skip.emplace(std::string(reaper_id.str()), reason);
      }
    }
    if (const toml::node* k = root.get("known")) {
      if (!k->is_table()) fail(k->source(), "'known' must be a table of [known.<reaper>]");
      for (const auto& [reaper_id, value] : *k->as_table()) {
        check_reaper(reaper_id.str(), reaper_id.source());
        if (!value.is_table()) fail(value.source(), "a known weakness must be a table");
        s.known.emplace(std::string(reaper_id.str()),
                        expectation(*value.as_table(), reaper_id.str()));
      }
    }
    if (!s.held_roles().empty() && s.race() == nullptr) {
      fail(root.source(),
           "'hold' members wait for a race: add a recycled-pid or recycled-pgid "
           "bystander");
    }
    return s;
  }

 private:
  std::filesystem::path file_;
};

int count_members(const TreeNode& n) {
  int total = 1;
  for (const auto& c : n.children) total += count_members(c);
  return total;
}

bool valid_id(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace

Expectation Scenario::expectation_for(std::string_view reaper) const {
  auto it = known.find(reaper);
  return it == known.end() ? Expectation{} : it->second;
}

int Scenario::member_count() const {
  return agent ? static_cast<int>(agent->members.size()) : count_members(tree);
}

bool Scenario::has_bystander(BystanderKind kind) const {
  return std::any_of(bystanders.begin(), bystanders.end(),
                     [&](const BystanderSpec& b) { return b.kind == kind; });
}

const BystanderSpec* Scenario::race() const {
  for (const auto& b : bystanders) {
    if (b.is_race()) return &b;
  }
  return nullptr;
}

static void collect_roles(const TreeNode& n, bool (*pick)(const TreeNode&),
                          std::vector<std::string>& out) {
  if (pick(n)) out.push_back(n.role);
  for (const auto& c : n.children) collect_roles(c, pick, out);
}

std::vector<std::string> Scenario::held_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, [](const TreeNode& n) { return n.hold; }, out);
  return out;
}

std::vector<std::string> Scenario::transient_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, [](const TreeNode& n) { return n.transient; }, out);
  return out;
}

std::vector<std::string> Scenario::stopped_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, [](const TreeNode& n) { return n.stop_self; }, out);
  return out;
}

std::string_view to_string(BystanderKind kind) {
  for (const auto& [k, name] : kBystanderKinds) {
    if (k == kind) return name;
  }
  return "?";
}

Scenario parse_scenario(std::string_view text, const std::filesystem::path& file) {
  if (!valid_id(file.stem().string())) {
    throw ScenarioError(
        fmt::format("{}:1:1: the file name must be a scenario id: lower-case "
                    "letters, digits and '-', ending in .toml",
                    file.string()));
  }
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw ScenarioError(
        fmt::format("{}:{}:{}: {}", file.string(), where.line, where.column, e.description()));
  }
  return Reader(file).scenario(root);
}

Scenario load_scenario(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ScenarioError(fmt::format("{}: cannot read the scenario file", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  return parse_scenario(text.str(), file);
}

std::vector<Scenario> load_scenarios(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw ScenarioError(fmt::format("{}: not a directory of scenarios", dir.string()));
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Scenario> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back(load_scenario(f));
  return out;
}

}  // namespace reapcheck
