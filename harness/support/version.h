// reapcheck's version (the CMake project's), for --version and the reports' header.
#pragma once

#include <string_view>

namespace reapcheck {

std::string_view reapcheck_version();

}  // namespace reapcheck
