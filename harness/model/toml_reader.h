// Reading reapcheck's TOML input files (scenarios, expectations) with errors that point at the
// place: every message starts with file:line:col and says what was expected there.
#pragma once

#include <toml++/toml.h>

#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

// A malformed input file; the message starts with file:line:col (or file: when there is no
// position, as for a file that cannot be read).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses `text` as TOML; a syntax error becomes an InputError at its position.
toml::table parse_toml(std::string_view text, const std::filesystem::path& file);

// What an input file may hold at most: a scenario or an expectations file is a page, not a
// megabyte.
inline constexpr size_t kMaxInputBytes = size_t{1} << 20;

// The whole file; an InputError naming the file and why when it is not one to read: not a
// regular file (a directory, a FIFO, a device: never opened to block or read without end), a
// symlink loop, over kMaxInputBytes, or unreadable.
std::string read_input(const std::filesystem::path& file);

// The longest a string value of `key` may be: free text (description, reason) is a few lines, a
// role one word; any other string a path or an argument. Every report shows these whole.
size_t max_text(std::string_view key);

// Typed access to a table's keys, failing at the key's position with what it should have been.
class TomlReader {
 public:
  explicit TomlReader(std::filesystem::path file) : file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }

  [[noreturn]] void fail(const toml::source_region& where, const std::string& what) const;

  // Fails at the first key of `t` not in `allowed`, listing the allowed ones.
  void only_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                 std::string_view where) const;

  std::string string_at(const toml::table& t, std::string_view key, bool required) const;
  bool bool_at(const toml::table& t, std::string_view key, bool fallback) const;
  std::vector<std::string> strings_at(const toml::table& t, std::string_view key) const;
  // A whole number in [low, high]; `fallback` when the key is absent.
  int int_at(const toml::table& t, std::string_view key, int low, int high, int fallback) const;
  // The array of tables at `key` ([[key]]); empty when absent.
  std::vector<const toml::table*> tables_at(const toml::table& t, std::string_view key) const;

 private:
  std::filesystem::path file_;
};

}  // namespace reapcheck
