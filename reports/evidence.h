// A case's evidence as every human-readable report shows it (terminal, JUnit, HTML, reproduce):
// what survived, who was signalled and by whom, what the reaper left behind — one list of
// sections, rendered as text or HTML, so the reports cannot tell different stories.
#pragma once

#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

struct EvidenceSection {
  std::string title;               // "survivors", "signals from the reaper's side", ...
  std::vector<std::string> lines;  // one item each
  bool preformatted = false;       // a process forest: keep its indentation
};

std::vector<EvidenceSection> evidence_sections(const CaseResult& c);

// Each section as "TITLE:" and its lines indented under it, every line prefixed with `indent`.
std::string evidence_text(const CaseResult& c, const std::string& indent = "  ");

}  // namespace reapcheck
