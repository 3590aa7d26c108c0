// Text read from processes — argv, stderr, a fixture's log — as the result model keeps it. It is
// bytes, not necessarily UTF-8, while JSON, JUnit and HTML need text: every byte that is not part
// of valid UTF-8, and every control character but tab and newline (C1 included: a terminal acts on
// it) and U+FFFE and U+FFFF (XML has no place for them), is written \xNN. Valid UTF-8 passes
// unchanged otherwise. Free text from the user's files (a description, a tag, a reason) goes
// through it too: every report and the terminal show it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

std::string printable(std::string_view bytes);
std::vector<std::string> printable(const std::vector<std::string>& bytes);

// `j` as JSON text. A string that is still not UTF-8 (one that did not pass through printable())
// has its bad bytes replaced rather than aborting the write: nothing read from a process can turn
// a verdict into an error.
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace reapcheck
