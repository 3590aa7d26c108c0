#include "harness/model/reaper_name.h"

#include <gtest/gtest.h>

#include "harness/catalog/catalog.h"

namespace reapcheck {
namespace {

TEST(ReaperName, ALabelNamesTheCommandAndChangesNothingElse) {
  const auto split = split_reaper_label("my-reaper=exec:./my-reaper kill --pid {pid}");
  EXPECT_EQ(split.label, "my-reaper");
  EXPECT_EQ(split.reaper, "exec:./my-reaper kill --pid {pid}");
  EXPECT_EQ(split_reaper_label("tini_2=supervise:tini -s --").label, "tini_2");
  // Not labels: a dot, nothing before '=', a catalogue id after it, '=' inside a command.
  for (const char* id : {"my.reaper=exec:kill {pid}", "=exec:kill {pid}", "x=pgroup",
                         "x=exec:", "exec:env A=exec:b kill {pid}", "pgroup"}) {
    EXPECT_TRUE(split_reaper_label(id).label.empty()) << id;
    EXPECT_EQ(split_reaper_label(id).reaper, id);
  }
}

// What people read: the label, or the id as given (a command with no label stays whole).
TEST(ReaperName, IsShownByItsLabelOrElseAsGiven) {
  EXPECT_EQ(shown_reaper("walk=exec:./walk --pid {pid}"), "walk");
  EXPECT_EQ(shown_reaper("pgroup"), "pgroup");
  EXPECT_EQ(shown_reaper("exec:kill -KILL -{pgid}"), "exec:kill -KILL -{pgid}");
}

TEST(ReaperName, IsAPlainWordStableForTheSameCommandAndDistinctForAnother) {
  EXPECT_EQ(reaper_name("pgroup"), "pgroup");
  EXPECT_EQ(reaper_name("my-reaper=exec:./bin/my.reaper kill {pid}"), "my-reaper");
  const std::string group_kill = reaper_name("exec:/bin/kill -KILL -- -{pgid}; true");
  // FNV-1a of the id: the same on every run and machine, so it is written out here.
  EXPECT_EQ(group_kill, "exec-kill-26830fec");
  EXPECT_NE(reaper_name("exec:/bin/kill -KILL -- {pgid}; true"), group_kill);
  EXPECT_EQ(reaper_name("exec:./bin/my.reaper kill {pid}").rfind("exec-my-reaper-", 0), 0u);
  EXPECT_EQ(reaper_name("supervise:tini -s --").rfind("supervise-tini-", 0), 0u);
  EXPECT_EQ(reaper_name("exec:'$x' {pid}").rfind("exec-x-", 0), 0u);
  EXPECT_EQ(reaper_name("exec:;").size(), std::string("exec-12345678").size());
  for (const char* id : {"exec:./bin/my.reaper kill {pid}", "exec:sh -c 'kill -9 -- -$1' {pid}",
                         "supervise:/usr/bin/dumb-init --", "exec:\xff\xfe {pid}"}) {
    EXPECT_TRUE(is_plain_name(reaper_name(id))) << reaper_name(id);
  }
}

// The catalogue runs a labelled command as the command, and keeps the id whole (results.json
// holds it, so `reproduce` can run it again).
TEST(ReaperName, TheCatalogueResolvesALabelledCommand) {
  const auto labelled = resolve_reaper("mine=exec:kill -9 {pid}", Layout{});
  ASSERT_TRUE(labelled.has_value());
  EXPECT_EQ(labelled->id, "mine=exec:kill -9 {pid}");
  EXPECT_EQ(labelled->command, "kill -9 {pid}");
  EXPECT_EQ(labelled->origin, ReaperChoice::Origin::command);
  const auto supervised = resolve_reaper("s=supervise:tini -s --", Layout{});
  ASSERT_TRUE(supervised.has_value());
  EXPECT_TRUE(supervised->supervises);
  EXPECT_FALSE(resolve_reaper("mine=pgroup", Layout{}).has_value());
  EXPECT_FALSE(resolve_reaper("my.reaper=exec:kill {pid}", Layout{}).has_value());
}

}  // namespace
}  // namespace reapcheck
