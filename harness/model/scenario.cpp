#include "harness/model/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "harness/model/line_pattern.h"
#include "harness/model/text.h"
#include "harness/model/toml_reader.h"

namespace reapcheck {
namespace {

// A project's own command meets a process naming its folder, as `reproduce` and a scenario file
// alike run it: the tool that kills by command line or working folder finds it there.
void add_lookalike(Scenario& s) {
  if (s.agent && s.agent->observed() && s.agent->lookalike) {
    s.bystanders.push_back({BystanderKind::lookalike, {}});
  }
}

// Signals a member may ignore or exit on. SIGKILL and SIGSTOP cannot be caught, and SIGCHLD
// would change how the member reaps, so none of those is accepted.
const std::set<std::string, std::less<>> kCatchable = {
    "HUP", "INT", "QUIT", "TERM", "USR1", "USR2", "PIPE", "ALRM", "TSTP", "TTIN", "TTOU", "CONT"};

// What the fixtures can build: perl's JSON::PP reads a spec at most 512 levels deep (two per tree
// level), and a case of more than 5,000 processes outgrows its sandbox's pid_max margin.
constexpr int kMaxMembers = 5000;
constexpr int kMaxDepth = 250;

constexpr std::pair<BystanderKind, std::string_view> kBystanderKinds[] = {
    {BystanderKind::lookalike, "lookalike"},
    {BystanderKind::reaper_group, "reaper-group"},
    {BystanderKind::recycled_pid, "recycled-pid"},
    {BystanderKind::recycled_pgid, "recycled-pgid"},
};

// Whether the member does anything in the perl fixture beyond having a role and children: its
// session or group, its signals, its life before the kill, how it is started. A C helper member
// can do none of it. (`freeze` needs `cgroup`.)
bool acts_in_perl(const TreeNode& n) {
  return n.setsid || n.setpgid || !n.ignore.empty() || !n.exit_on.empty() || !n.exec.empty() ||
         n.hold || n.transient || n.stop_self || n.storm || n.via_shell || n.on_pty ||
         !n.rename.empty() || n.clear_env || !n.cgroup.empty();
}

bool has_role(const TreeNode& n, const std::string& role) {
  if (n.role == role) return true;
  return std::any_of(n.children.begin(), n.children.end(),
                     [&](const TreeNode& c) { return has_role(c, role); });
}

class Reader : public TomlReader {
 public:
  using TomlReader::TomlReader;

  std::vector<std::string> signals_at(const toml::table& t, std::string_view key) const {
    auto names = strings_at(t, key);
    for (const auto& name : names) {
      if (kCatchable.count(name) == 0) {
        fail(t.get(key)->source(),
             fmt::format("'{}' in '{}' is not a signal a member can catch (one of: {})", name, key,
                         fmt::join(kCatchable, " ")));
      }
    }
    return names;
  }

  // `depth` is the node's level in the expanded tree (the agent's is 1).
  TreeNode node(const toml::table& t, bool is_root, std::set<std::string>& roles, int depth) const {
    TreeNode n = attributes(t, is_root, roles);
    const int links = count_at(t, "chain");
    grow(t, "chain", links - 1, depth + links - 1);
    add_children(t, roles, n, depth + links);
    expand_chain(t, is_root, roles, n);
    return n;
  }

  // Counts `members` more, the deepest of them at `depth`; fails at `key` (or the table) past
  // what the fixtures build.
  void grow(const toml::table& t, std::string_view key, int members, int depth) const {
    members_ += members;
    const toml::node* at = t.get(key);
    const toml::source_region& where = at != nullptr ? at->source() : t.source();
    if (members_ > kMaxMembers) {
      fail(where, fmt::format("the tree would have more than {} members, the most the fixtures "
                              "build",
                              kMaxMembers));
    }
    if (depth > kMaxDepth) {
      fail(where, fmt::format("the tree would be {} deep; the fixtures build at most {} levels",
                              depth, kMaxDepth));
    }
  }

