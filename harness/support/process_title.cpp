#include "harness/support/process_title.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reaper/os/read_file.h"

// Copied aside (set_process_title), never read for a value.
extern char** environ;  // check-layers: environment passed on

namespace reapcheck {
namespace {

// Where the kernel keeps the process's argv and environment strings: fields 48 to 51 of
// /proc/self/stat (proc(5)), counted from the first after the command name's closing ')'.
struct ArgArea {
  unsigned long arg_start = 0, arg_end = 0, env_start = 0, env_end = 0;
};

ArgArea arg_area() {
  const std::string stat = reaper::read_file("/proc/self/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos)
    throw std::runtime_error("set the process title: no /proc/self/stat");
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  ArgArea area;
  for (int n = 3; fields >> field; ++n) {
    unsigned long* to = n == 48   ? &area.arg_start
                        : n == 49 ? &area.arg_end
                        : n == 50 ? &area.env_start
                        : n == 51 ? &area.env_end
                                  : nullptr;
    if (to != nullptr) *to = std::stoul(field);
  }
  if (area.arg_end <= area.arg_start || area.env_end < area.env_start) {
    throw std::runtime_error("set the process title: /proc/self/stat has no argument area");
  }
  return area;
}

// The environment moved to the heap: its strings are about to be overwritten where they are.
void copy_environment() {
  std::vector<char*> copy;
  char** from = environ;  // check-layers: environment passed on
  for (char** e = from; e != nullptr && *e != nullptr; ++e) copy.push_back(::strdup(*e));
  copy.push_back(nullptr);
  auto* array = static_cast<char**>(std::malloc(copy.size() * sizeof(char*)));
  if (array == nullptr) throw std::runtime_error("set the process title: out of memory");
  std::memcpy(array, copy.data(), copy.size() * sizeof(char*));
  environ = array;  // never freed; check-layers: environment passed on
}

// The byte at `address` of this process's own memory, as /proc/self/stat gives addresses.
char* at(unsigned long address) {
  return reinterpret_cast<char*>(address);  // NOLINT(performance-no-int-to-ptr): an address
}

}  // namespace

void set_process_title(std::string_view title) {
  const ArgArea area = arg_area();
  copy_environment();
  // The environment follows the arguments (it always does, as execve lays them out), so the
  // title may run on into it. The kernel reads a title that does not end the argument area with a
  // NUL as setproctitle(3) writes it: up to its first NUL, however long the area.
  char* begin = at(area.arg_start);
  const bool joined = area.env_start == area.arg_end;
  char* end = at(joined ? area.env_end : area.arg_end);
  std::memset(begin, 0, static_cast<size_t>(end - begin));
  if (!joined) std::memset(at(area.env_start), 0, area.env_end - area.env_start);
  const size_t room = static_cast<size_t>(end - begin) - 1;
  std::memcpy(begin, title.data(), std::min(room, title.size()));
  // The last byte of the argument area not a NUL: the kernel shows the title alone, as one
  // argument, without the NULs after it (which ps would print as trailing blanks).
  if (title.size() + 1 < area.arg_end - area.arg_start) at(area.arg_end - 1)[0] = ' ';
}

}  // namespace reapcheck
