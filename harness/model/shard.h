// One slice of a matrix, for spreading a run over CI machines: `--shard K/N` runs the cells whose
// index in the plan (scenario-major, then reaper) is K-1 modulo N, so the N slices cover every
// cell once, each slice gets every scenario's cells spread over it, and the same plan always
// gives the same slices. Every repeat of a cell runs in the same slice.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace reapcheck {

struct Shard {
  int index = 1;  // K, from 1
  int count = 1;  // N

  bool holds(size_t cell) const {
    return cell % static_cast<size_t>(count) == static_cast<size_t>(index - 1);
  }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "K/N" with 1 <= K <= N; empty when malformed.
std::optional<Shard> parse_shard(std::string_view text);

}  // namespace reapcheck