  // The node's own keys, checked against each other.
  TreeNode attributes(const toml::table& t, bool is_root, std::set<std::string>& roles) const {
    grow(t, "role", 1, 0);
    only_keys(
        t, {"role",      "setsid",    "setpgid",   "reap",       "ignore",    "exit_on",  "exec",
            "hold",      "transient", "stop_self", "storm",      "via_shell", "on_pty",   "rename",
            "copies",    "chain",     "detached",  "unref",      "fork",      "children", "threads",
            "clear_env", "cgroup",    "freeze",    "vfork_hold", "c_member"},
        "a tree node");
    TreeNode n;
    n.role = string_at(t, "role", true);
    if (!is_role(n.role)) {
      fail(t.get("role")->source(), "'role' must be one word: no space or control character");
    }
    claim_role(t, roles, n.role);
    n.setsid = bool_at(t, "setsid", false);
    n.setpgid = bool_at(t, "setpgid", false);
    n.reap = bool_at(t, "reap", true);
    n.ignore = signals_at(t, "ignore");
    n.exit_on = signals_at(t, "exit_on");
    n.exec = strings_at(t, "exec");
    n.hold = bool_at(t, "hold", false);
    n.transient = bool_at(t, "transient", false);
    stop_self(t, n);
    n.storm = bool_at(t, "storm", false);
    n.via_shell = bool_at(t, "via_shell", false);
    n.on_pty = bool_at(t, "on_pty", false);
    n.detached = bool_at(t, "detached", false);
    n.unref = bool_at(t, "unref", false);
    n.fork = bool_at(t, "fork", false);
    n.rename = string_at(t, "rename", false);
    n.threads = string_at(t, "threads", false);
    n.clear_env = bool_at(t, "clear_env", false);
    n.vfork_hold = bool_at(t, "vfork_hold", false);
    n.c_member = bool_at(t, "c_member", false);
    cgroup(t, n);
    check_threads(t, n, is_root);
    check_root(t, n, is_root);
    if (!n.exec.empty() && t.contains("children")) {
      fail(t.get("exec")->source(), "a node that execs cannot have children");
    }
    if (n.clear_env && !n.exec.empty()) {
      fail(t.get("clear_env")->source(),
           "'clear_env' re-execs the member itself: it cannot also exec another program");
    }
    return n;
  }

  // `stop_self = true` stops with SIGSTOP; a signal name picks the stop signal.
  void stop_self(const toml::table& t, TreeNode& n) const {
    const toml::node* v = t.get("stop_self");
    if (v == nullptr || !v->is_string()) {
      n.stop_self = bool_at(t, "stop_self", false);
      return;
    }
    static const std::set<std::string, std::less<>> kStops = {"STOP", "TSTP", "TTIN", "TTOU"};
    n.stop_signal = std::string(*v->as_string());
    if (kStops.count(n.stop_signal) == 0) {
      fail(v->source(), fmt::format("'stop_self' is true or a stop signal (one of: {})",
                                    fmt::join(kStops, " ")));
    }
    n.stop_self = true;
  }

  // `cgroup = "a/b"`: names below the member's own cgroup; `freeze` freezes the last of them.
  void cgroup(const toml::table& t, TreeNode& n) const {
    n.cgroup = string_at(t, "cgroup", false);
    n.freeze = bool_at(t, "freeze", false);
    std::istringstream parts(n.cgroup);
    for (std::string part; std::getline(parts, part, '/');) {
      if (part.empty() || part == "." || part == ".." ||
          part.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
        fail(t.get("cgroup")->source(),
             "'cgroup' is a path of names (lower-case letters, digits, '-') separated by '/'");
      }
    }
    if (n.freeze &&
        (n.cgroup.empty() || n.stop_self || n.transient || n.hold || t.contains("children"))) {
      fail(t.get("freeze")->source(),
           "'freeze' freezes the member's own 'cgroup' (which it needs, and no child of its may "
           "share), and is neither stop_self, transient nor hold");
    }
  }

  void check_threads(const toml::table& t, const TreeNode& n, bool is_root) const {
    if (n.vfork_hold && (!n.threads.empty() || t.contains("children"))) {
      fail(t.get("vfork_hold")->source(), "a 'vfork_hold' member has no children and no 'threads'");
    }
    if (!n.threads.empty() && n.threads != "main-exits" && n.threads != "fork-from-thread") {
      fail(t.get("threads")->source(), "'threads' is main-exits or fork-from-thread");
    }
    if ((!n.threads.empty() || n.vfork_hold) && (is_root || acts_in_perl(n))) {
      fail(t.get(n.vfork_hold ? "vfork_hold" : "threads")->source(),
           "a 'threads' or 'vfork_hold' member is a C helper: it takes only role, that key and "
           "children");
    }
  }

