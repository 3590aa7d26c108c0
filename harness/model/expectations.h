// What each reaper is expected to do in each scenario. `pass` everywhere, except where the
// reaper's expectations file declares a known weakness (a verdict and its reason) or a case that
// cannot apply (a skip and its reason). One file per reaper, scenarios/expectations/<reaper>.toml:
//
//   [[known]]
//   verdict = "leak"
//   reason = "killpg reaches only the agent's process group; ..."
//   scenarios = ["setsid-escape", "setpgid-escape"]
//
// A weakness whose failure takes one form or another by timing alone (a cleanup signal that lands
// before or after its group empties) lists the other forms, each a failure too:
//
//   also = ["late"]
//
//   [[skip]]
//   reason = "..."
//   scenarios = ["pgid-reuse"]
//
// Each reason is written once, for every scenario it explains.
//
// A file given with `run --expectations FILE` declares them for any reaper of the run, by the
// name reports give it (a label: --reaper walk=exec:CMD is "walk"): its stem, or its own
//
//   reaper = "walk"
//
// at the top. `run --write-expectations FILE` writes one from what a run saw.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/verdict.h"

namespace reapcheck {

struct Expectation {
  Verdict verdict = Verdict::pass;
  std::string reason;         // empty for pass
  std::vector<Verdict> also;  // other failing verdicts the same weakness shows by timing alone
  std::string where;          // "file:line" of the declaration, for a stale one's report
};

// One reaper's file.
struct ReaperExpectations {
  std::string reaper;  // the file's `reaper`, or else its stem
  std::filesystem::path file;
  std::map<std::string, Expectation, std::less<>> known;  // scenario → declared weakness
  std::map<std::string, std::string, std::less<>> skip;   // scenario → why it cannot apply
};

// Every reaper's expectations.
class ExpectationBook {
 public:
  void add(ReaperExpectations reaper);

  // `pass` unless the reaper's file declares a weakness in this scenario.
  Expectation expected(std::string_view scenario, std::string_view reaper) const;
  // Why the case cannot apply, or nullptr when it can.
  const std::string* skip_reason(std::string_view scenario, std::string_view reaper) const;
  const ReaperExpectations* find(std::string_view reaper) const;

 private:
  std::map<std::string, ReaperExpectations, std::less<>> by_reaper_;
};

// Parses one reaper's file. `scenarios` and `reapers` are the ids that exist (for a file given
// with --expectations, the names of the run's reapers): a file that names another is rejected,
// with file:line:col and the valid ids (InputError). `whose` says what `reapers` are, for that
// message.
ReaperExpectations parse_expectations(std::string_view text, const std::filesystem::path& file,
                                      const std::vector<std::string>& scenarios,
                                      const std::vector<std::string>& reapers,
                                      std::string_view whose = "built-in reapers and presets");

// Every *.toml in `dir`; a directory that does not exist holds no expectations.
ExpectationBook load_expectations(const std::filesystem::path& dir,
                                  const std::vector<std::string>& scenarios,
                                  const std::vector<std::string>& reapers);

}  // namespace reapcheck
