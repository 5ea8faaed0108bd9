// Fuzzes the tar shard indexer and the WebDataset pairing on top of it (Dataset::open on a .tar):
// any input must give an index whose members lie inside the file, or a feedrate::Error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path shard = feedrate::fuzz::write_input("shard.tar", data, size);
  try {
    const feedrate::Dataset dataset = feedrate::Dataset::open(shard);
    for (std::size_t i = 0; i < dataset.size(); ++i) {
      const feedrate::SampleRef& s = dataset.sample(i);
      if (s.offset > size || s.size > size - s.offset || s.label < 0) {
        std::fprintf(stderr, "member %zu outside the file: offset %llu size %llu label %d\n", i,
                     static_cast<unsigned long long>(s.offset),
                     static_cast<unsigned long long>(s.size), s.label);
        std::abort();
      }
    }
  } catch (const feedrate::Error&) {
  }
  return 0;
}