  // What the agent, the tree's root, cannot be. It may be transient: an agent that exited
  // before the kill, its children still running.
  void check_root(const toml::table& t, const TreeNode& n, bool is_root) const {
    for (auto [key, on] :
         {std::pair{"stop_self", n.stop_self}, {"via_shell", n.via_shell}, {"on_pty", n.on_pty}}) {
      if (is_root && on) {
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
  }

  void claim_role(const toml::table& t, std::set<std::string>& roles,
                  const std::string& role) const {
    if (!roles.insert(role).second) {
      fail(t.get("role")->source(), fmt::format("role '{}' is used twice", role));
    }
  }

  // [[...children]], each once or, with `copies = N`, as N siblings alike, roles suffixed -1 .. -N.
  void add_children(const toml::table& t, std::set<std::string>& roles, TreeNode& n,
                    int depth) const {
    const toml::node* c = t.get("children");
    if (c == nullptr) return;
    const toml::array* arr = c->as_array();
    if (arr == nullptr)
      fail(c->source(), "'children' must be an array of tables ([[...children]])");
    for (const auto& child : *arr) {
      if (!child.is_table()) fail(child.source(), "each child must be a table");
      const toml::table& ct = *child.as_table();
      const int copies = count_at(ct, "copies");
      if (copies == 1) {
        n.children.push_back(node(ct, false, roles, depth));
        continue;
      }
      std::set<std::string> scratch_roles;
      TreeNode proto = node(ct, false, scratch_roles, depth);
      grow(ct, "copies", copies - 1, depth);
      if (!proto.children.empty()) {
        fail(ct.get("copies")->source(), "'copies' is for a member without children");
      }
      for (int i = 1; i <= copies; ++i) {
        TreeNode copy = proto;
        copy.role = proto.role + "-" + std::to_string(i);
        claim_role(ct, roles, copy.role);
        n.children.push_back(std::move(copy));
      }
    }
  }

  // `chain = N`: the node nested N deep, roles suffixed -1 .. -N; the deepest has the children.
  // Built from the inside out, each link moved into the next: linear in N.
  void expand_chain(const toml::table& t, bool is_root, std::set<std::string>& roles,
                    TreeNode& n) const {
    const int depth = count_at(t, "chain");
    if (depth <= 1) return;
    if (is_root) fail(t.get("chain")->source(), "the agent cannot be a chain");
    roles.erase(n.role);
    TreeNode bare = n;
    bare.children.clear();
    TreeNode link = std::move(n);
    for (int i = depth; i >= 1; --i) {
      if (i < depth) {
        TreeNode outer = bare;
        outer.children.push_back(std::move(link));
        link = std::move(outer);
      }
      link.role = bare.role + "-" + std::to_string(i);
      claim_role(t, roles, link.role);
    }
    n = std::move(link);
  }

  mutable int members_ = 0;  // counted as the tree is read, against kMaxMembers

  // A positive count for `copies` or `chain`; 1 when absent.
  int count_at(const toml::table& t, std::string_view key) const {
    return int_at(t, key, 1, kMaxMembers, 1);
  }

  BystanderSpec bystander(const toml::table& t, const TreeNode& tree) const {
    only_keys(t, {"kind", "target"}, "a [[bystanders]] entry");
    const std::string kind = string_at(t, "kind", true);
    if (kind == "sibling-agent") {
      fail(t.get("kind")->source(),
           "every case runs a sibling agent now (the same fixture as the agent, spawned the "
           "same way): remove this [[bystanders]] entry");
    }
    const std::optional<BystanderKind> parsed = parse_bystander_kind(kind);
    if (!parsed) {
      std::vector<std::string_view> names;
      for (const auto& k : kBystanderKinds) names.push_back(k.second);
      fail(t.get("kind")->source(),
           fmt::format("unknown bystander kind '{}' (one of: {})", kind, fmt::join(names, ", ")));
    }
    BystanderSpec b{*parsed, string_at(t, "target", false)};
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
    only_keys(t, {"command", "package", "members", "ports", "escapes", "dir", "ready", "lookalike"},
              "[agent]");
    CommandAgent a;
    a.command = strings_at(t, "command");
    if (a.command.empty())
      fail(t.source(), "[agent] needs 'command', the program and its arguments");
    if (t.contains("dir")) return observed_agent(t, std::move(a));
    if (t.contains("lookalike")) {
      fail(t.get("lookalike")->source(),
           "'lookalike' goes with 'dir' (a project's own command); a package's scenario declares "
           "a [[bystanders]] lookalike instead");
    }
    if (t.contains("ready")) {
      fail(t.get("ready")->source(),
           "[agent.ready] is for a project's own command (with 'dir'): a package's members "
           "announce themselves");
    }
    a.package = string_at(t, "package", true);
    // A folder of fixtures/node, by name: a path could name (and copy) anything on the host.
    if (a.package.empty() || a.package.find('/') != std::string::npos || a.package == "." ||
        a.package == ".." || !is_role(a.package)) {
      fail(t.get("package")->source(),
           fmt::format("'package' is the name of a folder of fixtures/node, not '{}'", a.package));
    }
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
    a.escapes = escapes(t, a.members);
    return a;
  }

  // [agent] with `dir`: a project's own command, its processes observed. Only `ready` goes with
  // it: what a package declares (members, ports, escapes) is found by observation here.
  CommandAgent observed_agent(const toml::table& t, CommandAgent a) const {
    for (const char* key : {"package", "members", "ports", "escapes"}) {
      if (t.contains(key)) {
        fail(t.get(key)->source(),
             fmt::format("'{}' goes with 'package'; with 'dir' the agent's processes, their roles "
                         "and ports are found by observation",
                         key));
      }
    }
    const std::string dir = string_at(t, "dir", true);
    a.dir = std::filesystem::path(dir).is_absolute() ? std::filesystem::path(dir)
                                                     : file().parent_path() / dir;
    a.dir = std::filesystem::absolute(a.dir).lexically_normal();
    if (a.dir.has_filename() == false) a.dir = a.dir.parent_path();  // "proj/" → "proj"
    if (const toml::node* r = t.get("ready")) {
      if (!r->is_table()) fail(r->source(), "[agent.ready] is a table: port, log or after_ms");
      a.ready = agent_ready(*r->as_table());
    }
    a.lookalike = bool_at(t, "lookalike", true);
    return a;
  }

  AgentReady agent_ready(const toml::table& t) const {
    only_keys(t, {"port", "log", "after_ms"}, "[agent.ready]");
    if (t.size() > 1) {
      fail(t.source(), "[agent.ready] takes one of port, log or after_ms, not several");
    }
    AgentReady r;
    r.port = int_at(t, "port", 1, 65535, 0);
    r.log = string_at(t, "log", false);
    if (t.contains("log")) {
      if (std::string why = ready_log_error(r.log); !why.empty()) {
        fail(t.get("log")->source(), why);
      }
    }
    r.after_ms = int_at(t, "after_ms", 1, 3600000, 0);
    return r;
  }

  // [agent.escapes]: role = "how it escapes", for roles the agent announces.
  std::vector<std::pair<std::string, std::string>> escapes(
      const toml::table& agent, const std::vector<std::string>& members) const {
    std::vector<std::pair<std::string, std::string>> out;
    const toml::node* e = agent.get("escapes");
    if (e == nullptr) return out;
    if (!e->is_table()) fail(e->source(), "'escapes' maps a member's role to how it escapes");
    for (const auto& [role, how] : *e->as_table()) {
      if (!how.is_string()) fail(how.source(), "an escape is told in a string");
      if (std::find(members.begin(), members.end(), role.str()) == members.end()) {
        fail(how.source(),
             fmt::format("'{}' is not in 'members' ({})", role.str(), fmt::join(members, ", ")));
      }
      out.emplace_back(std::string(role.str()), std::string(*how.as_string()));
    }
    return out;
  }

  // The node tree builder knows spawn's options, not perl's system calls.
  void node_only(const TreeNode& n) const {
    if (n.setsid || n.setpgid || n.transient || n.stop_self || n.storm || n.via_shell || n.on_pty ||
        n.hold || !n.rename.empty() || !n.exec.empty() || !n.threads.empty() || n.clear_env ||
        !n.cgroup.empty() || n.vfork_hold || n.c_member) {
      throw InputError(
          fmt::format("{}: member '{}': the node fixture supports role, detached, "
                      "unref, fork, ignore, exit_on and children",
                      file().string(), n.role));
    }
    for (const auto& c : n.children) node_only(c);
  }

  // Marks everything below a c_member node as one too, and holds each to what the C member
  // builds: a role and children.
  void c_members(TreeNode& n, bool inside) const {
    n.c_member = n.c_member || inside;
    if (n.c_member && (acts_in_perl(n) || !n.reap || !n.threads.empty() || n.vfork_hold ||
                       n.detached || n.unref || n.fork)) {
      throw InputError(
          fmt::format("{}: member '{}' is a C member (c_member, or below one): it takes only "
                      "role, children, copies and chain",
                      file().string(), n.role));
    }
    for (auto& c : n.children) c_members(c, n.c_member);
  }

  void perl_only(const TreeNode& n) const {
    if (n.detached || n.unref || n.fork) {
      throw InputError(
          fmt::format("{}: member '{}': detached, unref and fork need "
                      "fixture = \"node\"; the perl fixture uses setsid",
                      file().string(), n.role));
    }
    for (const auto& c : n.children) perl_only(c);
  }

  Scenario scenario(const toml::table& root) const {
    only_keys(root, {"description", "tags", "tree", "agent", "fixture", "bystanders", "case"},
              "the scenario");
    Scenario s;
    s.file = file();
    s.id = file().stem().string();
    // Free text the reports and the terminal show: control characters written \xNN, as a
    // process's output is.
    s.description = printable(string_at(root, "description", true));
    s.tags = printable(strings_at(root, "tags"));
    const toml::table* tree = root["tree"].as_table();
    const toml::table* agent = root["agent"].as_table();
    if ((tree == nullptr) == (agent == nullptr)) {
      fail(root.source(),
           "a scenario needs either [tree] (a fixture tree: the agent and its "
           "members) or [agent] (a command run from a package), not both");
    }
    const std::string fixture = string_at(root, "fixture", false);
    if (fixture == "node") {
      s.fixture = Fixture::node;
    } else if (!fixture.empty() && fixture != "perl") {
      fail(root.get("fixture")->source(), "'fixture' is perl or node");
    }
    std::set<std::string> roles;
    if (agent != nullptr) {
      s.agent = command_agent(*agent);
      s.tree.role = "agent";  // the tree is then only the announced roles, flat
      return finish(s, root);
    }
    s.tree = node(*tree, true, roles, 1);
    c_members(s.tree, s.tree.c_member);
    if (s.fixture == Fixture::node) {
      node_only(s.tree);
    } else {
      perl_only(s.tree);
    }
    return finish(s, root);
  }

  // [case]: how the kill is requested, and the environment the reaper and the tree run in.
  CaseSetup case_setup(const toml::table& root, const Scenario& s) const {
    CaseSetup c;
    const toml::node* node = root.get("case");
    if (node == nullptr) return c;
    if (!node->is_table()) fail(node->source(), "'case' must be a table ([case])");
    const toml::table& t = *node->as_table();
    only_keys(t, {"request", "blocked", "path"}, "[case]");
    const std::string request = string_at(t, "request", false);
    if (request == "orchestrator-killed") {
      c.request = CaseSetup::Request::orchestrator_killed;
    } else if (request == "from-agent") {
      c.request = CaseSetup::Request::from_agent;
      if (s.agent || s.fixture != Fixture::perl || s.tree.c_member) {
        fail(t.get("request")->source(),
             "'from-agent' needs a perl [tree] whose agent is no c_member: its agent runs the "
             "kill command");
      }
    } else if (!request.empty() && request != "reaper") {
      fail(t.get("request")->source(), "'request' is reaper, orchestrator-killed or from-agent");
    }
    c.blocked = signals_at(t, "blocked");
    const std::string path = string_at(t, "path", false);
    if (path == "without-ps") {
      c.path = CaseSetup::Path::without_ps;
    } else if (path == "busybox-ps") {
      c.path = CaseSetup::Path::busybox_ps;
    } else if (!path.empty() && path != "standard") {
      fail(t.get("path")->source(), "'path' is standard, without-ps or busybox-ps");
    }
    return c;
  }

  // What follows the agent's description: how the case runs, and the bystanders.
  Scenario finish(Scenario& s, const toml::table& root) const {
    s.setup = case_setup(root, s);
    for (const toml::table* entry : tables_at(root, "bystanders")) {
      s.bystanders.push_back(bystander(*entry, s.tree));
      if (s.bystanders.back().kind == BystanderKind::lookalike && s.agent && s.agent->observed()) {
        fail(entry->source(),
             "a project's own command ([agent] with 'dir') has a lookalike already: remove this "
             "entry (or say lookalike = false in [agent] to run without one)");
      }
      if (s.bystanders.back().is_race() &&
          std::count_if(s.bystanders.begin(), s.bystanders.end(),
                        [](const BystanderSpec& x) { return x.is_race(); }) > 1) {
        fail(entry->source(), "a scenario holds one race: one recycled-pid or recycled-pgid decoy");
      }
    }
    if (s.race() != nullptr && s.setup.request != CaseSetup::Request::reaper) {
      fail(root.source(), "a race is staged while the reaper works: it needs request = \"reaper\"");
    }
    add_lookalike(s);
    if (!s.held_roles().empty() && s.race() == nullptr) {
      fail(root.source(),
           "'hold' members wait for a race: add a recycled-pid or recycled-pgid bystander");
    }
    return s;
  }
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

std::string ready_log_error(const std::string& pattern) {
  return LinePattern::error(pattern);
}

Scenario command_scenario(std::vector<std::string> command, const std::filesystem::path& dir,
                          AgentReady ready) {
  Scenario s;
  s.id = "your-command";
  s.description = fmt::format("{}, run in {}", fmt::join(command, " "), dir.string());
  s.tags = {"observed"};
  s.agent = CommandAgent{};
  s.agent->command = std::move(command);
  s.agent->dir = dir;
  s.agent->ready = std::move(ready);
  s.tree.role = "agent";
  add_lookalike(s);
  return s;
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

// The roles of the nodes `pick` chooses, given each node and its parent (none for the root).
static void collect_roles(const TreeNode& n, const TreeNode* parent,
                          bool (*pick)(const TreeNode&, const TreeNode*),
                          std::vector<std::string>& out) {
  if (pick(n, parent)) out.push_back(n.role);
  for (const auto& c : n.children) collect_roles(c, &n, pick, out);
}

std::vector<std::string> Scenario::held_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, nullptr, [](const TreeNode& n, const TreeNode*) { return n.hold; }, out);
  return out;
}

std::vector<std::string> Scenario::transient_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, nullptr, [](const TreeNode& n, const TreeNode*) { return n.transient; }, out);
  return out;
}

std::vector<std::string> Scenario::reaped_transient_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, nullptr,
      [](const TreeNode& n, const TreeNode* parent) {
        return n.transient && parent != nullptr && parent->reap;
      },
      out);
  return out;
}

