// libFuzzer target: any bytes as a results.json for `reapcheck report`. It reads into the result
// model, or fails with the JSON library's errors or the model's runtime_error (which the CLI turns
// into a usage error); and what it reads writes back out.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "harness/model/result_json.h"
#include "harness/model/text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto j = nlohmann::json::parse(data, data + size);
    const auto run = j.get<reapcheck::RunResult>();
    (void)reapcheck::json_text(nlohmann::json(run));
  } catch (const nlohmann::json::exception&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}
