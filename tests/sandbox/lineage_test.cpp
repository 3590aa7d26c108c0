// Lineage from the kernel's fork events: how a fork event becomes a birth in the sandbox's pids
// (ForkLineage), and how the census judges a process by its birth line before its session.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "harness/engine/census/census.h"
#include "harness/sandbox/fork_lineage.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// A child of this process that blocks until it is killed, optionally leading a session of its
// own; SIGKILLed and reaped when it goes out of scope.
class Sleeper {
 public:
  explicit Sleeper(bool own_session = false) {
    reaper::Pipe ready = reaper::make_pipe();
    pid_ = ::fork();
    if (pid_ < 0) reaper::throw_sys("fork");
    if (pid_ == 0) {
      if (own_session) ::setsid();
      ready.write.reset();  // the parent's read ends: the session is in place
      for (;;) ::pause();
    }
    ready.write.reset();
    char c = 0;
    (void)!::read(ready.read.get(), &c, 1);
    auto fd = reaper::pidfd_open(pid_);
    if (!fd) reaper::throw_sys("pidfd_open");
    pidfd_ = std::move(*fd);
  }
  ~Sleeper() { end(); }
  Sleeper(const Sleeper&) = delete;
  Sleeper& operator=(const Sleeper&) = delete;
  void end() {
    if (pid_ <= 0) return;
    reaper::pidfd_try_signal(pidfd_.get(), SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }
  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_.get(); }

 private:
  pid_t pid_ = 0;
  reaper::UniqueFd pidfd_;
};

TEST(ForkLineage, ALiveChildIsBornOfTheProcessWhoseThreadForkedIt) {
  Sleeper child;
  ForkLineage lineage;  // level 0: this test's own namespace
  const auto birth = lineage.born({::getpid(), child.pid()});
  ASSERT_TRUE(birth);
  EXPECT_EQ(birth->parent, ::getpid());
  EXPECT_EQ(birth->child, child.pid());
  EXPECT_EQ(parse_birth_line(birth_line(*birth))->child, child.pid());
  EXPECT_FALSE(parse_birth_line("K 1 2 3 9 0 x\ta\tb"));
}

TEST(ForkLineage, ANewThreadIsNoBirth) {
  ForkLineage lineage;
  pid_t tid = 0;
  reaper::Pipe done = reaper::make_pipe();
  std::thread t([&] {
    tid = ::gettid();
    char c = 0;
    (void)!::read(done.read.get(), &c, 1);
  });
  while (tid == 0) std::this_thread::yield();  // the thread's first statement, not a wait on time
  EXPECT_FALSE(lineage.born({::getpid(), tid}));
  done.write.reset();
  t.join();
}

// A double fork whose middle process was gone before even its own event was read: its child is
// born of the middle's parent, the nearest ancestor there to translate. One read while it lived
// keeps its id.
TEST(ForkLineage, AParentNeverSeenAliveIsPassedOverForItsOwnParent) {
  ForkLineage lineage;
  Sleeper middle;
  const pid_t gone = middle.pid();
  middle.end();
  EXPECT_FALSE(lineage.born({::getpid(), gone}));  // gone: no birth, but its parent is kept
  Sleeper daemon;
  const auto birth = lineage.born({gone, daemon.pid()});
  ASSERT_TRUE(birth);
  EXPECT_EQ(birth->parent, ::getpid());
  EXPECT_EQ(birth->child, daemon.pid());

  Sleeper seen;
  const pid_t seen_pid = seen.pid();
  EXPECT_TRUE(lineage.born({::getpid(), seen_pid}));
  seen.end();
  Sleeper its_child;
  EXPECT_EQ(lineage.born({seen_pid, its_child.pid()})->parent, seen_pid);
}

// A helper of the reaper's, in the tree's session: its session says tree, its birth reaper.
TEST(CensusLineage, ABirthOnTheReapersSideOutweighsTheSession) {
  Sleeper host;
  Sleeper member(true);
  Census census;
  census.set_reaper_host(host.pid());
  census.add_member(member.pid(), "agent", member.pidfd());
  Sleeper helper;  // this process's child: in this process's session, not the member's
  EXPECT_FALSE(census.born_of_reaper(helper.pid()));  // no birth known: not claimed
  census.note_birth(host.pid(), helper.pid());
  EXPECT_TRUE(census.born_known(helper.pid()));
  EXPECT_TRUE(census.born_of_reaper(helper.pid()));
  ASSERT_TRUE(census.who(helper.pid()));
  EXPECT_EQ(census.who(helper.pid())->kind, Party::Kind::reaper);
}

// A daemon whose parent member has exited is still the tree's: a registered process counts on
// a birth line whether it lives or not — until its pid is born again.
TEST(CensusLineage, AnExitedMemberStillNamesItsChildrenUntilItsPidIsReused) {
  Sleeper host;
  Sleeper member;
  Census census;
  census.set_reaper_host(host.pid());
  const pid_t old = member.pid();
  census.note_birth(host.pid(), old);
  census.add_member(old, "server", member.pidfd());
  Sleeper daemon;
  census.note_birth(old, daemon.pid());
  member.end();
  ASSERT_TRUE(census.who(daemon.pid()));
  EXPECT_EQ(census.who(daemon.pid())->kind, Party::Kind::tree);
  EXPECT_FALSE(census.born_of_reaper(daemon.pid()));
  // The pid born again, of the reaper host: the member registered there no longer names it.
  census.note_birth(host.pid(), old);
  EXPECT_TRUE(census.born_of_reaper(daemon.pid()));
}

// Before the kill, an observed tree's orphans are the tree's: its agent, born of the reaper
// host, is not yet registered then, and is not taken for the reaper's.
TEST(CensusLineage, BeforeTheKillAnObservedTreesOrphansAreNotClaimedForTheReaper) {
  Sleeper host;
  Sleeper agent(true);
  Census census;
  census.set_reaper_host(host.pid());
  census.note_birth(host.pid(), agent.pid());
  census.claim_orphans_until_kill(true);
  ASSERT_TRUE(census.who(agent.pid()));
  EXPECT_NE(census.who(agent.pid())->kind, Party::Kind::reaper);
  census.claim_orphans_until_kill(false);
  EXPECT_EQ(census.who(agent.pid())->kind, Party::Kind::reaper);
}

}  // namespace
}  // namespace reapcheck
