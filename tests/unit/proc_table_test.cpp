#include "reaper/os/proc_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "reaper/tree/tree_walk.h"
#include "tests/unit/fake_proc.h"

namespace reaper {
namespace {

TEST(ParseStat, ReadsTheFieldsAfterTheComm) {
  auto f = parse_stat(stat_line("42", "perl", "S", 7, 40, 30, 123456));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->pid, 42);
  EXPECT_EQ(f->comm, "perl");
  EXPECT_EQ(f->state, 'S');
  EXPECT_EQ(f->ppid, 7);
  EXPECT_EQ(f->pgid, 40);
  EXPECT_EQ(f->sid, 30);
  EXPECT_EQ(f->flags, 4194560u);
  EXPECT_EQ(f->threads, 1);
  EXPECT_EQ(f->start_time, 123456u);
}

TEST(ParseStat, AZombiesWaitStatusIsTheLastField) {
  // A real stat line of a zombie that exited with status 137 (35072 as a wait status).
  const std::string zombie =
      "7 (npm run dev) Z 4 7 7 0 -1 4227148 3000 0 0 0 52 13 0 0 20 0 1 0 9056 0 0 "
      "18446744073709551615 0 0 0 0 0 0 0 16781312 83458 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 "
      "35072\n";
  const auto f = parse_stat(zombie);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->state, 'Z');
  EXPECT_EQ(f->comm, "npm run dev");
  EXPECT_EQ(f->exit_code, 35072);
  // A line that stops short of it says nothing of how the process ended.
  EXPECT_EQ(parse_stat(stat_line("42", "perl", "S", 7, 40, 30, 1))->exit_code, -1);
}

TEST(ParseStat, CommWithSpacesAndParentheses) {
  // A process may name itself anything up to 15 bytes, ") S 1 1 1" included.
  auto f = parse_stat(stat_line("9", "a) (b ) S 1 1 1", "T", 3, 4, 5, 77));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->comm, "a) (b ) S 1 1 1");
  EXPECT_EQ(f->state, 'T');
  EXPECT_EQ(f->ppid, 3);
  EXPECT_EQ(f->pgid, 4);
  EXPECT_EQ(f->sid, 5);
  EXPECT_EQ(f->start_time, 77u);
}

TEST(ParseStat, EmptyComm) {
  auto f = parse_stat(stat_line("9", "", "Z", 1, 1, 1, 5));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->comm, "");
  EXPECT_EQ(f->state, 'Z');
}

TEST(ParseStat, RejectsMalformedInput) {
  EXPECT_FALSE(parse_stat(""));
  EXPECT_FALSE(parse_stat("42 perl S 1 2 3"));    // no parentheses
  EXPECT_FALSE(parse_stat("42 (perl) S 1 2 3"));  // truncated before starttime
  EXPECT_FALSE(parse_stat("x (perl) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"));
  EXPECT_FALSE(parse_stat("42 (perl) S one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"));
  EXPECT_FALSE(parse_stat("42 (perl) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"));
}

TEST(ParseCmdline, SplitsOnNul) {
  using V = std::vector<std::string>;
  EXPECT_EQ(parse_cmdline(std::string("perl\0-e\0print 1\0", 16)), (V{"perl", "-e", "print 1"}));
  EXPECT_EQ(parse_cmdline(std::string("no-terminator")), (V{"no-terminator"}));
  EXPECT_EQ(parse_cmdline(std::string("a\0\0b\0", 5)), (V{"a", "", "b"}));
  EXPECT_TRUE(parse_cmdline("").empty());  // kernel threads and zombies
}

TEST_F(FakeProc, ReadsEveryNumericEntryAndSkipsTheRest) {
  add(1, 0, 1, 1, "init", std::string("init\0", 5));
  add(10, 1, 10, 10, "agent x", std::string("perl\0tree.pl\0", 13));
  add(11, 10, 10, 10, "child", std::string("perl\0", 5));
  add(12, 11, 12, 12, "escaped", std::string("perl\0", 5));
  add(20, 1, 20, 20, "other", std::string("sh\0", 3));
  std::filesystem::create_directories(dir_ / "self");
  std::filesystem::create_directories(dir_ / "13");  // vanished: no stat file left
  std::ofstream(dir_ / "14") << "not a directory";

  auto table = ProcTable::read(dir_.string(), Detail::full);
  ASSERT_EQ(table.all().size(), 5u);
  const ProcInfo* agent = table.find(10);
  ASSERT_NE(agent, nullptr);
  EXPECT_EQ(agent->comm, "agent x");
  EXPECT_EQ(agent->argv, (std::vector<std::string>{"perl", "tree.pl"}));
  EXPECT_EQ(agent->cwd, "/work/tree");
  EXPECT_EQ(table.find(13), nullptr);
  ChildMap children;
  for (const auto& p : table.all()) children[p.ppid].push_back(p.pid);
  EXPECT_EQ(walk_descendants(children, 10), (std::vector<pid_t>{11, 12}));
  EXPECT_TRUE(walk_descendants(children, 12).empty());
}

TEST_F(FakeProc, StatDetailSkipsArgvAndCwd) {
  add(5, 1, 5, 5, "x", std::string("prog\0", 5));
  auto table = ProcTable::read(dir_.string(), Detail::stat);
  ASSERT_NE(table.find(5), nullptr);
  EXPECT_TRUE(table.find(5)->argv.empty());
  EXPECT_TRUE(table.find(5)->cwd.empty());
}

TEST(LiveProc, FindsThisProcessWithItsParent) {
  auto table = ProcTable::read();
  const ProcInfo* self = table.find(::getpid());
  ASSERT_NE(self, nullptr);
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_EQ(self->pgid, ::getpgrp());
  EXPECT_EQ(self->state, 'R');
  EXPECT_FALSE(self->argv.empty());
  auto one = ProcTable::read_one(::getpid());
  ASSERT_TRUE(one);
  EXPECT_EQ(one->start_time, self->start_time);
  EXPECT_FALSE(ProcTable::read_one(-5));
}

TEST(LiveProc, CountsThisProcessesThreads) {
  const long before = ProcTable::read_one(::getpid(), Detail::stat)->threads;
  ASSERT_GE(before, 1);
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::thread other([&] {
    char byte = 0;
    (void)!::read(go[0], &byte, 1);
  });
  EXPECT_EQ(ProcTable::read_one(::getpid(), Detail::stat)->threads, before + 1);
  (void)!::write(go[1], "x", 1);
  other.join();
  ::close(go[0]);
  ::close(go[1]);
}

TEST(StatusField, ReadsAFieldOfAStatusTextOrOfAProcess) {
  const std::string text = "Name:\tsh\nNSpid:\t12\t1\nNSsid:\t9\t1\nTracerPid:\t0\n";
  EXPECT_EQ(status_field(std::string_view(text), "NSpid"), "12\t1");
  EXPECT_EQ(status_field(std::string_view(text), "NSsid"), "9\t1");
  EXPECT_EQ(status_field(std::string_view(text), "Pid"), "");  // a prefix of no field's name
  EXPECT_EQ(status_field(::getpid(), "Tgid"), std::to_string(::getpid()));
  EXPECT_EQ(status_field(-5, "Tgid"), "");
}

}  // namespace
}  // namespace reaper
