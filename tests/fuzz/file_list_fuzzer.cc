// Fuzzes the file-list parser (Dataset::open on a text list) in a folder that holds a few real
// files, with and without allow_paths_outside_root: any input must give an index of files that
// exist, none outside the list's folder unless allowed, or a feedrate::Error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace fs = std::filesystem;

const fs::path& list_root() {
  static const fs::path root = [] {
    const fs::path dir = feedrate::fuzz::scratch_dir() / "root";
    fs::create_directories(dir / "sub");
    for (const char* name : {"a.jpg", "sub/b.jpg", "c d.jpg"}) {
      const std::uint8_t byte = 0xFF;
      feedrate::fuzz::write_input(("root/" + std::string(name)).c_str(), &byte, 1);
    }
    return dir;
  }();
  return root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path root = list_root();
  const fs::path list = feedrate::fuzz::write_input("root/list.txt", data, size);
  for (const bool allow_outside : {false, true}) {
    try {
      const feedrate::Dataset dataset = feedrate::Dataset::open(list, allow_outside);
      for (const fs::path& file : dataset.files()) {
        const fs::path relative = file.lexically_relative(root);
        const bool inside = !relative.empty() && *relative.begin() != "..";
        if (!allow_outside && !inside) {
          std::fprintf(stderr, "%s is outside %s\n", file.c_str(), root.c_str());
          std::abort();
        }
      }
    } catch (const feedrate::Error&) {
    }
  }
  return 0;
}
