#include "harness/engine/watch/test_process.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>

namespace reapcheck {
namespace {

namespace fs = std::filesystem;

std::string base(const std::vector<std::string>& argv) {
  return argv.empty() ? std::string() : fs::path(argv.front()).filename().string();
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// cargo names a test binary NAME-HASH (16 hex digits) under target/<profile>/deps.
std::string cargo_test(const std::vector<std::string>& argv) {
  if (argv.empty()) return {};
  const fs::path program(argv.front());
  if (program.parent_path().filename() != "deps" ||
      program.string().find("/target/") == std::string::npos) {
    return {};
  }
  const std::string name = program.filename().string();
  constexpr size_t kHash = 16;
  if (name.size() < kHash + 2 || name[name.size() - kHash - 1] != '-') return {};
  const bool hex = std::all_of(name.end() - kHash, name.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  return hex ? name.substr(0, name.size() - kHash - 1) : std::string();
}

// `name` is one of `programs`, a version after it or not (python3.11, perl5.36): not nodemon,
// not shellcheck.
bool is_program(const std::string& name, std::initializer_list<std::string_view> programs) {
  return std::any_of(programs.begin(), programs.end(), [&](std::string_view p) {
    return name.rfind(p, 0) == 0 &&
           std::all_of(name.begin() + static_cast<long>(p.size()), name.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  });
}

bool is_node(const std::vector<std::string>& argv) {
  return is_program(base(argv), {"node", "nodejs"});
}

bool runs_node_tests(const std::vector<std::string>& argv) {
  return is_node(argv) && std::any_of(argv.begin() + 1, argv.end(), [](const std::string& a) {
           return a == "--test" || a.rfind("--test=", 0) == 0;
         });
}

// The script a node process runs: its last argument naming a JavaScript or TypeScript file.
std::string node_script(const std::vector<std::string>& argv) {
  static constexpr std::array kTails{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"};
  for (auto it = argv.rbegin(); it + 1 < argv.rend(); ++it) {
    if (it->rfind('-', 0) == 0) continue;
    if (std::any_of(kTails.begin(), kTails.end(),
                    [&](const char* t) { return ends_with(*it, t); })) {
      return *it;
    }
  }
  return {};
}

std::string relative_to(const std::string& file, const fs::path& dir) {
  const fs::path p(file);
  if (!p.is_absolute()) return file;
  const fs::path rel = p.lexically_relative(dir);
  return rel.empty() || rel.native().rfind("..", 0) == 0 ? file : rel.string();
}

// What an interpreter runs: its script's file name, or "-e"/"-c" for code on its command line,
// "-m MODULE" for a module; empty for a program that is no interpreter, or one given nothing.
std::string interpreted(const std::vector<std::string>& argv) {
  if (!is_program(base(argv), {"perl", "python", "node", "nodejs", "sh", "bash", "dash", "ruby"})) {
    return {};
  }
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-e" || a == "-c" || a == "-m") {
      return a + (a == "-m" && i + 1 < argv.size() ? " " + argv[i + 1] : "");
    }
    if (a.rfind('-', 0) != 0) return fs::path(a).filename().string();
  }
  return {};
}

// The test `chain[i]` is the process of, or empty.
std::string test_name(const std::vector<ChainLink>& chain, size_t i, const fs::path& dir,
                      const CTestNamer& ctest_name) {
  const auto& argv = chain[i].argv;
  if (std::string name = cargo_test(argv); !name.empty()) return name;
  if (ends_with(base(argv), ".test")) return base(argv);
  if (i + 1 >= chain.size()) return {};
  const auto& parent = chain[i + 1].argv;
  if (base(parent) == "ctest" && !argv.empty()) {
    if (std::string name = ctest_name ? ctest_name(chain[i + 1].pid, argv) : std::string();
        !name.empty()) {
      return name;
    }
    // A script CTest runs is its interpreter's process: the script names it.
    const std::string script = interpreted(argv);
    return script.empty() || script.front() == '-' ? base(argv) : script;
  }
  if (is_node(argv) && !runs_node_tests(argv)) {
    const bool below_runner =
        std::any_of(chain.begin() + static_cast<long>(i) + 1, chain.end(),
                    [](const ChainLink& l) { return runs_node_tests(l.argv); });
    if (const std::string script = node_script(argv); below_runner && !script.empty()) {
      return relative_to(script, dir);
    }
  }
  return {};
}

}  // namespace

TestOf test_of(const std::vector<ChainLink>& chain, const fs::path& dir,
               const CTestNamer& ctest_name) {
  for (size_t i = chain.size(); i-- > 0;) {
    if (std::string name = test_name(chain, i, dir, ctest_name); !name.empty()) {
      return {std::move(name), chain[i].pid};
    }
  }
  return {};
}

std::string link_name(const ChainLink& link) {
  if (link.argv.empty()) return fmt::format("pid {}", link.pid);
  std::string name = base(link.argv);
  if (const std::string run = interpreted(link.argv); !run.empty()) name += " " + run;
  return fmt::format("{} (pid {})", name, link.pid);
}

}  // namespace reapcheck
