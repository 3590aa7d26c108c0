// libFuzzer target: any bytes as a reaper's expectations file, against a fixed set of scenario
// and reaper ids. It parses or throws InputError; nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/expectations.h"
#include "harness/model/toml_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> scenarios = {"plain-child", "setsid-escape", "pid-reuse"};
  static const std::vector<std::string> reapers = {"pgroup", "case"};
  try {
    reapcheck::parse_expectations(std::string_view(reinterpret_cast<const char*>(data), size),
                                  "fuzz/case.toml", scenarios, reapers);
  } catch (const reapcheck::InputError&) {
  }
  return 0;
}
