// libFuzzer target: any bytes as a readiness line ("ready <pid> <role>"). It is an announcement
// with a positive pid and a role a scenario could name (is_role), or nothing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/engine/tree/readiness.h"
#include "harness/model/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto a =
      reapcheck::parse_announcement(std::string_view(reinterpret_cast<const char*>(data), size));
  if (a && (a->pid <= 0 || !reapcheck::is_role(a->role))) {
    __builtin_trap();
  }
  return 0;
}
