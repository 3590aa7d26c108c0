#include "harness/model/toml_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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
  const std::string name = file.string();
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  const int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) throw InputError(fmt::format("{}: a loop of symbolic links", name));
    throw InputError(fmt::format("{}: cannot read the file: {}", name, std::strerror(err)));
  }
  // The model links nothing of reaper/, whose UniqueFd this would be.
  const struct Closed {
    int fd;
    ~Closed() { ::close(fd); }
  } held{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw InputError(fmt::format("{}: cannot read the file: {}", name, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("{}: a directory, not a file", name));
  if (!S_ISREG(st.st_mode)) {
    throw InputError(fmt::format(
        "{}: not a regular file (a FIFO, a socket or a device): refused, never read", name));
  }
  if (static_cast<size_t>(st.st_size) > kMaxInputBytes) {
    throw InputError(fmt::format("{}: {} bytes, over the limit of {} for an input file", name,
                                 st.st_size, kMaxInputBytes));
  }
  std::string text(kMaxInputBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw InputError(fmt::format("{}: cannot read the file: {}", name, std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxInputBytes) {  // grew while read
    throw InputError(
        fmt::format("{}: over the limit of {} bytes for an input file", name, kMaxInputBytes));
  }
  text.resize(got);
  return text;
}

size_t max_text(std::string_view key) {
  if (key == "description" || key == "reason") return 1000;
  if (key == "role") return 64;
  return 4096;
}

namespace {

// `value` of `key` within its limit, or the reader's failure at `where`.
void check_length(const TomlReader& reader, const toml::source_region& where, std::string_view key,
                  std::string_view value) {
  if (value.size() > max_text(key)) {
    reader.fail(where, fmt::format("'{}' is {} bytes long, over its limit of {}", key, value.size(),
                                   max_text(key)));
  }
}

}  // namespace

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
  check_length(*this, n->source(), key, n->as_string()->get());
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
    check_length(*this, item.source(), key, item.as_string()->get());
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
