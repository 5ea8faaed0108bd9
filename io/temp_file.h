// A uniquely named file created empty in a folder (mkstemp) and removed when the TempFile goes
// out of scope: scratch space for probes and benchmarks.
// Thread-safety: none needed; one owner creates, uses and destroys it.
#pragma once

#include <filesystem>
#include <string_view>

namespace feedrate::io {

class TempFile {
 public:
  // Creates `directory`/`stem`-XXXXXX; throws std::system_error naming the folder on failure.
  TempFile(const std::filesystem::path& directory, std::string_view stem);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace feedrate::io
