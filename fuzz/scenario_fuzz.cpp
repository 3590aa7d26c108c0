// libFuzzer target: any bytes as a scenario file. The parser either returns a scenario the
// fixtures can build (within the member and depth limits) or throws InputError; nothing else —
// no crash, no other exception, no runaway time or memory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/model/scenario.h"
#include "harness/model/toml_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const reapcheck::Scenario s = reapcheck::parse_scenario(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz/case.toml");
    if (s.member_count() > 5000) __builtin_trap();  // the documented cap
  } catch (const reapcheck::InputError&) {
  }
  return 0;
}
