// docs/reapers.md, the guide to choosing a reaper, written from the facts model/guide.h computes:
// a reaper's row, its section and the recommendations all come from the catalogue, the
// expectations and the kept run and bench; nothing here names a reaper.
#pragma once

#include <string>

#include "harness/model/guide.h"

namespace reapcheck {

std::string reapers_guide_markdown(const Guide& guide);

}  // namespace reapcheck
