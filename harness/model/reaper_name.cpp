#include "harness/model/reaper_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace reapcheck {
namespace {

constexpr std::string_view kCommandKinds[] = {"exec:", "supervise:"};

bool plain_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// The command's kind ("exec"), when `id` is an exec: or supervise: command.
std::string_view command_kind(std::string_view id) {
  for (std::string_view kind : kCommandKinds) {
    if (id.size() > kind.size() && id.substr(0, kind.size()) == kind) {
      return kind.substr(0, kind.size() - 1);
    }
  }
  return {};
}

// FNV-1a, 32 bits: a checksum that depends on nothing but the bytes (std::hash may differ
// between builds), short enough to read.
std::uint32_t checksum(std::string_view bytes) {
  return std::accumulate(bytes.begin(), bytes.end(), std::uint32_t{2166136261U},
                         [](std::uint32_t h, char c) {
                           return (h ^ static_cast<unsigned char>(c)) * std::uint32_t{16777619U};
                         });
}

// The file name of the command's program, its first word, as a plain word: "./bin/my.reaper
// kill" gives "my-reaper"; empty when nothing of it is plain.
std::string program_word(std::string_view command) {
  const size_t start = command.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  std::string_view first = command.substr(start, command.find_first_of(" \t;|&", start) - start);
  if (const size_t slash = first.rfind('/'); slash != std::string_view::npos) {
    first.remove_prefix(slash + 1);
  }
  std::string word;
  for (char c : first) {
    if (plain_char(c)) {
      word += c;
    } else if (!word.empty() && word.back() != '-') {
      word += '-';
    }
  }
  while (!word.empty() && word.back() == '-') word.pop_back();
  return word.substr(0, 32);
}

}  // namespace

bool is_plain_name(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), plain_char);
}

LabelledReaper split_reaper_label(std::string_view id) {
  const size_t eq = id.find('=');
  if (eq == std::string_view::npos || !is_plain_name(id.substr(0, eq)) ||
      command_kind(id.substr(eq + 1)).empty()) {
    return {{}, id};
  }
  return {id.substr(0, eq), id.substr(eq + 1)};
}

std::string_view shown_reaper(std::string_view id) {
  const LabelledReaper split = split_reaper_label(id);
  return split.label.empty() ? id : split.label;
}

std::string reaper_name(std::string_view id) {
  const LabelledReaper split = split_reaper_label(id);
  if (!split.label.empty()) return std::string(split.label);
  if (is_plain_name(id)) return std::string(id);
  std::string_view kind = command_kind(id);
  const std::string program =
      kind.empty() ? std::string() : program_word(id.substr(kind.size() + 1));
  if (kind.empty()) kind = "reaper";
  return fmt::format("{}-{}{:08x}", kind, program.empty() ? "" : program + "-", checksum(id));
}

}  // namespace reapcheck
