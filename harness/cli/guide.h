// `reapcheck report --guide DIR`: docs/reapers.md from the catalogue, the expectations and the
// run and bench kept in DIR (docs/data); with --check FILE, whether FILE is it and the kept run
// still evidence for what is declared; with --write FILE, FILE made so.
#pragma once

#include <string>

#include "harness/cli/common.h"

namespace reapcheck {

struct GuideArgs {
  std::string data;   // --guide DIR
  std::string check;  // --check FILE
  std::string write;  // --write FILE
  // `report R.json --keep-guide-data DIR --bench B.json --command TEXT`
  std::string keep;
  std::string bench;
  std::string command;
};

int reapers_guide(const GlobalArgs& global, const GuideArgs& args);

// Keeps in DIR what the guide needs of a `run --presets`'s results.json (`results`) and of a
// `reapcheck bench`'s bench.json: DIR/presets-run.json and DIR/bench.json.
int keep_guide_data(const std::string& results, const GuideArgs& args);

}  // namespace reapcheck
