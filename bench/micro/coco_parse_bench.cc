// feedrate-coco-bench: how long read_coco takes on a file the size of COCO's
// instances_train2017.json (448 MB: 118,287 images, 860,001 annotations with polygons). It
// writes a synthetic file of that shape (images of 640 x 480, one to three polygons of 4 to 37
// points per annotation with two-decimal coordinates, as COCO's; 1% crowd annotations with
// uncompressed RLE counts), then parses it --repeats times with segmentations and once without
// (detection only), printing the wall time of each parse (the file is in the page cache after
// it was written: this times the parse, not the disk).
//
// Usage: feedrate-coco-bench [--out FILE] [--images N] [--annotations N] [--repeats N] [--keep]
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "loader/dataset/annotations/coco.h"

namespace {

using namespace feedrate;
using Clock = std::chrono::steady_clock;

// Appends `text` to `file` in large writes.
struct Writer {
  explicit Writer(std::FILE* f) : file(f) {}
  std::FILE* file;
  fmt::memory_buffer buffer;
  void flush() {
    if (std::fwrite(buffer.data(), 1, buffer.size(), file) != buffer.size()) {
      throw std::runtime_error("write failed");
    }
    buffer.clear();
  }
  void maybe_flush() {
    if (buffer.size() > (8u << 20)) flush();
  }
};

void write_coco(const std::filesystem::path& path, int images, int annotations) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw std::runtime_error("cannot create " + path.string());
  Writer w(file);
  std::mt19937_64 rng(2017);
  const auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  const auto below = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  fmt::format_to(
      std::back_inserter(w.buffer),
      R"({{"info":{{"description":"synthetic COCO","year":2017}},"licenses":[],"images":[)");
  for (int i = 0; i < images; ++i) {
    fmt::format_to(
        std::back_inserter(w.buffer),
        R"({}{{"license":1,"file_name":"{:012d}.jpg","coco_url":"http://images.cocodataset.org/train2017/{:012d}.jpg","height":480,"width":640,"date_captured":"2013-11-14 16:28:13","id":{}}})",
        i ? "," : "", i + 1, i + 1, i + 1);
    w.maybe_flush();
  }
  fmt::format_to(std::back_inserter(w.buffer), R"(],"annotations":[)");
  for (int a = 0; a < annotations; ++a) {
    const double x = uniform(0, 500), y = uniform(0, 380);
    const double bw = uniform(1, 640 - x), bh = uniform(1, 480 - y);
    const bool crowd = below(100) == 0;
    fmt::format_to(std::back_inserter(w.buffer), R"({}{{"segmentation":)", a ? "," : "");
    if (crowd) {
      fmt::format_to(std::back_inserter(w.buffer), R"({{"counts":[)");
      int left = 640 * 480;
      for (int run = 0; run < 200 && left > 0; ++run) {
        const int n = std::min(left, 1 + below(3000));
        fmt::format_to(std::back_inserter(w.buffer), "{}{}", run ? "," : "", n);
        left -= n;
      }
      if (left > 0) fmt::format_to(std::back_inserter(w.buffer), ",{}", left);
      fmt::format_to(std::back_inserter(w.buffer), R"(],"size":[480,640]}})");
    } else {
      const int parts = 1 + (below(4) == 0 ? below(3) : 0);
      fmt::format_to(std::back_inserter(w.buffer), "[");
      for (int p = 0; p < parts; ++p) {
        const int points = 4 + below(34);
        fmt::format_to(std::back_inserter(w.buffer), "{}[", p ? "," : "");
        for (int k = 0; k < points; ++k) {
          fmt::format_to(std::back_inserter(w.buffer), "{}{:.2f},{:.2f}", k ? "," : "",
                         uniform(x, x + bw), uniform(y, y + bh));
        }
        fmt::format_to(std::back_inserter(w.buffer), "]");
      }
      fmt::format_to(std::back_inserter(w.buffer), "]");
    }
    fmt::format_to(
        std::back_inserter(w.buffer),
        R"(,"area":{:.4f},"iscrowd":{},"image_id":{},"bbox":[{:.2f},{:.2f},{:.2f},{:.2f}],"category_id":{},"id":{}}})",
        bw * bh * 0.6, crowd ? 1 : 0, 1 + below(images), x, y, bw, bh, 1 + below(90), a + 1);
    w.maybe_flush();
  }
  fmt::format_to(std::back_inserter(w.buffer), R"(],"categories":[)");
  for (int c = 1; c <= 90; ++c) {
    fmt::format_to(std::back_inserter(w.buffer),
                   R"({}{{"supercategory":"thing","id":{},"name":"class{}"}})", c > 1 ? "," : "", c,
                   c);
  }
  fmt::format_to(std::back_inserter(w.buffer), "]}}\n");
  w.flush();
  if (std::fclose(file) != 0) throw std::runtime_error("cannot write " + path.string());
}

double parse_seconds(const std::filesystem::path& path, bool segmentation,
                     annotations::AnnotationTable& table) {
  const auto start = Clock::now();
  table = annotations::read_coco(path, {annotations::LabelMode::kCategoryId, segmentation});
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"read_coco on a synthetic instances_train2017.json-sized file"};
  std::filesystem::path out = std::filesystem::temp_directory_path() / "feedrate-coco-bench.json";
  int images = 118287, annotations = 860001, repeats = 3;
  bool keep = false;
  app.add_option("--out", out, "the JSON file to write (and parse)");
  app.add_option("--images", images, "images")->check(CLI::PositiveNumber);
  app.add_option("--annotations", annotations, "annotations")->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "parses with segmentations")->check(CLI::PositiveNumber);
  app.add_flag("--keep", keep, "keep the file (and reuse it when it exists)");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!(keep && std::filesystem::exists(out))) {
      const auto start = Clock::now();
      write_coco(out, images, annotations);
      fmt::print("wrote {} ({:.0f} MB) in {:.1f} s\n", out.string(),
                 std::filesystem::file_size(out) / 1e6,
                 std::chrono::duration<double>(Clock::now() - start).count());
    }
    const double mb = std::filesystem::file_size(out) / 1e6;
    annotations::AnnotationTable table;
    for (int r = 0; r < repeats; ++r) {
      const double s = parse_seconds(out, true, table);
      fmt::print(
          "parse with segmentation: {:.2f} s ({:.0f} MB/s): {} images, {} annotations, {} "
          "polygons, {} points, {} RLE counts\n",
          s, mb / s, table.images.size(), table.annotation_count(), table.polygons.size(),
          table.points.size() / 2, table.rle_counts.size());
    }
    const double s = parse_seconds(out, false, table);
    fmt::print("parse without segmentation: {:.2f} s ({:.0f} MB/s)\n", s, mb / s);
    if (!keep) std::filesystem::remove(out);
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate-coco-bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
