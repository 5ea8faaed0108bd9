#include "io/temp_file.h"

#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace feedrate::io {

TempFile::TempFile(const std::filesystem::path& directory, std::string_view stem) {
  std::string name = (directory / (std::string(stem) + "-XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "creating a temporary file in " + directory.string());
  }
  ::close(fd);
  path_ = name;
}

TempFile::~TempFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace feedrate::io
