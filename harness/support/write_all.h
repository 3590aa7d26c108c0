// Writing a whole message to a pipe or socket, across short writes and EINTR.
#pragma once

#include <string_view>

namespace reapcheck {

// False when the reader went away (or another error stopped the write) before all was written.
bool write_all(int fd, std::string_view text);

}  // namespace reapcheck
