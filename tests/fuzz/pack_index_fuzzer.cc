// Fuzzes the reader of a pack's index.json (read_pack_index, loader/dataset/pack_index.h): any
// input must give an index, no index (another tool's file), or a feedrate::Error; nothing else may
// escape, and the shards an index lists must be findable by name.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "feedrate/error.h"
#include "loader/dataset/pack_index.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file =
      feedrate::fuzz::write_input(std::string(feedrate::kPackIndexFile), data, size);
  try {
    const std::optional<feedrate::PackIndex> index = feedrate::read_pack_index(file.parent_path());
    if (index) {
      for (const feedrate::PackIndex::Shard& shard : index->shards) {
        if (index->shard(shard.name) == nullptr) {
          std::fprintf(stderr, "shard %s listed but not found by name\n", shard.name.c_str());
          std::abort();
        }
      }
    }
  } catch (const feedrate::Error&) {
  }
  return 0;
}
