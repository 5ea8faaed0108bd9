// The generated corpus of good and broken JPEGs (bench/datagen/jpeg_corpus.h) through the
// decoder: every good file decodes, whole and under the train and eval transforms; every broken
// one gives the error class the corpus expects with a message that says what is wrong, never a
// crash (run it under the asan preset to check the "never" part), and the decoder keeps working
// after each of them.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "bench/datagen/jpeg_corpus.h"
#include "decode/image_decoder.h"

namespace feedrate::decode {
namespace {

using datagen::CorpusEntry;
using datagen::Expect;

DecodeErrc expected_code(Expect expect) {
  switch (expect) {
    case Expect::kDecodes:
    case Expect::kNoCrash:
      return DecodeErrc::kOk;
    case Expect::kEmpty:
      return DecodeErrc::kEmpty;
    case Expect::kNotJpeg:
      return DecodeErrc::kNotJpeg;
    case Expect::kCorrupt:
      return DecodeErrc::kCorrupt;
    case Expect::kTruncated:
      return DecodeErrc::kTruncated;
    case Expect::kTooLarge:
      return DecodeErrc::kTooLarge;
    case Expect::kTooManyScans:
      return DecodeErrc::kTooManyScans;
  }
  return DecodeErrc::kOk;
}

TransformSpec train(int size) {
  TransformSpec spec;
  spec.size = size;
  return spec;
}

TransformSpec eval(int size) {
  TransformSpec spec;
  spec.kind = TransformKind::kEval;
  spec.size = size;
  spec.resize = size * 8 / 7;
  return spec;
}

// The outcome of one decode, with what was asked, for messages.
struct Outcome {
  std::string what;
  DecodeStatus status;
};

std::vector<Outcome> decode_every_way(ImageDecoder& decoder, const CorpusEntry& entry) {
  const std::span<const std::uint8_t> jpeg(entry.bytes.data(), entry.bytes.size());
  std::vector<Outcome> outcomes;
  std::vector<std::uint8_t> rgb;
  outcomes.push_back({"decode_full", decoder.decode_full(jpeg, rgb)});
  if (outcomes.back().status.ok()) {
    EXPECT_EQ(rgb.size(),
              static_cast<std::size_t>(decoder.info().width) * decoder.info().height * 3)
        << entry.name;
  }
  for (const TransformSpec& spec : {train(64), train(224), eval(64), eval(224)}) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(spec.size) * spec.size * 3);
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
      outcomes.push_back({std::string(spec.kind == TransformKind::kTrain ? "train " : "eval ") +
                              std::to_string(spec.size) + " seed " + std::to_string(seed),
                          decoder.decode(jpeg, spec, seed, out)});
      if (spec.kind == TransformKind::kEval) break;  // no randomness
    }
  }
  return outcomes;
}

TEST(JpegCorpus, HasEveryKindOfFile) {
  std::map<Expect, int> kinds;
  for (const CorpusEntry& entry : datagen::make_jpeg_corpus()) ++kinds[entry.expect];
  for (const Expect expect :
       {Expect::kDecodes, Expect::kEmpty, Expect::kNotJpeg, Expect::kCorrupt, Expect::kTruncated,
        Expect::kTooLarge, Expect::kTooManyScans, Expect::kNoCrash}) {
    EXPECT_GT(kinds[expect], 0) << "no entry of kind " << static_cast<int>(expect);
  }
  EXPECT_GE(kinds[Expect::kTruncated], 10);
}

TEST(JpegCorpus, IsAPureFunctionOfTheSeed) {
  const std::vector<CorpusEntry> a = datagen::make_jpeg_corpus(7), b = datagen::make_jpeg_corpus(7);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].bytes, b[i].bytes) << a[i].name;
}

TEST(JpegCorpus, GoodFilesDecodeAndBrokenOnesNameTheirProblem) {
  ImageDecoder decoder;
  const std::vector<std::uint8_t> reference = datagen::make_jpeg_corpus().front().bytes;
  for (const CorpusEntry& entry : datagen::make_jpeg_corpus()) {
    SCOPED_TRACE(entry.name + " (" + entry.why + ")");
    const DecodeErrc want = expected_code(entry.expect);
    for (const Outcome& o : decode_every_way(decoder, entry)) {
      if (entry.expect == Expect::kNoCrash) {
        // Repaired with a warning, or refused as corrupt or truncated with a message.
        if (!o.status.ok()) {
          EXPECT_TRUE(o.status.code == DecodeErrc::kCorrupt ||
                      o.status.code == DecodeErrc::kTruncated)
              << o.what << ": " << errc_name(o.status.code) << ": " << o.status.message;
          EXPECT_FALSE(o.status.message.empty()) << o.what;
        }
        continue;
      }
      EXPECT_EQ(o.status.code, want) << o.what << ": got " << errc_name(o.status.code) << " ("
                                     << o.status.message << "), want " << errc_name(want);
      if (want != DecodeErrc::kOk) {
        EXPECT_GE(o.status.message.size(), 10u) << o.what;
      }
    }
    // The same decoder still decodes a good file after each bad one.
    std::vector<std::uint8_t> rgb;
    EXPECT_TRUE(decoder.decode_full({reference.data(), reference.size()}, rgb).ok());
  }
}

TEST(JpegCorpus, MessagesSayWhatIsWrong) {
  ImageDecoder decoder;
  std::map<std::string, std::string> messages;
  std::vector<std::uint8_t> rgb;
  for (const CorpusEntry& entry : datagen::make_jpeg_corpus()) {
    messages[entry.name] =
        decoder.decode_full({entry.bytes.data(), entry.bytes.size()}, rgb).message;
  }
  const auto contains = [&](const std::string& name, const std::string& text) {
    EXPECT_NE(messages[name].find(text), std::string::npos) << name << ": " << messages[name];
  };
  contains("bad_empty.jpg", "0 bytes");
  contains("bad_png_renamed.jpg", "starts with 89 50");
  contains("bad_huge_20000x20000.jpg", "20000x20000");
  contains("bad_huge_65500x65500.jpg", "65500x65500");
  contains("bad_huge_65535x65535.jpg", "Maximum supported image dimension is 65500");
  contains("bad_scan_bomb_600.jpg", "more than 500 progressive scans");
  contains("bad_truncated_baseline_60.jpg", "ends before the image");
  contains("bad_precision_12.jpg", "precision");
  contains("bad_dqt_index.jpg", "DQT");
  contains("bad_dht_counts.jpg", "Huffman");
  contains("bad_sos_component.jpg", "component");
}

}  // namespace
}  // namespace feedrate::decode
