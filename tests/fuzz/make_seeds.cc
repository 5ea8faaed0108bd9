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

#include "bench/datagen/image_formats.h"
#include "bench/datagen/jpeg_corpus.h"
#include "io/tar_writer.h"
#include "loader/loader_state.h"

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
      {"throttle", "--throttle\n100,200,3000\n--memory-budget-mb\n512\n--prefetch\n8"},
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "feedrate-fuzz-seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
