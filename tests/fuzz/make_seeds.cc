// feedrate-fuzz-seeds DIR: writes the seed corpora of the fuzz targets, one folder each:
//   DIR/jpeg_decode  the generated good and broken JPEGs (bench/datagen/jpeg_corpus.h)
//   DIR/image_decode one small image of every kind of a mixed dataset (PNG variants, WebP, TIFF,
//                    BMP, PNM, JPEG) and a few JPEGs of the corpus
//   DIR/tar_index    small WebDataset shards: valid ones (ustar, pax path and size records, GNU
//                    long names, directories, a pax global header) and broken ones (links, a
//                    device, unsafe names, truncation, a base-256 size, a huge label)
//   DIR/file_list    file lists of the names the file-list fuzzer's folder holds, and bad lines
//   DIR/bench_args   argument lists of `feedrate bench`, one argument per line
//   DIR/loader_state loader states as Loader::state() writes them (fresh, mid-epoch, elastic)
//   DIR/png_decode, webp_decode, tiff_decode, bmp_pnm_decode  each format's variants: PNG of
//                    every colour type, interlaced; WebP lossy, lossless, alpha; TIFF in strips
//                    and tiles, planar, 16-bit gray, associated alpha, every orientation; BMP
//                    24/32-bit, palettes, RLE8, RLE4, 16-bit; PNM plain and binary, maxval 65535
//   DIR/pack_index   a pack's index.json as the packer writes it, and broken ones
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/datagen/datagen.h"
#include "bench/datagen/image_formats.h"
#include "bench/datagen/jpeg_corpus.h"
#include "feedrate/loader_state.h"
#include "io/tar_writer.h"
#include "loader/dataset/pack_index.h"
#include "tests/support/image_bytes.h"

namespace {

namespace fs = std::filesystem;
using feedrate::io::kTarBlockSize;
using feedrate::io::TarWriter;
using feedrate::io::ustar_header;
using Bytes = std::vector<unsigned char>;
using Header = std::array<unsigned char, kTarBlockSize>;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

void set_checksum(Header& h) {
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char byte : h) sum += byte;
  std::snprintf(reinterpret_cast<char*>(&h[148]), 8, "%06o", sum);
  h[155] = ' ';
}

void padded(TarWriter& writer, const Bytes& data) {
  writer.write_raw(data);
  writer.write_raw(Bytes((kTarBlockSize - data.size() % kTarBlockSize) % kTarBlockSize, 0));
}

// "<len> key=value\n", where len counts the whole record, its own digits included.
std::string pax_record(const std::string& key, const std::string& value) {
  const std::size_t body = key.size() + value.size() + 3;  // space, '=', newline
  std::size_t length = body + 1;
  while (std::to_string(length).size() + body != length) ++length;
  return std::to_string(length) + " " + key + "=" + value + "\n";
}

Bytes bytes_of(const std::string& text) {
  return Bytes(text.begin(), text.end());
}

