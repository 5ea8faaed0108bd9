#include "loader/cache/key.h"

#include <sys/stat.h>
#include <xxhash.h>

#include <cstdio>
#include <filesystem>

namespace feedrate {
namespace {

namespace fs = std::filesystem;

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string absolute_text(const std::string& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

}  // namespace

std::string source_key(const Dataset& dataset, std::uint32_t format_version) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  const auto add = [&](const void* data, std::size_t size) {
    XXH3_64bits_update(state, data, size);
  };
  add(&format_version, sizeof(format_version));
  const std::string index = dataset.index_hash();
  add(index.data(), index.size());
  for (const fs::path& file : dataset.files()) {
    const std::string path = absolute_text(file.string());
    add(path.c_str(), path.size() + 1);
    struct stat info {};
    // A file that cannot be stat'ed hashes as all ones: its reads fail as they would uncached.
    std::int64_t fields[3] = {-1, -1, -1};
    if (::stat(file.c_str(), &info) == 0) {
      fields[0] = info.st_size;
      fields[1] = info.st_mtim.tv_sec;
      fields[2] = info.st_mtim.tv_nsec;
    }
    add(fields, sizeof(fields));
  }
  const std::uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return hex(hash);
}

std::string source_name_key(const std::string& source) {
  const std::string path = absolute_text(source);
  return hex(XXH3_64bits(path.data(), path.size()));
}

}  // namespace feedrate