std::vector<std::string> Scenario::stopped_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, nullptr, [](const TreeNode& n, const TreeNode*) { return n.stop_self; }, out);
  return out;
}

std::vector<std::string> Scenario::frozen_roles() const {
  std::vector<std::string> out;
  collect_roles(
      tree, nullptr, [](const TreeNode& n, const TreeNode*) { return n.freeze; }, out);
  return out;
}

bool Scenario::uses_cgroups() const {
  std::vector<std::string> out;
  collect_roles(
      tree, nullptr, [](const TreeNode& n, const TreeNode*) { return !n.cgroup.empty(); }, out);
  return !out.empty();
}

std::string_view to_string(CaseSetup::Request request) {
  switch (request) {
    case CaseSetup::Request::orchestrator_killed:
      return "orchestrator-killed";
    case CaseSetup::Request::from_agent:
      return "from-agent";
    case CaseSetup::Request::reaper:
      break;
  }
  return "reaper";
}

std::string_view to_string(CaseSetup::Path path) {
  switch (path) {
    case CaseSetup::Path::without_ps:
      return "without-ps";
    case CaseSetup::Path::busybox_ps:
      return "busybox-ps";
    case CaseSetup::Path::standard:
      break;
  }
  return "standard";
}

std::optional<BystanderKind> parse_bystander_kind(std::string_view name) {
  for (const auto& [k, n] : kBystanderKinds) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string_view to_string(BystanderKind kind) {
  for (const auto& [k, name] : kBystanderKinds) {
    if (k == kind) return name;
  }
  return "?";
}

std::string_view to_string(Fixture fixture) {
  return fixture == Fixture::node ? "node" : "perl";
}

bool is_role(std::string_view role) {
  return !role.empty() && std::none_of(role.begin(), role.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b <= 0x20 || b == 0x7f;
  });
}

Scenario parse_scenario(std::string_view text, const std::filesystem::path& file) {
  if (!valid_id(file.stem().string())) {
    throw InputError(
        fmt::format("{}:1:1: the file name must be a scenario id: lower-case "
                    "letters, digits and '-', ending in .toml",
                    file.string()));
  }
  return Reader(file).scenario(parse_toml(text, file));
}

Scenario load_scenario(const std::filesystem::path& file) {
  return parse_scenario(read_input(file), file);
}

std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InputError(fmt::format("{}: not a directory of scenarios", dir.string()));
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Scenario> load_scenarios(const std::filesystem::path& dir) {
  std::vector<Scenario> out;
  for (const auto& f : scenario_files(dir)) out.push_back(load_scenario(f));
  return out;
}

}  // namespace reapcheck
