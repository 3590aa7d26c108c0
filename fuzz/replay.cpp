// The fuzz targets outside the fuzz preset: each argument is a file, or a folder of files, fed to
// LLVMFuzzerTestOneInput once. ctest runs every target over its seed corpus this way, so a crash
// the fuzzer once found stays fixed, and clang-tidy sees the targets in the default build.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << "replay: cannot read " << file << '\n';
    return 1;
  }
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << "usage: " << argv[0] << " FILE|DIR...  (feeds each file to the fuzz target)\n";
    return 2;
  }
  int status = 0;
  int count = 0;
  for (const std::filesystem::path arg : args) {
    if (!std::filesystem::is_directory(arg)) {
      status |= replay(arg);
      ++count;
      continue;
    }
    for (const auto& entry : std::filesystem::directory_iterator(arg)) {
      if (!entry.is_regular_file()) continue;
      status |= replay(entry.path());
      ++count;
    }
  }
  std::cout << "replay: " << count << " inputs, none crashed\n";
  return status;
}
