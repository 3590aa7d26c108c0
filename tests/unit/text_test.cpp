#include "harness/model/text.h"

#include <gtest/gtest.h>

#include "harness/model/result_json.h"

namespace reapcheck {
namespace {

TEST(Printable, ValidUtf8PassesAndEveryOtherByteIsEscaped) {
  EXPECT_EQ(printable("perl tree.pl /tmp/wörk"), "perl tree.pl /tmp/wörk");
  EXPECT_EQ(printable(std::string("a\xff"
                                  "b")),
            "a\\xFFb");
  EXPECT_EQ(printable(std::string("x\0y", 3)), "x\\x00y");  // NUL
  EXPECT_EQ(printable("tab\tnewline\nbell\a"), "tab\tnewline\nbell\\x07");
  // A character split mid-way (stderr read in two pieces), an overlong '/', a surrogate.
  EXPECT_EQ(printable(std::string("caf\xc3")), "caf\\xC3");
  EXPECT_EQ(printable(std::string("\xc0\xaf")), "\\xC0\\xAF");
  EXPECT_EQ(printable(std::string("\xed\xa0\x80")), "\\xED\\xA0\\x80");
}

// A survivor whose argv is not UTF-8, and a reaper step quoting binary stderr, still make a
// result that writes and reads back: nothing a process says can turn a verdict into an error.
TEST(Printable, ResultsWithBinaryTextRoundTrip) {
  CaseResult c;
  c.verdict = Verdict::leak;
  c.survivors.push_back(
      {5, 1, 5, 5, "S", "escaped", printable(std::vector<std::string>{"perl\xff\xfe"})});
  c.reaper_steps = {printable(std::string("stderr: \xff\xfe\x01"))};
  const std::string text = json_text(nlohmann::json(c));
  const CaseResult back = nlohmann::json::parse(text).get<CaseResult>();
  EXPECT_EQ(back.survivors.at(0).argv.at(0), "perl\\xFF\\xFE");
  EXPECT_EQ(back.reaper_steps.at(0), "stderr: \\xFF\\xFE\\x01");
  // And a string that never went through printable() is written, not thrown on.
  EXPECT_NO_THROW(json_text(nlohmann::json(std::string("raw \xff"))));
}

}  // namespace
}  // namespace reapcheck
