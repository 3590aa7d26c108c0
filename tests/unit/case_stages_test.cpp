// The case stages' pure parts: what they conclude from records, without a sandbox.
#include <gtest/gtest.h>

#include "harness/engine/placement.h"
#include "harness/engine/stages/evidence.h"
#include "harness/engine/stages/kill.h"

namespace reapcheck {
namespace {

SignalRecord signal_to(pid_t target, pid_t sender, const std::string& signal) {
  SignalRecord s;
  s.sender = Party{Party::Kind::reaper, sender, "sh", true};
  s.signal = signal;
  s.reached = {Party{Party::Kind::bystander, target, "sibling-agent", true}};
  return s;
}

TEST(NameSenders, TheLedgerNamesWhoSentWhatABystanderCouldNotSee) {
  std::vector<BystanderHit> hits = {{7, "sibling-agent", "unknown", 0, 0},
                                    {8, "lookalike", "SIGTERM", 0, 0},
                                    {9, "reaper-group", "SIGHUP", 0, 0}};
  const std::vector<SignalRecord> signals = {
      signal_to(7, 4, "0"),        // a probe delivers nothing
      signal_to(7, 5, "SIGKILL"),  // what killed the sibling agent
      signal_to(8, 6, "SIGINT"),   // not the signal the lookalike caught
      signal_to(8, 10, "SIGTERM"),
  };
  name_senders(hits, signals);
  EXPECT_EQ(hits[0].signal, "SIGKILL");
  EXPECT_EQ(hits[0].sender_pid, 5);
  EXPECT_EQ(hits[1].signal, "SIGTERM");
  EXPECT_EQ(hits[1].sender_pid, 10);
  EXPECT_EQ(hits[2].sender_pid, 0) << "no record reached it: its sender stays unknown";
}

TEST(NameSenders, ASenderTheBystanderSawIsKept) {
  std::vector<BystanderHit> hits = {{7, "sibling-agent", "SIGTERM", 3, 0}};
  name_senders(hits, {signal_to(7, 5, "SIGTERM")});
  EXPECT_EQ(hits[0].sender_pid, 3);
}

TEST(EndedOnTheirOwn, EachMemberIsListedOnce) {
  const auto gone = ended_on_their_own(
      {"worker (pid 5)"}, {"worker (pid 5, exit status 0)", "daemon (pid 9, exit status 1)"});
  ASSERT_EQ(gone.size(), 2U);
  EXPECT_EQ(gone[0], "worker (pid 5)");
  EXPECT_EQ(gone[1], "daemon (pid 9, exit status 1)");
  EXPECT_TRUE(ended_on_their_own({}, {}).empty());
}

TEST(OutcomeOf, TheHostsReplyBecomesTheReapersOutcome) {
  ReaperHost::Reply reply;
  reply.status = ReaperHost::Reply::Status::ok;
  EXPECT_EQ(outcome_of(reply).status, ReaperOutcome::Status::done);
  reply.status = ReaperHost::Reply::Status::timeout;
  reply.error = "no reply in 10 s";
  EXPECT_EQ(outcome_of(reply).status, ReaperOutcome::Status::timed_out);
  EXPECT_EQ(outcome_of(reply).message, "no reply in 10 s");
  reply.status = ReaperHost::Reply::Status::error;
  EXPECT_EQ(outcome_of(reply).status, ReaperOutcome::Status::failed);
}

TEST(Placement, OnThisMachineOnlyTheTreesSessionsAreTheTree) {
  CaseOptions options;
  const std::set<pid_t> sessions = {42};
  EXPECT_EQ(placement_for(options)->tree_sessions(sessions), nullptr);
  options.on_host = HostRun{};
  const auto host = placement_for(options);
  ASSERT_NE(host->tree_sessions(sessions), nullptr);
  EXPECT_EQ(*host->tree_sessions(sessions), sessions);
  EXPECT_EQ(host->socket_dir("/scratch/case"), "/scratch/case");
}

}  // namespace
}  // namespace reapcheck
