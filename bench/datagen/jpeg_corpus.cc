// The good and broken JPEG corpus (jpeg_corpus.h). Broken files are made by surgery on good
// ones: the marker segments before the first scan are walked by their lengths, and later scans
// are found by their SOS markers (entropy-coded data never holds 0xFF followed by anything but
// 0x00 or a restart marker).

#include "bench/datagen/jpeg_corpus.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "bench/datagen/datagen.h"
#include "bench/datagen/random.h"

namespace feedrate::datagen {
namespace {

using Bytes = std::vector<unsigned char>;

constexpr unsigned char kSof0 = 0xC0, kSof2 = 0xC2, kDht = 0xC4, kSos = 0xDA, kDqt = 0xDB,
                        kCom = 0xFE;

struct Segment {
  std::size_t at = 0;  // of the 0xFF
  unsigned char marker = 0;
  std::size_t length = 0;  // the length field (which counts itself), 0 for SOI
};

// Segments from SOI up to and including the first SOS.
std::vector<Segment> header_segments(const Bytes& jpeg) {
  std::vector<Segment> segments{{0, 0xD8, 0}};
  std::size_t at = 2;
  while (at + 4 <= jpeg.size() && jpeg[at] == 0xFF) {
    const Segment s{at, jpeg[at + 1], static_cast<std::size_t>(jpeg[at + 2] << 8 | jpeg[at + 3])};
    segments.push_back(s);
    if (s.marker == kSos) break;
    at += 2 + s.length;
  }
  if (segments.back().marker != kSos) throw std::logic_error("jpeg corpus: no SOS marker");
  return segments;
}

const Segment& first(const std::vector<Segment>& segments, unsigned char marker) {
  const auto it = std::find_if(segments.begin(), segments.end(),
                               [&](const Segment& s) { return s.marker == marker; });
  if (it == segments.end()) throw std::logic_error("jpeg corpus: marker not found");
  return *it;
}

// Offsets of every SOS marker, in file order.
std::vector<std::size_t> scans(const Bytes& jpeg) {
  std::vector<std::size_t> found;
  for (std::size_t i = first(header_segments(jpeg), kSos).at; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == kSos) found.push_back(i);
  }
  return found;
}

Bytes prefix(const Bytes& bytes, std::size_t length) {
  return Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
}

// SOF fields: +4 precision, +5 height, +7 width, +9 component count.
Bytes with_size(Bytes jpeg, unsigned width, unsigned height) {
  const std::vector<Segment> segments = header_segments(jpeg);
  const auto sof = std::find_if(segments.begin(), segments.end(), [](const Segment& s) {
    return s.marker == kSof0 || s.marker == kSof2;
  });
  if (sof == segments.end()) throw std::logic_error("jpeg corpus: no SOF0/SOF2 marker");
  jpeg[sof->at + 5] = static_cast<unsigned char>(height >> 8);
  jpeg[sof->at + 6] = static_cast<unsigned char>(height);
  jpeg[sof->at + 7] = static_cast<unsigned char>(width >> 8);
  jpeg[sof->at + 8] = static_cast<unsigned char>(width);
  return jpeg;
}

// Flips one bit in each of `flips` bytes drawn from [begin, end), never turning a byte into
// 0xFF (which would make a marker: a different kind of damage, covered by other entries).
Bytes flip_bits(Bytes jpeg, std::size_t begin, std::size_t end, int flips, Rng& rng) {
  for (int i = 0; i < flips; ++i) {
    const std::size_t at = begin + rng.next() % (end - begin);
    const auto flipped = static_cast<unsigned char>(jpeg[at] ^ (1u << (rng.next() % 8)));
    if (flipped != 0xFF && jpeg[at] != 0xFF) jpeg[at] = flipped;
  }
  return jpeg;
}

// A valid 2x2 RGB PNG, as PIL writes it.
const Bytes kPng = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a,
    0x73, 0x00, 0x00, 0x00, 0x16, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x3c, 0x21, 0xa7, 0xc1,
    0xc0, 0xc0, 0xc0, 0xc4, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x00, 0x00, 0x0d, 0x72, 0x01, 0x12, 0x39,
    0x72, 0x85, 0xf2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

JpegSpec spec(int width, int height, ColorKind color, Subsampling subsampling,
              bool progressive = false, int restart_rows = 0) {
  JpegSpec s;
  s.width = width;
  s.height = height;
  s.quality = 85;
  s.color = color;
  s.subsampling = subsampling;
  s.progressive = progressive;
  s.restart_interval_rows = restart_rows;
  return s;
}

}  // namespace

