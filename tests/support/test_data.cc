#include "tests/support/test_data.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "feedrate/error.h"

namespace feedrate::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "feedrate-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code error;
  fs::remove_all(path_, error);
}

void write_file(const fs::path& path, const std::vector<unsigned char>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<unsigned char> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<unsigned char> small_jpeg(std::uint64_t seed, int width, int height,
                                      datagen::ColorKind color) {
  datagen::JpegSpec spec;
  spec.width = width;
  spec.height = height;
  spec.color = color;
  return datagen::make_jpeg(seed, spec);
}

std::vector<fs::path> make_image_folder(const fs::path& root, int count, int classes,
                                        std::uint64_t seed) {
  std::vector<std::vector<fs::path>> by_class(static_cast<std::size_t>(classes));
  for (int i = 0; i < count; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "class_%03d/img_%06d.jpg", i % classes, i);
    const fs::path path = root / name;
    // Vary sizes a little so crops and scales differ between samples.
    write_file(path, small_jpeg(seed * 7919 + static_cast<std::uint64_t>(i), 80 + (i % 5) * 8,
                                64 + (i % 3) * 8));
    by_class[static_cast<std::size_t>(i % classes)].push_back(path);
  }
  std::vector<fs::path> ordered;
  for (const auto& paths : by_class) ordered.insert(ordered.end(), paths.begin(), paths.end());
  return ordered;
}

int run_command(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::pair<std::string, std::vector<unsigned char>>> read_tar(const fs::path& path) {
  const std::vector<unsigned char> tar = read_file(path);
  std::vector<std::pair<std::string, std::vector<unsigned char>>> members;
  EXPECT_EQ(tar.size() % 512, 0u);
  std::size_t pos = 0;
  while (pos + 512 <= tar.size()) {
    const unsigned char* h = &tar[pos];
    if (std::all_of(h, h + 512, [](unsigned char c) { return c == 0; })) break;
    static constexpr unsigned char kMagic[8] = {'u', 's', 't', 'a', 'r', '\0', '0', '0'};
    EXPECT_EQ(std::memcmp(h + 257, kMagic, sizeof(kMagic)), 0) << "magic at " << pos;
    unsigned sum = 0;
    for (int i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : h[i];
    EXPECT_EQ(std::strtoul(reinterpret_cast<const char*>(h + 148), nullptr, 8), sum);
    EXPECT_EQ(h[156], '0');
    const std::size_t size = std::strtoull(reinterpret_cast<const char*>(h + 124), nullptr, 8);
    const std::string name(reinterpret_cast<const char*>(h),
                           strnlen(reinterpret_cast<const char*>(h), 100));
    pos += 512;
    if (pos + size > tar.size()) {
      ADD_FAILURE() << "member " << name << " truncated";
      break;
    }
    members.emplace_back(name,
                         std::vector<unsigned char>(tar.begin() + pos, tar.begin() + pos + size));
    pos += (size + 511) / 512 * 512;
  }
  // The end-of-archive marker: two zero blocks.
  EXPECT_EQ(tar.size(), pos + 1024);
  return members;
}

std::vector<std::string> tar_list(const fs::path& path) {
  const std::string command = "tar -tf '" + path.string() + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::vector<std::string> names;
  if (!pipe) return names;
  char line[4096];
  while (std::fgets(line, sizeof(line), pipe)) {
    std::string name(line);
    if (!name.empty() && name.back() == '\n') name.pop_back();
    names.push_back(name);
  }
  EXPECT_EQ(pclose(pipe), 0) << "tar -tf failed on " << path;
  return names;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace feedrate::testing
