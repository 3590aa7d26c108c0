#include "harness/model/toml_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace reapcheck {

toml::table parse_toml(std::string_view text, const std::filesystem::path& file) {
  try {
    return toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(
        fmt::format("{}:{}:{}: {}", file.string(), where.line, where.column, e.description()));
  }
}

std::string read_input(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot read the file", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void TomlReader::fail(const toml::source_region& where, const std::string& what) const {
  throw InputError(
      fmt::format("{}:{}:{}: {}", file_.string(), where.begin.line, where.begin.column, what));
}

void TomlReader::only_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                           std::string_view where) const {
  for (const auto& [key, value] : t) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    fail(key.source(), fmt::format("unknown key '{}' in {} (expected one of: {})", key.str(), where,
                                   fmt::join(allowed, ", ")));
  }
}

std::string TomlReader::string_at(const toml::table& t, std::string_view key, bool required) const {
  const toml::node* n = t.get(key);
  if (n == nullptr) {
    if (required) fail(t.source(), fmt::format("missing key '{}' (a string)", key));
    return {};
  }
  if (!n->is_string()) fail(n->source(), fmt::format("'{}' must be a string", key));
  return std::string(*n->as_string());
}

bool TomlReader::bool_at(const toml::table& t, std::string_view key, bool fallback) const {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  if (!n->is_boolean()) fail(n->source(), fmt::format("'{}' must be true or false", key));
  return n->as_boolean()->get();
}

std::vector<std::string> TomlReader::strings_at(const toml::table& t, std::string_view key) const {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* a = n->as_array();
  if (a == nullptr) fail(n->source(), fmt::format("'{}' must be an array of strings", key));
  for (const auto& item : *a) {
    if (!item.is_string()) fail(item.source(), fmt::format("'{}' holds a non-string", key));
    out.emplace_back(*item.as_string());
  }
  return out;
}

int TomlReader::int_at(const toml::table& t, std::string_view key, int low, int high,
                       int fallback) const {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  if (!n->is_integer() || n->as_integer()->get() < low || n->as_integer()->get() > high) {
    fail(n->source(), fmt::format("'{}' must be a whole number from {} to {}", key, low, high));
  }
  return static_cast<int>(n->as_integer()->get());
}

std::vector<const toml::table*> TomlReader::tables_at(const toml::table& t,
                                                      std::string_view key) const {
  std::vector<const toml::table*> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* arr = n->as_array();
  if (arr == nullptr) fail(n->source(), fmt::format("'{}' must be an array of tables", key));
  for (const auto& entry : *arr) {
    if (!entry.is_table()) fail(entry.source(), fmt::format("each '{}' must be a table", key));
    out.push_back(entry.as_table());
  }
  return out;
}

}  // namespace reapcheck
