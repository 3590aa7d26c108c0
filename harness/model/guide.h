// The guide to choosing a reaper (docs/reapers.md), as facts: every reaper of the catalogue
// against every scenario, from a kept `run --presets` (its cells) and a `reapcheck bench` (its
// latencies), judged against the declared expectations. reports/reapers_guide.h writes it out.
//
// A reaper or a scenario the kept run does not hold is "not yet measured", which is no fault: a
// reaper added since is reported as such until the run is made again. A cell the run holds whose
// verdicts the expectations no longer allow is a fault (stale_cells): the run is no evidence.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/expectations.h"
#include "harness/model/result.h"
#include "harness/model/verdict.h"

namespace reapcheck {

// A reaper of the catalogue, as the guide needs it.
struct GuideReaper {
  std::string id;
  bool builtin = false;     // a strategy of the reaper library; else a preset
  bool supervises = false;  // the agent runs under it (an init, a sandbox, a supervisor)
  std::string technique;
  std::string requires_what;       // what it needs of the machine, in a line
  std::vector<std::string> needs;  // what must be installed
};

// One cell of the kept run: its verdict, every verdict where its repeats disagreed.
struct GuideCell {
  std::string scenario;
  std::string reaper;
  Verdict verdict = Verdict::pass;
  std::vector<Verdict> verdicts;                   // more than one: the repeats disagreed
  std::string reason;                              // a skipped cell's
  std::optional<std::vector<double>> all_dead_ms;  // wide-tree's, each repeat; -1: never

  // Every verdict its repeats gave.
  std::vector<Verdict> seen() const { return verdicts.empty() ? std::vector{verdict} : verdicts; }
};

// docs/data/presets-run.json.
struct GuideRun {
  std::string command;
  int repeat = 0;
  double wall_s = 0;
  int cases = 0;
  std::string machine;
  std::vector<GuideCell> cells;
};

// One reap of docs/data/bench.json.
struct BenchReap {
  std::string reaper;
  std::string shape;
  int members = 0;
  std::optional<double> ms;  // none: never all dead
  std::string verdict;
};

// docs/data/bench.json.
struct GuideBench {
  std::string machine;
  bool quick = false;
  std::vector<BenchReap> reap;
  std::optional<double> matrix_wall_s;
  int matrix_cases = 0;
  int matrix_jobs = 0;
  std::optional<double> presets_matrix_wall_s;
  int presets_matrix_cases = 0;
};

// Reads the two files' text; InputError when malformed.
GuideRun parse_guide_run(const std::string& json);
GuideBench parse_guide_bench(const std::string& json);

// What the guide keeps of a `run --presets`: one cell per scenario × reaper, every verdict its
// repeats gave where they disagreed (the check accepts it only while each is a declared form),
// the wide-tree cells' times to all dead, each repeat (-1: never). `command` says what made it.
GuideRun kept_run(const RunResult& run, std::string command, std::string machine);
std::string guide_run_json(const GuideRun& run);

// What is declared of a cell: "pass", "skipped", or its weakness ("leak or late"), and why.
struct Declared {
  std::string verdict;
  std::string reason;
};

class Guide {
 public:
  // `inapplicable`: (scenario, reaper) → why the scenario cannot apply to that kind of reaper.
  Guide(std::vector<GuideReaper> reapers, std::vector<std::string> scenarios,
        const ExpectationBook& book,
        std::map<std::pair<std::string, std::string>, std::string> inapplicable, GuideRun run,
        GuideBench bench);
  Guide(const Guide&) = delete;  // cells_ points into run_
  Guide& operator=(const Guide&) = delete;

  const std::vector<GuideReaper>& reapers() const { return reapers_; }
  const std::vector<std::string>& scenarios() const { return scenarios_; }
  const GuideRun& run() const { return run_; }
  const GuideBench& bench() const { return bench_; }

  Declared declared(const std::string& scenario, const std::string& reaper) const;
  const GuideCell* cell(const std::string& scenario, const std::string& reaper) const;

  // "scenario × reaper: the run saw leak, pass is declared": cells whose verdicts the declared
  // expectation does not allow. Empty when the run is still evidence.
  std::vector<std::string> stale_cells() const;
  // The reapers the run holds no cell of; the scenarios of `reaper` it holds none of.
  bool measured(const std::string& reaper) const;
  std::vector<std::string> unmeasured_scenarios(const std::string& reaper) const;

  // What `reaper` is declared to fail: per reason, in the order reasons first appear, the
  // verdict and the scenarios ("skipped" where the run skipped a declared weakness).
  struct Failure {
    std::string reason;
    std::string verdict;
    std::vector<std::string> scenarios;
  };
  std::vector<Failure> failures(const std::string& reaper) const;
  // The scenarios it fails (skips aside), and how many it passed in every repeat.
  std::vector<std::string> fails(const std::string& reaper) const;
  int passes(const std::string& reaper) const;
  // "scenario (late, leak)" for each cell whose repeats disagreed.
  std::vector<std::string> flaky(const std::string& reaper) const;
  // "29 ms", "never (leak)", "777 ms (run)", "not judged (skipped)", "not measured".
  std::string latency(const std::string& reaper, int members) const;
  // A reaper measured both ways at 1,000 members, the most robust first: its run median and its
  // bench figure, so a reader can scale the (run) figures.
  struct BothWays {
    std::string reaper;
    double run_ms = 0;
    double bench_ms = 0;
  };
  std::optional<BothWays> run_against_bench() const;

  // One group of reapers run the same way, with the ones to choose: those failing the fewest
  // scenarios (none, where any fails none), the most robust first; the rest, the same order.
  struct Recommendation {
    std::string kind;  // "builtin", "supervises", "kills"
    std::vector<std::string> chosen;
    std::vector<std::string> others;
  };
  std::vector<Recommendation> recommendations() const;

 private:
  const BenchReap* bench_reap(const std::string& reaper, int members) const;
  std::optional<double> run_median(const GuideCell& c) const;
  std::vector<std::string> most_robust_first(const std::vector<std::string>& ids) const;

  std::vector<GuideReaper> reapers_;
  std::vector<std::string> scenarios_;
  const ExpectationBook& book_;
  std::map<std::pair<std::string, std::string>, std::string> inapplicable_;
  GuideRun run_;
  GuideBench bench_;
  std::map<std::pair<std::string, std::string>, const GuideCell*> cells_;
};

}  // namespace reapcheck
