// An observed agent's tree, read from a /proc of the test's making: who is of the tree, and the
// roles named from what each runs.
#include "harness/engine/tree/observed_tree.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/fake_proc.h"

namespace reapcheck {
namespace {

using reaper::FakeProc;

std::vector<pid_t> pids(const std::vector<const reaper::ProcInfo*>& tree) {
  std::vector<pid_t> out;
  out.reserve(tree.size());
  for (const auto* p : tree) out.push_back(p->pid);
  return out;
}

// /proc/<pid>/cmdline's form: each argument ended by a NUL.
std::string cmdline(std::initializer_list<std::string> args) {
  std::string out;
  for (const auto& a : args) out += a + '\0';
  return out;
}

class ObservedTree : public FakeProc {};

// PID 1 the case runner (session 1, the harness's); 5 the reaper host, 6 a bystander, 7 the
// sibling (the host's child) with 70 below it; 8 the agent with 9 below it and 10 below 9; 11 an
// orphan the agent's tree double-forked (re-parented to PID 1); 12 a child of the bystander.
TEST_F(ObservedTree, TheAgentItsDescendantsAndOrphansButNothingBelowOthers) {
  add(1, 0, 1, 1, "reapcheck", cmdline({"reapcheck"}));
  add(5, 1, 1, 1, "reapcheck", cmdline({"reapcheck"}));
  add(6, 1, 6, 6, "bystander", cmdline({"tail"}));
  add(7, 5, 7, 7, "perl", cmdline({"perl"}));
  add(70, 7, 7, 7, "perl", cmdline({"perl"}));
  add(8, 5, 8, 8, "npm", cmdline({"npm run dev"}));
  add(9, 8, 8, 8, "sh", cmdline({"sh", "-c", "vite"}));
  add(10, 9, 8, 8, "node", cmdline({"node", "/p/node_modules/.bin/vite"}));
  add(11, 1, 11, 11, "node", cmdline({"node", "watcher.js"}));
  add(12, 6, 6, 6, "sleep", cmdline({"sleep"}));
  // A helper of the reaper host's (its session, the harness's) and a daemon of the tree that a
  // subreaper host adopted (a session of its own).
  add(13, 5, 1, 1, "keeper", cmdline({"reapcheck", "keeper"}));
  add(14, 5, 14, 14, "python3", cmdline({"python3", "worker.py"}));
  const auto table = reaper::ProcTable::read_proc_files(dir_.string());
  EXPECT_EQ(pids(observed_tree(table, {8, {6, 7}, {1, 5}, 1})),
            (std::vector<pid_t>{8, 9, 10, 11, 14}));
  // Below a supervisor (an adopter), its child is the agent.
  EXPECT_EQ(pids(observed_tree(table, {9, {6, 7}, {1, 5, 8}, 1})),
            (std::vector<pid_t>{9, 10, 11, 14}));
}

TEST_F(ObservedTree, RolesSayWhatEachRuns) {
  add(2, 1, 2, 2, "node", cmdline({"node", "--inspect", "/p/node_modules/.bin/vite", "dev"}));
  add(3, 1, 3, 3, "esbuild", cmdline({"/p/esbuild", "--service=0.21.5", "--ping"}));
  add(4, 1, 4, 4, "sh", cmdline({"sh", "-c", "vite --port 5173"}));
  add(5, 1, 5, 5, "python3", cmdline({"/usr/bin/python3", "server.py"}));
  add(6, 1, 6, 6, "cargo-watch", cmdline({"cargo-watch", "-x", "run"}));
  add(7, 1, 7, 7, "kworker", "");
  add(8, 1, 8, 8, "node", cmdline({"node", "-e", "require('http').createServer()"}));
  add(9, 1, 9, 9, "python3", cmdline({"python3", "-m", "http.server", "8000"}));
  const auto table = reaper::ProcTable::read_proc_files(dir_.string());
  std::vector<std::string> roles;
  for (const auto& p : table.all()) roles.push_back(role_of(p));
  EXPECT_EQ(roles, (std::vector<std::string>{"node vite", "esbuild --service", "sh -c",
                                             "python3 server.py", "cargo-watch", "kworker",
                                             "node -e", "python3 -m http.server"}));
}

}  // namespace
}  // namespace reapcheck
