#include "reports/file_output.h"

#include <fstream>
#include <stdexcept>

namespace reapcheck {

void write_text_file(const std::filesystem::path& file, const std::string& text) {
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  auto tmp = file;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error(tmp.string() + ": cannot write");
  }
  std::filesystem::rename(tmp, file);
}

}  // namespace reapcheck