std::vector<CorpusEntry> make_jpeg_corpus(std::uint64_t seed) {
  std::vector<CorpusEntry> corpus;
  const auto add = [&](std::string name, Bytes bytes, Expect expect, std::string why) {
    corpus.push_back({std::move(name), std::move(bytes), expect, std::move(why)});
  };
  const auto good = [&](const char* name, const JpegSpec& s, const char* why) {
    Bytes jpeg = make_jpeg(seed + corpus.size(), s);
    add(std::string("good_") + name + ".jpg", jpeg, Expect::kDecodes, why);
    return jpeg;
  };
  constexpr int kW = 160, kH = 120;
  const Bytes b444 =
      good("baseline_444", spec(kW, kH, ColorKind::kRgb, Subsampling::k444), "baseline 4:4:4");
  good("baseline_422", spec(kW, kH, ColorKind::kRgb, Subsampling::k422), "baseline 4:2:2");
  const Bytes b420 =
      good("baseline_420", spec(kW, kH, ColorKind::kRgb, Subsampling::k420), "baseline 4:2:0");
  good("gray", spec(kW, kH, ColorKind::kGray, Subsampling::k444), "grayscale");
  good("cmyk", spec(kW, kH, ColorKind::kCmyk, Subsampling::k420), "Adobe CMYK stored as YCCK");
  const Bytes progressive = good(
      "progressive_420", spec(kW, kH, ColorKind::kRgb, Subsampling::k420, true), "progressive");
  good("progressive_gray", spec(kW, kH, ColorKind::kGray, Subsampling::k444, true),
       "progressive grayscale");
  const Bytes restart =
      good("restart_420", spec(kW, kH, ColorKind::kRgb, Subsampling::k420, false, 1),
           "restart marker after every MCU row");
  good("restart_progressive", spec(kW, kH, ColorKind::kRgb, Subsampling::k444, true, 2),
       "progressive with restart markers");
  good("odd_size_33x17", spec(33, 17, ColorKind::kRgb, Subsampling::k420),
       "sides that are no multiple of the MCU");
  good("one_pixel", spec(1, 1, ColorKind::kRgb, Subsampling::k420), "a 1x1 image");

  Bytes padded = b420;
  for (int i = 0; i < 256; ++i) padded.push_back(static_cast<unsigned char>(i * 37));
  add("good_trailing_garbage.jpg", padded, Expect::kDecodes, "bytes after the EOI marker");
  // Thousands of comment segments cost parsing time, not memory: still a valid image.
  Bytes comments = prefix(b420, 2);
  for (int i = 0; i < 4000; ++i) {
    comments.insert(comments.end(), {0xFF, kCom, 0x00, 0x06, 'f', 'e', 'e', 'd'});
  }
  comments.insert(comments.end(), b420.begin() + 2, b420.end());
  add("good_comment_flood.jpg", comments, Expect::kDecodes, "4000 comment segments");

  add("bad_empty.jpg", {}, Expect::kEmpty, "zero bytes");
  add("bad_png_renamed.jpg", kPng, Expect::kNotJpeg, "a PNG file named .jpg");
  const std::string text = "this is not an image\n";
  add("bad_text.jpg", Bytes(text.begin(), text.end()), Expect::kNotJpeg, "a text file");
  add("bad_soi_only.jpg", prefix(b420, 2), Expect::kTruncated, "nothing after the SOI marker");

  // Truncation at several points, in baseline, progressive and restart-marker files.
  const std::vector<Segment> head = header_segments(b420);
  const std::size_t sos = first(head, kSos).at;
  add("bad_truncated_in_dqt.jpg", prefix(b420, first(head, kDqt).at + 10), Expect::kTruncated,
      "cut inside the quantisation table");
  add("bad_truncated_before_scan.jpg", prefix(b420, sos), Expect::kTruncated,
      "cut just before the SOS marker");
  add("bad_truncated_in_sos.jpg", prefix(b420, sos + 6), Expect::kTruncated,
      "cut inside the SOS header");
  const struct {
    const char* name;
    const Bytes* jpeg;
  } whole[] = {{"baseline", &b420}, {"progressive", &progressive}, {"restart", &restart}};
  for (const auto& w : whole) {
    for (const int percent : {25, 60, 95}) {
      add(std::string("bad_truncated_") + w.name + "_" + std::to_string(percent) + ".jpg",
          prefix(*w.jpeg, w.jpeg->size() * static_cast<std::size_t>(percent) / 100),
          Expect::kTruncated, std::string(w.name) + " cut at " + std::to_string(percent) + "%");
    }
    add(std::string("bad_no_eoi_") + w.name + ".jpg", prefix(*w.jpeg, w.jpeg->size() - 2),
        Expect::kTruncated, std::string(w.name) + " without its EOI marker");
  }

  // Header fields that libjpeg rejects as fatal.
  const Segment& sof = first(head, kSof0);
  Bytes precision = b420;
  precision[sof.at + 4] = 12;
  add("bad_precision_12.jpg", precision, Expect::kCorrupt, "12-bit samples");
  add("bad_zero_width.jpg", with_size(b420, 0, kH), Expect::kCorrupt, "declared width 0");
  Bytes components = b420;
  components[sof.at + 9] = 0;
  add("bad_zero_components.jpg", components, Expect::kCorrupt, "SOF with no components");
  Bytes dqt = b420;
  dqt[first(head, kDqt).at + 4] = 0x07;  // precision 0, table 7 (at most 3)
  add("bad_dqt_index.jpg", dqt, Expect::kCorrupt, "quantisation table number 7");
  Bytes dht = b420;
  std::fill_n(dht.begin() + static_cast<std::ptrdiff_t>(first(head, kDht).at + 5), 16, 0xF0);
  add("bad_dht_counts.jpg", dht, Expect::kCorrupt, "Huffman code counts over 256");
  Bytes component_id = b420;
  component_id[sos + 5] = 0x77;
  add("bad_sos_component.jpg", component_id, Expect::kCorrupt, "SOS names no such component");

  // Declared sizes: above the pixel limit, at libjpeg's and the format's maximum, and a small
  // progressive file that declares 16 MP (allowed: memory is bounded by the pixel limit).
  add("bad_huge_20000x20000.jpg", with_size(b420, 20000, 20000), Expect::kTooLarge,
      "declares 400 MP in a few KB");
  add("bad_huge_65500x65500.jpg", with_size(b444, 65500, 65500), Expect::kTooLarge,
      "declares the largest size libjpeg accepts");
  add("bad_huge_65535x65535.jpg", with_size(b444, 65535, 65535), Expect::kCorrupt,
      "declares the largest size the format holds, above libjpeg's 65500");
  // libjpeg fills the coefficients the scans lack with a warning (the data are not cut short,
  // they stop at the next marker), so this decodes unless warnings are refused.
  add("bad_large_progressive_4096x4096.jpg", with_size(progressive, 4096, 4096), Expect::kNoCrash,
      "progressive file of a few KB that declares 16 MP");

  // A scan bomb: the last progressive scan repeated until there are 600 scans.
  const std::vector<std::size_t> progressive_scans = scans(progressive);
  const std::size_t last = progressive_scans.back();
  const std::size_t eoi = progressive.size() - 2;
  Bytes bomb = prefix(progressive, eoi);
  for (std::size_t n = progressive_scans.size(); n < 600; ++n) {
    bomb.insert(bomb.end(), progressive.begin() + static_cast<std::ptrdiff_t>(last),
                progressive.begin() + static_cast<std::ptrdiff_t>(eoi));
  }
  bomb.insert(bomb.end(), {0xFF, 0xD9});
  add("bad_scan_bomb_600.jpg", bomb, Expect::kTooManyScans, "progressive file with 600 scans");

  // Bit flips: libjpeg repairs some damage with a warning, so these must only never crash.
  Rng rng(derive_seed(seed, 0x636f72707573));
  for (int i = 0; i < 4; ++i) {
    add("bad_bitflip_header_" + std::to_string(i) + ".jpg", flip_bits(b420, 2, sos, 2, rng),
        Expect::kNoCrash, "bits flipped in the marker segments");
    add("bad_bitflip_entropy_" + std::to_string(i) + ".jpg",
        flip_bits(b420, sos + 2 + first(head, kSos).length, b420.size() - 2, 8, rng),
        Expect::kNoCrash, "bits flipped in the entropy-coded data");
    const std::size_t scan = scans(progressive)[1];
    add("bad_bitflip_progressive_" + std::to_string(i) + ".jpg",
        flip_bits(progressive, scan, progressive.size() - 2, 8, rng), Expect::kNoCrash,
        "bits flipped in later progressive scans");
  }
  // Restart markers out of sequence: libjpeg resynchronises with a warning.
  Bytes rst = restart;
  for (std::size_t i = first(header_segments(rst), kSos).at; i + 1 < rst.size(); ++i) {
    if (rst[i] == 0xFF && rst[i + 1] >= 0xD0 && rst[i + 1] <= 0xD7) rst[i + 1] = 0xD5;
  }
  add("bad_restart_sequence.jpg", rst, Expect::kNoCrash, "every restart marker is RST5");
  return corpus;
}

void write_jpeg_corpus(const std::vector<CorpusEntry>& corpus, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const CorpusEntry& entry : corpus) {
    std::ofstream out(dir / entry.name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(entry.bytes.data()),
              static_cast<std::streamsize>(entry.bytes.size()));
    if (!out) throw std::runtime_error((dir / entry.name).string() + ": write failed");
  }
}

}  // namespace feedrate::datagen
