// A generated corpus of good and broken JPEGs, shared by the decode tests and the fuzz targets'
// seeds: every kind of file a loader must decode (baseline 4:4:4 / 4:2:2 / 4:2:0, grayscale,
// CMYK, progressive, restart markers, odd sizes) and every kind it must refuse with a clear error
// (zero bytes, a PNG renamed .jpg, truncation at several points, bit flips in the headers and in
// the entropy data, huge declared dimensions, a progressive scan bomb, a small file that declares
// a large progressive image). A pure function of its seed.
// Thread-safety: reentrant; may be called concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace feedrate::datagen {

// What a decoder must make of an entry. The broken kinds mirror the decoder's error classes
// (decode::DecodeErrc) without depending on decode/.
enum class Expect {
  kDecodes,
  kEmpty,
  kNotJpeg,
  kCorrupt,
  kTruncated,
  kTooLarge,      // declared size above the decoder's pixel limit (100 MP by default)
  kTooManyScans,  // more progressive scans than the decoder's cap (500 by default)
  kNoCrash,       // damage libjpeg may repair with a warning: decodes, or fails with a message
};

struct CorpusEntry {
  std::string name;  // a file name: "good_*.jpg" or "bad_*.jpg"
  std::vector<unsigned char> bytes;
  Expect expect = Expect::kDecodes;
  std::string why;  // what the file is, for messages
};

// The corpus: small images (at most 160x120 pixels of data) so that fuzzers run fast on them.
std::vector<CorpusEntry> make_jpeg_corpus(std::uint64_t seed = 0);

// Writes every entry as dir/<name>; creates dir. Throws std::runtime_error on an I/O error.
void write_jpeg_corpus(const std::vector<CorpusEntry>& corpus, const std::filesystem::path& dir);

}  // namespace feedrate::datagen