void tar_seeds(const fs::path& dir, const Bytes& jpeg) {
  fs::create_directories(dir);
  const Bytes label = bytes_of("3\n");
  {
    TarWriter w(dir / "good.tar");
    w.add("a.jpg", jpeg);
    w.add("a.cls", label);
    w.add("sub/b.jpeg", jpeg);
    w.add("sub/b.cls", bytes_of("0"));
    w.finish();
  }
  {
    TarWriter w(dir / "pax.tar");
    const std::string records = pax_record("path", std::string(120, 'p') + "/long.jpg") +
                                pax_record("size", std::to_string(jpeg.size()));
    w.write_raw(ustar_header("PaxHeaders/long.jpg", records.size(), 'x'));
    padded(w, bytes_of(records));
    w.add("short.jpg", jpeg);
    const std::string label_records = pax_record("path", std::string(120, 'p') + "/long.cls");
    w.write_raw(ustar_header("PaxHeaders/long.cls", label_records.size(), 'x'));
    padded(w, bytes_of(label_records));
    w.add("short.cls", label);
    w.finish();
  }
  {
    TarWriter w(dir / "gnu_long_name.tar");
    const std::string name = std::string(130, 'g') + "/img.jpg";
    Bytes data = bytes_of(name);
    data.push_back('\0');
    w.write_raw(ustar_header("././@LongLink", data.size(), 'L'));
    padded(w, data);
    w.add("img.jpg", jpeg);
    w.add(std::string(30, 'g') + ".cls", label);
    w.finish();
  }
  {
    TarWriter w(dir / "directories_and_global.tar");
    const std::string global = pax_record("comment", "generated");
    w.write_raw(ustar_header("pax_global_header", global.size(), 'g'));
    padded(w, bytes_of(global));
    w.write_raw(ustar_header("dir/", 0, '5'));
    w.add("dir/x.jpg", jpeg);
    w.add("dir/x.cls", label);
    w.finish();
  }
  for (const auto& [name, type] : std::vector<std::pair<std::string, char>>{
           {"symlink", '2'}, {"hardlink", '1'}, {"char_device", '3'}, {"fifo", '6'}}) {
    TarWriter w(dir / (name + ".tar"));
    w.add("a.jpg", jpeg);
    w.write_raw(ustar_header("a.cls", 0, type));
    w.finish();
  }
  for (const auto& [file, member] : std::vector<std::pair<std::string, std::string>>{
           {"dotdot", "../evil.jpg"}, {"absolute", "/etc/evil.jpg"}}) {
    TarWriter w(dir / (file + ".tar"));
    w.add(member, jpeg);
    w.finish();
  }
  {
    TarWriter w(dir / "truncated.tar");
    w.write_raw(ustar_header("a.jpg", jpeg.size()));
    w.write_raw(Bytes(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() / 2)));
  }
  {
    TarWriter w(dir / "base256_size.tar");
    Header h = ustar_header("a.jpg", 0);
    std::memset(&h[124], 0, 12);
    h[124] = 0x80;
    h[133] = 0x01;  // 2^16 bytes, more than the file has
    set_checksum(h);
    w.write_raw(h);
    w.finish();
  }
  {
    TarWriter w(dir / "huge_label.tar");
    w.add("a.jpg", jpeg);
    w.add("a.cls", bytes_of("2147483647"));
    w.finish();
  }
}

void file_list_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  write_text(dir / "good.txt", "a.jpg 0\nsub/b.jpg 1\n# a comment\n\nc d.jpg 2\n");
  write_text(dir / "crlf.txt", "a.jpg 0\r\n  sub/b.jpg\t1\r\n");
  write_text(dir / "outside.txt", "../a.jpg 0\n/etc/hostname 1\nsub/../../x 2\n");
  write_text(dir / "bad_label.txt", "a.jpg -1\nsub/b.jpg x\na.jpg 99999999999\n");
  write_text(dir / "missing.txt", "nothing.jpg 0\n");
  write_text(dir / "large_label.txt", "a.jpg 2147483647\n");
}

void bench_args_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"minimal", "/data/train"},
      {"typical", "/data/train\n--workers\n8\n--batch\n256\n--epochs\n2\n--json"},
      {"eval", "shards/*.tar\n-t\neval\n--size\n384\n--layout\nfloat32\n--no-shuffle"},
      {"io", "--pread\n--direct\n--cold\n--queue-depth\n128\n--throttle\nhdd\n--tar-chunk-kb\n0"},
      {"throttle", "--throttle\n100,200,3000\n--memory-budget-mb\n512\n--prefetch-batches\n8"},
      {"step", "--step-ms\n120\n--on-bad\nskip\n--seed\n42\n--batches\n10\n--trace\nt.json"},
      {"device", "--device\ncuda:1\n--layout\nfloat16\n--consume-rate\n2500"},
      {"conflict", "--epochs\n2\n--batches\n3\n--step-ms\n1\n--consume-rate\n5"},
      {"bad", "--workers\n-1\n--size\n0\n--throttle\nfloppy\n--device\ntpu"},
  };
  for (const auto& [name, text] : seeds) write_text(dir / (name + ".txt"), text);
}

