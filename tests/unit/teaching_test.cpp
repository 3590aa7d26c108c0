// What the reports teach beside the evidence: how members escape, which reapers pass, "did you
// mean", and the placeholders of an exec: command, filled in shell-quoted.
#include <gtest/gtest.h>

#include "harness/catalog/external.h"
#include "harness/cli/did_you_mean.h"
#include "harness/model/notes.h"

namespace reapcheck {
namespace {

TEST(Notes, SayHowMembersEscapeAndWhoPassesMostRobustFirst) {
  const Scenario s = parse_scenario(
      "description = \"d\"\n[tree]\nrole = \"agent\"\n[[tree.children]]\nrole = \"escaped\"\n"
      "setsid = true\n",
      "setsid-escape.toml");
  ExpectationBook book;
  ReaperExpectations weak{"weak", "weak.toml", {{"setsid-escape", {Verdict::leak, "why"}}}, {}};
  ReaperExpectations fragile{"fragile", "fragile.toml", {{"other", {Verdict::leak, "r"}}}, {}};
  book.add(weak);
  book.add(fragile);
  const ScenarioNotes n =
      scenario_notes(s, book, {{"weak", "w"}, {"fragile", "f"}, {"solid", "kills everything"}});
  ASSERT_EQ(n.escapes.size(), 1u);
  EXPECT_EQ(n.escapes[0].rfind("escaped: calls setsid()", 0), 0u) << n.escapes[0];
  EXPECT_EQ(n.passing, (std::vector<std::string>{"solid", "fragile"}));
  EXPECT_EQ(n.technique, "kills everything");
  EXPECT_EQ(n.description, "d");
}

TEST(DidYouMean, SuggestsTheClosestNamesOnly) {
  const std::vector<std::string> ids = {"run", "report", "reproduce", "list"};
  EXPECT_EQ(did_you_mean("rn", ids), " (did you mean 'run'?)");
  EXPECT_EQ(did_you_mean("reprot", ids), " (did you mean 'report'?)");
  EXPECT_EQ(did_you_mean("bogus-command", ids), "");
}

TEST(Placeholders, AreFilledShellQuotedInOnePass) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  const std::string odd = "/tmp/x y/$(touch PWNED)'q/{pid}";
  EXPECT_EQ(fill_placeholders("kill -TERM -- -{pgid}; ls {worktree} {unknown} {",
                              {{"pgid", "7"}, {"worktree", odd}}),
            "kill -TERM -- -'7'; ls '/tmp/x y/$(touch PWNED)'\\''q/{pid}' {unknown} {");
}

}  // namespace
}  // namespace reapcheck
