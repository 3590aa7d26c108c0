// The terminal report: the scenario × reaper matrix, the cells that differ from their expectation
// with their evidence, and the declared weaknesses — as much of it as `TextDetail` asks for.
#pragma once

#include <string>

#include "harness/model/result.h"

namespace reapcheck {

// How much the terminal report says.
enum class TextDetail {
  quiet,    // the deviations, then the summary line
  normal,   // the matrix and summary, the deviations, one line per reaper for what it declares
  explain,  // the matrix and summary, every deviation in full, every declared weakness with its
            // lesson and every skip with its reason (what matrix.txt holds)
};

// The matrix, with colour on a terminal, and its summary line.
std::string text_matrix(const RunResult& run, bool color);

// The report `detail` asks for. Deviations come with their whole evidence, but past the first
// few (kept to about a screen) each gets one line, so that a reaper failing every scenario
// still prints a page: a do-nothing reaper over the built-in scenarios stays under 8 KB.
std::string text_report(const RunResult& run, bool color, TextDetail detail);

}  // namespace reapcheck