void loader_state_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  feedrate::LoaderState state;
  state.samples = 1000;
  state.index_hash = "00112233445566ff";
  state.batch_size = 64;
  write_text(dir / "fresh.json", state.to_json());
  state.epoch = 3;
  state.batches_received = 7;
  write_text(dir / "mid_epoch.json", state.to_json());
  state.rank = 2;
  state.world_size = 3;
  state.dealt_from_sample = 512;
  state.dealt_from_batch = 4;
  state.batches_received = 6;
  write_text(dir / "elastic.json", state.to_json());
}

}  // namespace

// Every kind of mixed_kind() at a small odd size, plus the JPEG corpus's first entries.
void image_seeds(const fs::path& dir, const std::vector<feedrate::datagen::CorpusEntry>& corpus) {
  fs::create_directories(dir);
  for (int kind = 0; kind < feedrate::datagen::kMixedKinds; ++kind) {
    const Bytes bytes =
        feedrate::datagen::encode_mixed(static_cast<std::uint64_t>(kind), kind, 37, 23, 80);
    std::ofstream(dir / ("kind_" + std::to_string(kind)), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  for (std::size_t i = 0; i < std::min<std::size_t>(corpus.size(), 8); ++i) {
    std::ofstream(dir / corpus[i].name, std::ios::binary)
        .write(reinterpret_cast<const char*>(corpus[i].bytes.data()),
               static_cast<std::streamsize>(corpus[i].bytes.size()));
  }
}

void write_bytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

void format_seeds(const fs::path& dir) {
  namespace dg = feedrate::datagen;
  namespace ti = feedrate::test_images;
  constexpr int kW = 19, kH = 13;
  const std::vector<unsigned char> rgb = dg::make_rgb_pixels(5, kW, kH);
  for (const char* sub : {"png_decode", "webp_decode", "tiff_decode", "bmp_pnm_decode"}) {
    fs::create_directories(dir / sub);
  }
  const dg::PngKind kinds[] = {dg::PngKind::kRgb,       dg::PngKind::kRgba,    dg::PngKind::kGray,
                               dg::PngKind::kGrayAlpha, dg::PngKind::kPalette, dg::PngKind::kRgb16,
                               dg::PngKind::kGray16};
  for (int k = 0; k < 7; ++k) {
    for (const bool interlaced : {false, true}) {
      write_bytes(dir / "png_decode" / ("kind" + std::to_string(k) + (interlaced ? "_adam7" : "")),
                  dg::encode_png(rgb, kW, kH, {kinds[k], interlaced}));
    }
  }
  write_bytes(dir / "webp_decode" / "lossy", dg::encode_webp(rgb, kW, kH, false, false));
  write_bytes(dir / "webp_decode" / "lossy_alpha", dg::encode_webp(rgb, kW, kH, false, true));
  write_bytes(dir / "webp_decode" / "lossless_alpha", dg::encode_webp(rgb, kW, kH, true, true));
  write_bytes(dir / "tiff_decode" / "baseline", dg::encode_tiff(rgb, kW, kH));
  for (int variant = 0; variant < 8; ++variant) {
    ti::TiffSpec spec;
    spec.width = kW;
    spec.height = kH;
    spec.orientation = static_cast<std::uint16_t>(1 + variant);
    spec.tile = variant % 2 ? 16 : 0;
    spec.planar = variant % 4 >= 2 ? 2 : 1;
    if (variant == 5) {  // 16-bit gray
      spec.samples = 1;
      spec.photometric = 1;
      spec.bits = 16;
    } else if (variant == 6) {  // associated alpha
      spec.samples = 4;
      spec.extra = 1;
    }
    std::vector<std::uint16_t> samples(static_cast<std::size_t>(kW) * kH * spec.samples);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      samples[i] = static_cast<std::uint16_t>(i * 2654435761u >> (spec.bits == 16 ? 16 : 24));
    }
    write_bytes(dir / "tiff_decode" / ("variant" + std::to_string(variant)),
                ti::make_tiff(spec, samples));
  }
  const fs::path bp = dir / "bmp_pnm_decode";
  write_bytes(bp / "bgr24", dg::encode_bmp(rgb, kW, kH, 24, false));
  write_bytes(bp / "bgrx32_top_down", dg::encode_bmp(rgb, kW, kH, 32, true));
  write_bytes(bp / "ppm", dg::encode_pnm(rgb, kW, kH, false));
  write_bytes(bp / "pgm", dg::encode_pnm(rgb, kW, kH, true));
  write_bytes(bp / "rle8",
              ti::make_bmp(4, 2, 8, 1, {3, 5, 1, 9, 0, 0, 0, 3, 7, 8, 9, 0, 0, 1}, 16));
  write_bytes(
      bp / "rle4",
      ti::make_bmp(5, 3, 4, 2, {5, 0x12, 0, 0, 0, 4, 0x56, 0x78, 0, 2, 0, 0, 1, 1, 0, 1}, 16));
  write_bytes(bp / "palette4",
              ti::make_bmp(5, 2, 4, 0, {0x01, 0x23, 0x40, 0, 0x56, 0x78, 0x90, 0}, 16));
  write_bytes(bp / "rgb555",
              ti::make_bmp(2, 2, 16, 0, {0xFF, 0x7F, 0x21, 0x04, 0x00, 0x7C, 0x1F, 0x00}, 0));
  write_text(bp / "p1", "P1\n# bitmap\n4 2\n0101\n1 0 1 0\n");
  write_text(bp / "p2", "P2 3 2 1000\n0 500 1000\n1 2 3\n");
  write_text(bp / "p3", "P3 2 1 15\n0 7 15 15 7 0\n");
  write_text(bp / "p4", std::string("P4\n9 2\n") + "\xA5\x80\x5A\x00");
  write_text(bp / "p5_65535", std::string("P5\n2 1\n65535\n") + std::string("\x01\x00\x00\xFF", 4));
}

void pack_index_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  feedrate::PackIndex index;
  index.source = "/data/imagenet/train";
  index.source_samples = index.samples = 3;
  index.options = {0, 90, 4, 256};
  index.shards = {{"shard-000000.tar", 0, 2, 20480, {}, {}},
                  {"shard-000001.tar", 2, 1, 10240, {}, {}}};
  index.counts = {3, 0, 0, 0};
  index.skipped = {{7, "a/bad.jpg", "truncated image"}};
  index.resized = {{1, 4000, 3000}};
  const fs::path scratch = dir / "scratch";
  fs::create_directories(scratch);
  feedrate::write_pack_index(scratch, index);
  fs::rename(scratch / std::string(feedrate::kPackIndexFile), dir / "index.json");
  fs::remove_all(scratch);
  write_text(dir / "other_tool.json", "{\"name\": \"not a pack\"}");
  write_text(dir / "newer.json", "{\"format\": \"feedrate-pack\", \"version\": 99}");
  write_text(dir / "not_json.json", "{\"format\": \"feedrate-pack\", \"shards\": [");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    const std::vector<feedrate::datagen::CorpusEntry> corpus =
        feedrate::datagen::make_jpeg_corpus();
    feedrate::datagen::write_jpeg_corpus(corpus, dir / "jpeg_decode");
    const auto small = std::find_if(corpus.begin(), corpus.end(), [](const auto& entry) {
      return entry.name == "good_odd_size_33x17.jpg";
    });
    tar_seeds(dir / "tar_index", small->bytes);
    image_seeds(dir / "image_decode", corpus);
    file_list_seeds(dir / "file_list");
    bench_args_seeds(dir / "bench_args");
    loader_state_seeds(dir / "loader_state");
    format_seeds(dir);
    pack_index_seeds(dir / "pack_index");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "feedrate-fuzz-seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
