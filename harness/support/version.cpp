#include "harness/support/version.h"

namespace reapcheck {

std::string_view reapcheck_version() {
  return REAPCHECK_VERSION;
}

}  // namespace reapcheck
