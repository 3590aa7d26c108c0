// The verdict function as a table: each row is a set of observations and the verdict and reason
// they must give.
#include "harness/model/judge.h"

#include <gtest/gtest.h>

namespace reapcheck {
namespace {

ProcessRecord process(pid_t pid, const std::string& role) {
  return {pid, 1, pid, pid, "S", role, {"perl", "tree.pl"}};
}

Observations clean() {
  Observations o;
  o.members = {process(3, "agent"), process(5, "child")};
  o.settle_ms = 1000;
  o.all_dead_ms = 4;
  return o;
}

struct Row {
  std::string name;
  Observations seen;
  Verdict verdict;
  std::string reason_has;
};

std::vector<Row> rows() {
  std::vector<Row> out;
  out.push_back({"every member died", clean(), Verdict::pass, "all 2 members dead 4 ms"});

  Observations leak = clean();
  leak.survivors = {process(5, "escaped")};
  leak.all_dead_ms = -1;
  out.push_back(
      {"a survivor", leak, Verdict::leak, "outlived the reaper by 1000 ms: escaped (pid 5"});

  Observations port = clean();
  port.open_ports = {{41002, 9, "watcher"}};
  out.push_back({"a port still answering", port, Verdict::leak,
                 "port 41002 (watcher) still accepting, held by pid 9"});

  Observations hit = leak;
  hit.bystanders_hit = {{7, "sibling-agent", "SIGKILL", 4, 0}};
  hit.reaper_outcome = {ReaperOutcome::Status::failed, "exited with status 1"};
  out.push_back({"a bystander hit outranks a failure and a leak", hit, Verdict::bystander_hit,
                 "sibling-agent (pid 7) got SIGKILL from pid 4; and 1 member(s) survived"});

  Observations timeout = leak;
  timeout.reaper_outcome = {ReaperOutcome::Status::timed_out, "no reply before the deadline"};
  out.push_back({"a timeout outranks a leak", timeout, Verdict::reaper_timeout,
                 "no reply before the deadline"});

  Observations failed = leak;
  failed.reaper_outcome = {ReaperOutcome::Status::failed, "'kill' exited with status 3"};
  out.push_back({"a failure outranks a leak", failed, Verdict::reaper_error, "status 3"});

  Observations unopened = clean();
  unopened.race = RaceRecord{};
  unopened.race->detail = "the pid 5 was still taken";
  unopened.race->attempts = 3;
  out.push_back({"a race that never opened proves nothing", unopened, Verdict::skipped,
                 "never opened in 3 attempts; the last: the pid 5 was still taken"});

  Observations unopened_leak = leak;
  unopened_leak.race = unopened.race;
  out.push_back({"an unopened race does not hide a leak", unopened_leak, Verdict::leak, "escaped"});

  Observations opened = clean();
  opened.race = RaceRecord{};
  opened.race->opened = true;
  out.push_back({"an opened race with nothing wrong passes", opened, Verdict::pass, "all 2"});

  Observations skip = leak;
  skip.blocked = Blocker{Blocker::Kind::declared_skip, "the agent is its namespace's init"};
  out.push_back({"a declared skip", skip, Verdict::skipped,
                 "declared not applicable: the agent is its namespace's init"});

  Observations unsupported;
  unsupported.blocked = Blocker{Blocker::Kind::unsupported, "no cgroup v2"};
  out.push_back({"a machine that cannot run it", unsupported, Verdict::skipped, "no cgroup v2"});

  Observations broken;
  broken.blocked = Blocker{Blocker::Kind::setup_failed, "the fixture announced 1 of 3 members"};
  out.push_back({"a case that could not be built", broken, Verdict::setup_error, "1 of 3"});
  return out;
}

TEST(Judge, DecidesFromObservationsAlone) {
  for (const Row& row : rows()) {
    const Judgement j = judge(row.seen);
    EXPECT_EQ(j.verdict, row.verdict) << row.name << ": " << j.reason;
    EXPECT_NE(j.reason.find(row.reason_has), std::string::npos)
        << row.name << ": '" << j.reason << "' lacks '" << row.reason_has << "'";
  }
}

}  // namespace
}  // namespace reapcheck
