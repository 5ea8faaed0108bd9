// feedrate-decode-bench: decode/ alone, one thread, against libjpeg-turbo's own benchmark and
// against the naive train path, side by side in one run, on the same images:
//   1. Full decode: ImageDecoder::decode_full (whole image to packed RGB, accurate integer
//      IDCT, fancy upsampling) against `tjbench FILE -rgb -accuratedct -nowrite` (TurboJPEG's
//      tjDecompress2 of the same file to RGB, with the same IDCT and upsampling, nothing
//      written). Each image is timed alone, in memory, for --seconds after --warmup, by both;
//      images/s over the set is the harmonic mean (the images, each decoded once). Target >= 0.95.
//   2. Train path: ImageDecoder::decode with RandomResizedCrop(224) + RandomHorizontalFlip (ROI
//      decode, DCT scaling, resample, flip) against the naive path on the same crops: decode_full,
//      then the same resampler over the crop box. The two take turns crop by crop, each timed
//      on its own. Target >= 1.25.
//   2b. Packed train path: the same decode() on `feedrate pack`'s lossless form of each image
//      (restart intervals and their index, decode/restart_index.h) against the original files,
//      same crops, taking turns; with the share of entropy-coded bytes the crops skip. No target
//      of its own (the pack targets are end to end, README "Packed shards").
//   3. End to end: `feedrate bench DIR --transform train --workers C --json` (C = the CPUs
//      available) against the full-decode ceiling, tjbench's images/s per core times C,
//      measured as C tjbench processes running at once on each image (so that the ceiling
//      sees the same machine as the run). Target >= 0.85.
//   4. DCT scale costs: whole-image decodes through libjpeg at every scaling factor M/8, against
//      8/8, on the same images. The decoder takes the smallest of decode::kDctScaleDenominators
//      that keeps enough pixels; the bench says whether that is still the cheapest such factor.
// Every measurement runs --repeats times; contenders take turns, in reverse order on every
// other repeat, and medians are compared.
//
// Usage: feedrate-decode-bench [--dir DATASET] [--images N] [--seconds S] [--warmup S]
//                              [--repeats N] [--tjbench PATH] [--feedrate PATH] [--workers C]
//                              [--restart-mcus K] [--no-end-to-end] [--json]
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <fmt/core.h>
#include <jpeglib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/cli/default_dataset.h"
#include "decode/image_decoder.h"
#include "decode/jpeg_pack.h"
#include "decode/random.h"
#include "decode/resize.h"
#include "decode/transform.h"
#include "feedrate/system_info.h"

namespace {

namespace fs = std::filesystem;
namespace decode = feedrate::decode;
using Clock = std::chrono::steady_clock;

constexpr double kFullTarget = 0.95, kTrainTarget = 1.25, kEndToEndTarget = 0.85;
// The tjbench options that make its decompression the same work as decode_full.
constexpr const char* kTjbenchOptions = "-rgb -accuratedct -nowrite";

struct Args {
  std::string dir;
  int images = 8;
  double seconds = 0.5;
  double warmup = 0.2;
  int repeats = 3;
  std::string tjbench = "tjbench";
  std::string feedrate;
  int workers = 0;
  int end_to_end_epochs = 2;
  int restart_mcus = decode::kTargetMcusPerInterval;  // K of the packed forms
  bool no_end_to_end = false;
  bool json = false;
};

struct Image {
  fs::path path;
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> packed;  // `feedrate pack`'s lossless form (decode/jpeg_pack.h)
  int width = 0, height = 0;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// A shell command running with its stdout and stderr piped to us; finish() waits for it and
// returns the output, throwing when it failed. Several may run at once.
class Command {
 public:
  explicit Command(std::string command)
      : command_(std::move(command)), pipe_(::popen((command_ + " 2>&1").c_str(), "r")) {
    if (pipe_ == nullptr) throw std::runtime_error("cannot run: " + command_);
  }
  ~Command() {
    if (pipe_ != nullptr) ::pclose(pipe_);
  }
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  std::string finish() {
    std::string output;
    std::array<char, 4096> chunk;
    while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe_)) {
      output.append(chunk.data(), n);
    }
    const int status = ::pclose(std::exchange(pipe_, nullptr));
    if (status != 0) {
      throw std::runtime_error(
          fmt::format("'{}' failed (status {}): {}", command_, status, output));
    }
    return output;
  }

 private:
  std::string command_;
  FILE* pipe_;
};

std::string run_command(const std::string& command) {
  return Command(command).finish();
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

// Evenly spaced JPEGs of the dataset (sorted by path), read into memory.
std::vector<Image> load_images(const fs::path& dir, int count, int restart_mcus) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".JPEG")) {
      paths.push_back(entry.path());
    }
  }
  if (paths.empty()) throw std::runtime_error("no .jpg files under " + dir.string());
  std::sort(paths.begin(), paths.end());
  const std::size_t n = std::min<std::size_t>(paths.size(), static_cast<std::size_t>(count));
  std::vector<Image> images(n);
  decode::ImageDecoder decoder;
  decode::JpegPacker packer({}, restart_mcus);
  std::vector<std::uint8_t> rgb;
  for (std::size_t i = 0; i < n; ++i) {
    Image& image = images[i];
    image.path = paths[i * paths.size() / n];
    std::ifstream in(image.path, std::ios::binary);
    image.bytes.assign(std::istreambuf_iterator<char>(in), {});
    const decode::DecodeStatus status = decoder.decode_full(image.bytes, rgb);
    if (!status.ok()) throw std::runtime_error(image.path.string() + ": " + status.message);
    image.width = decoder.info().width;
    image.height = decoder.info().height;
    if (const decode::DecodeStatus packed = packer.pack(image.bytes, image.packed); !packed.ok()) {
      throw std::runtime_error(image.path.string() + ": cannot pack: " + packed.message);
    }
  }
  return images;
}

// Calls `step` for `warmup` seconds, then for at least `seconds`; returns calls per second.
double rate(double warmup, double seconds, const std::function<void()>& step) {
  for (const Clock::time_point start = Clock::now(); seconds_since(start) < warmup;) step();
  std::uint64_t calls = 0;
  const Clock::time_point start = Clock::now();
  double elapsed = 0;
  do {
    step();
    ++calls;
    elapsed = seconds_since(start);
  } while (elapsed < seconds);
  return static_cast<double>(calls) / elapsed;
}

// tjbench's decompression frame rate for one file ("Frame rate: N fps"), summed over
// `copies` tjbench processes running at once.
double tjbench_rate(const std::string& tjbench, const Image& image, const Args& args,
                    int copies = 1) {
  std::vector<std::unique_ptr<Command>> running;
  for (int i = 0; i < copies; ++i) {
    running.push_back(std::make_unique<Command>(
        fmt::format("{} {} {} -benchtime {} -warmup {}", quote(tjbench), quote(image.path.string()),
                    kTjbenchOptions, args.seconds, args.warmup)));
  }
  double total = 0;
  for (const std::unique_ptr<Command>& command : running) {
    const std::string output = command->finish();
    const std::string key = "Frame rate:";
    const std::size_t at = output.find(key);
    if (at == std::string::npos) {
      throw std::runtime_error("no frame rate in tjbench output: " + output);
    }
    total += std::stod(output.substr(at + key.size()));
  }
  return total;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Images/s over a set decoded once each, from per-image rates.
double harmonic(const std::vector<double>& per_image) {
  double seconds = 0;
  for (double r : per_image) seconds += 1 / r;
  return static_cast<double>(per_image.size()) / seconds;
}

struct Row {
  std::string name, subject, reference;
  std::vector<double> subject_runs, reference_runs;  // images/s per repeat
  double target = 0;
  std::string note;
  double subject_median() const { return median(subject_runs); }
  double reference_median() const { return median(reference_runs); }
  double ratio() const { return subject_median() / reference_median(); }
};

// 1. decode_full against tjbench, image by image.
Row full_decode(const std::vector<Image>& images, const std::string& tjbench, const Args& args) {
  Row row{"full decode, 1 thread", "decode_full", "tjbench", {}, {}, kFullTarget, {}};
  decode::ImageDecoder decoder;
  std::vector<std::uint8_t> rgb;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    std::vector<double> ours, theirs;
    for (const Image& image : images) {
      const auto feedrate = [&] {
        ours.push_back(rate(args.warmup, args.seconds, [&] {
          if (!decoder.decode_full(image.bytes, rgb).ok()) throw std::runtime_error("decode");
        }));
      };
      const auto reference = [&] { theirs.push_back(tjbench_rate(tjbench, image, args)); };
      if (repeat % 2 == 0) {
        feedrate();
        reference();
      } else {
        reference();
        feedrate();
      }
    }
    row.subject_runs.push_back(harmonic(ours));
    row.reference_runs.push_back(harmonic(theirs));
  }
  return row;
}

// Two paths take turns crop by crop (same image, same seed), each timed on its own, so that a
// shared machine's load changes slow both alike: a warm-up of `images` calls each, then
// args.repeats runs of 2 x args.seconds per image, whose images/s go to `row`.
void take_turns(std::size_t images, const Args& args,
                const std::function<void(std::uint64_t)>& ours,
                const std::function<void(std::uint64_t)>& theirs, Row& row) {
  for (std::uint64_t k = 0; k < images; ++k) {
    ours(k);
    theirs(k);
  }
  const double seconds = 2 * args.seconds * static_cast<double>(images);
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    double ours_seconds = 0, theirs_seconds = 0;
    std::uint64_t k = 0;
    for (const Clock::time_point start = Clock::now(); seconds_since(start) < seconds; ++k) {
      const Clock::time_point t0 = Clock::now();
      ours(k);
      const Clock::time_point t1 = Clock::now();
      theirs(k);
      const Clock::time_point t2 = Clock::now();
      ours_seconds += std::chrono::duration<double>(t1 - t0).count();
      theirs_seconds += std::chrono::duration<double>(t2 - t1).count();
    }
    row.subject_runs.push_back(static_cast<double>(k) / ours_seconds);
    row.reference_runs.push_back(static_cast<double>(k) / theirs_seconds);
  }
}

// 2. The train path against decode_full + the same resampler over the crop, same crops.
Row train_path(const std::vector<Image>& images, const Args& args, double* scaled_share) {
  Row row{"train path (RandomResizedCrop 224 + flip), 1 thread",
          "decode (ROI+DCT)",
          "full+resize",
          {},
          {},
          kTrainTarget,
          {}};
  const decode::TransformSpec spec;  // RandomResizedCrop(224), flip 0.5
  const std::size_t out_bytes = static_cast<std::size_t>(spec.size) * spec.size * 3;
  decode::ImageDecoder decoder;
  decode::Resampler resampler;
  std::vector<std::uint8_t> rgb, out(out_bytes);
  std::uint64_t scaled = 0, decodes = 0;
  const auto feedrate = [&](std::uint64_t k) {
    const Image& image = images[k % images.size()];
    if (!decoder.decode(image.bytes, spec, k, out).ok()) throw std::runtime_error("decode");
    scaled += decoder.info().scale_denom > 1;
    ++decodes;
  };
  const auto reference = [&](std::uint64_t k) {
    const Image& image = images[k % images.size()];
    decode::Rng rng(k);
    if (!decoder.decode_full(image.bytes, rgb).ok()) throw std::runtime_error("decode");
    resampler.prepare(decode::plan_transform(spec, image.width, image.height, rng));
    resampler.run(rgb.data(), static_cast<std::size_t>(image.width) * 3, 0, 0, out.data());
  };
  take_turns(images.size(), args, feedrate, reference, row);
  *scaled_share = static_cast<double>(scaled) / static_cast<double>(decodes);
  return row;
}

// 2b. The train path on packed JPEGs against the same path on the originals, same crops, taking
// turns crop by crop; `read_share` gets the entropy-coded bytes the packed decodes read.
Row packed_train_path(const std::vector<Image>& images, const Args& args, double* read_share) {
  Row row{"train path, packed vs original, 1 thread",
          "decode (packed)",
          "decode (orig.)",
          {},
          {},
          0,
          {}};
  const decode::TransformSpec spec;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(spec.size) * spec.size * 3);
  decode::ImageDecoder decoder;
  std::uint64_t scan = 0, read = 0;
  const auto packed = [&](std::uint64_t k) {
    if (!decoder.decode(images[k % images.size()].packed, spec, k, out).ok()) {
      throw std::runtime_error("decode");
    }
    scan += decoder.info().scan_bytes;
    read += decoder.info().scan_bytes_read;
  };
  const auto original = [&](std::uint64_t k) {
    if (!decoder.decode(images[k % images.size()].bytes, spec, k, out).ok()) {
      throw std::runtime_error("decode");
    }
  };
  take_turns(images.size(), args, packed, original, row);
  *read_share = scan > 0 ? static_cast<double>(read) / static_cast<double>(scan) : 1;
  return row;
}

// 3. `feedrate bench` end to end against the full-decode ceiling: `workers` tjbench processes
// at once on each image (tjbench's images/s per core times the cores, measured under the same
// load as the run it is compared with).
Row end_to_end(const fs::path& dir, const std::vector<Image>& images, const std::string& tjbench,
               const std::string& feedrate, int workers, const Args& args) {
  Row row{fmt::format("end to end, {} workers", workers),
          "feedrate bench",
          fmt::format("{} x tjbench", workers),
          {},
          {},
          kEndToEndTarget,
          {}};
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    const auto subject = [&] {
      const std::string output = run_command(
          fmt::format("{} bench {} --transform train --workers {} --epochs {} --json",
                      quote(feedrate), quote(dir.string()), workers, args.end_to_end_epochs));
      const std::size_t brace = output.find('{');
      if (brace == std::string::npos) throw std::runtime_error("no JSON from feedrate: " + output);
      const nlohmann::json report = nlohmann::json::parse(output.substr(brace));
      row.subject_runs.push_back(report.at("images_per_s").get<double>());
    };
    const auto reference = [&] {
      std::vector<double> per_image;
      for (const Image& image : images) {
        per_image.push_back(tjbench_rate(tjbench, image, args, workers));
      }
      row.reference_runs.push_back(harmonic(per_image));
    };
    if (repeat % 2 == 0) {
      subject();
      reference();
    } else {
      reference();
      subject();
    }
  }
  return row;
}

// 4. Whole-image decodes at scale num/8 for num = 1..8, through libjpeg with the decoder's
// settings (ISLOW IDCT, fancy upsampling, RGB), every factor timed over all the images in turn:
// the decode alone, and the decode followed by the resize to the largest output the decoder
// would still decode at 1/2 (the scaled image keeps 1.5x its pixels per side), where the choice
// between 1/2 and the larger factors is made.
struct ScaleCost {
  int num = 8;                             // the factor is num/8
  std::vector<double> decode_runs;         // images/s per repeat
  std::vector<double> decode_resize_runs;  // images/s per repeat
  bool keeps_enough = false;               // for that output, at the first image's size
  double decode_rate() const { return median(decode_runs); }
  double decode_resize_rate() const { return median(decode_resize_runs); }
};

// The output the decoder would still decode at 1/2: ceil(side / 2) >= bound x output side.
int half_scale_output(int side) {
  return static_cast<int>((side + 1) / 2 / decode::kScaledPixelsPerOutput);
}

std::vector<ScaleCost> scale_costs(const std::vector<Image>& images, const Args& args) {
  std::vector<ScaleCost> costs(8);
  for (int i = 0; i < 8; ++i) {
    costs[i].num = i + 1;
    const auto keeps = [&](int side) {
      return (side * (i + 1) + 7) / 8 >= decode::kScaledPixelsPerOutput * half_scale_output(side);
    };
    costs[i].keeps_enough = keeps(images[0].width) && keeps(images[0].height);
  }
  jpeg_decompress_struct cinfo{};
  jpeg_error_mgr error{};
  cinfo.err = jpeg_std_error(&error);  // the images decoded once already: an error exits
  jpeg_create_decompress(&cinfo);
  std::vector<std::uint8_t> pixels, out;
  decode::Resampler resampler;
  std::size_t next = 0;
  const auto decode_next = [&](int num, bool resize) {
    const Image& image = images[next++ % images.size()];
    jpeg_mem_src(&cinfo, image.bytes.data(), static_cast<unsigned long>(image.bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.scale_num = static_cast<unsigned>(num);
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    const std::size_t stride = static_cast<std::size_t>(cinfo.output_width) * 3;
    pixels.resize(stride * cinfo.output_height);
    while (cinfo.output_scanline < cinfo.output_height) {
      JSAMPROW rows[1] = {&pixels[cinfo.output_scanline * stride]};
      jpeg_read_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_decompress(&cinfo);
    if (!resize) return;
    decode::ResizePlan plan;
    plan.box_w = image.width;
    plan.box_h = image.height;
    plan.out_w = plan.win_w = half_scale_output(image.width);
    plan.out_h = plan.win_h = half_scale_output(image.height);
    plan.clip_x1 = image.width;
    plan.clip_y1 = image.height;
    const int width = static_cast<int>(cinfo.output_width);
    const int height = static_cast<int>(cinfo.output_height);
    resampler.prepare(decode::scale_plan(plan, num / 8.0, num / 8.0, width, height));
    out.resize(static_cast<std::size_t>(plan.out_w) * plan.out_h * 3);
    resampler.run(pixels.data(), stride, 0, 0, out.data());
  };
  const double seconds = args.seconds * static_cast<double>(images.size()) / 8;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    for (int i = 0; i < 8; ++i) {
      ScaleCost& cost = costs[repeat % 2 == 0 ? i : 7 - i];
      cost.decode_runs.push_back(rate(args.warmup, seconds, [&] { decode_next(cost.num, false); }));
      cost.decode_resize_runs.push_back(
          rate(args.warmup, seconds, [&] { decode_next(cost.num, true); }));
    }
  }
  jpeg_destroy_decompress(&cinfo);
  return costs;
}

bool decoder_candidate(int num) {
  for (int denom : decode::kDctScaleDenominators) {
    if (num * denom == 8) return true;
  }
  return false;
}

// Whether 1/2, the decoder's pick at that output, is the cheapest factor that keeps enough
// pixels there (decode + resize).
bool half_is_cheapest(const std::vector<ScaleCost>& costs) {
  const double half = costs[3].decode_resize_rate();
  for (const ScaleCost& cost : costs) {
    if (cost.keeps_enough && cost.decode_resize_rate() > half) return false;
  }
  return true;
}

std::string runs_text(const std::vector<double>& runs) {
  std::string text;
  for (double r : runs) text += fmt::format("{}{:.1f}", text.empty() ? "" : " ", r);
  return text;
}

int run(const Args& args) {
  const fs::path dir = args.dir.empty() ? feedrate::bench::default_dataset() : fs::path(args.dir);
  const std::vector<Image> images = load_images(dir, args.images, args.restart_mcus);
  const feedrate::CpuInfo cpu = feedrate::cpu_info();
  const int workers = args.workers > 0 ? args.workers : cpu.available;
  const std::string tjbench_version =
      run_command("dpkg-query -W -f='${Version}' libjpeg-turbo-progs 2>/dev/null || true");
  std::string feedrate = args.feedrate;
  if (feedrate.empty())
    feedrate = (fs::read_symlink("/proc/self/exe").parent_path() / "feedrate").string();
  utsname name{};
  ::uname(&name);
  double mean_bytes = 0;
  for (const Image& image : images) mean_bytes += static_cast<double>(image.bytes.size());
  mean_bytes /= static_cast<double>(images.size());

  nlohmann::ordered_json env = {
      {"cpu", fmt::format("{} ({} CPUs available)", cpu.model.empty() ? "unknown" : cpu.model,
                          cpu.available)},
      {"kernel", fmt::format("{} {}", name.sysname, name.release)},
#ifdef NDEBUG
      {"build", "release (assertions off)"},
#else
      {"build", "WARNING: assertions on (not a release build)"},
#endif
      {"libjpeg_turbo", fmt::format("{}.{}.{} (headers feedrate is built with)",
                                    LIBJPEG_TURBO_VERSION_NUMBER / 1000000,
                                    LIBJPEG_TURBO_VERSION_NUMBER / 1000 % 1000,
                                    LIBJPEG_TURBO_VERSION_NUMBER % 1000)},
      {"resampler", fmt::format("{} kernels", decode::Resampler::kernels())},
      {"tjbench", fmt::format("{} {} (libjpeg-turbo-progs {})", args.tjbench, kTjbenchOptions,
                              tjbench_version.empty() ? "?" : tjbench_version)},
      {"images", fmt::format("{} from {} ({}x{} first, mean {:.1f} KB)", images.size(),
                             dir.string(), images[0].width, images[0].height, mean_bytes / 1000)},
      {"runs", fmt::format("{} s per image per contender after {} s warm-up, median of {} "
                           "repeat(s), order reversed every other repeat",
                           args.seconds, args.warmup, args.repeats)},
      {"load_average_before", load_average()},
  };
  if (!args.json) {
    fmt::print("feedrate-decode-bench: decode/ against tjbench, one thread, same images\n");
    for (const auto& [key, value] : env.items()) {
      fmt::print("  {:<20} {}\n", key, value.get<std::string>());
    }
    fmt::print("\n");
    std::fflush(stdout);
  }

  std::vector<Row> rows;
  rows.push_back(full_decode(images, args.tjbench, args));
  double scaled_share = 0;
  rows.push_back(train_path(images, args, &scaled_share));
  rows.back().note =
      fmt::format("{:.0f}% of the crops decoded with DCT scaling", scaled_share * 100);
  double read_share = 1;
  rows.push_back(packed_train_path(images, args, &read_share));
  std::uint64_t original_bytes = 0, packed_bytes = 0;
  for (const Image& image : images) {
    original_bytes += image.bytes.size();
    packed_bytes += image.packed.size();
  }
  rows.back().note = fmt::format(
      "{:.1f}% of the entropy-coded bytes skipped per crop; packed files {:.3f}x the originals",
      (1 - read_share) * 100, static_cast<double>(packed_bytes) / original_bytes);
  if (!args.no_end_to_end) {
    rows.push_back(end_to_end(dir, images, args.tjbench, feedrate, workers, args));
    rows.back().note = fmt::format(
        "ceiling = {} tjbench processes at once; one alone gave {:.1f} images/s above, x {} = "
        "{:.1f}",
        workers, rows[0].reference_median(), workers, rows[0].reference_median() * workers);
  }
  const std::vector<ScaleCost> scales = scale_costs(images, args);
  env["load_average_after"] = load_average();

  if (args.json) {
    nlohmann::ordered_json out = {{"environment", env},
                                  {"measurements", nlohmann::ordered_json::array()}};
    for (const Row& row : rows) {
      out["measurements"].push_back({{"measurement", row.name},
                                     {"feedrate", row.subject},
                                     {"against", row.reference},
                                     {"feedrate_images_per_s", row.subject_runs},
                                     {"against_images_per_s", row.reference_runs},
                                     {"ratio", row.ratio()},
                                     {"target", row.target > 0 ? nlohmann::ordered_json(row.target)
                                                               : nlohmann::ordered_json()},
                                     {"met", row.ratio() >= row.target},
                                     {"note", row.note}});
    }
    out["dct_scales"] = nlohmann::ordered_json::array();
    for (const ScaleCost& cost : scales) {
      out["dct_scales"].push_back(
          {{"scale", fmt::format("{}/8", cost.num)},
           {"decode_images_per_s", cost.decode_runs},
           {"decode_vs_full", cost.decode_rate() / scales.back().decode_rate()},
           {"decode_resize_images_per_s", cost.decode_resize_runs},
           {"decode_resize_vs_full",
            cost.decode_resize_rate() / scales.back().decode_resize_rate()},
           {"keeps_enough_pixels", cost.keeps_enough},
           {"decoder_may_pick", decoder_candidate(cost.num)}});
    }
    out["half_scale_is_cheapest"] = half_is_cheapest(scales);
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{:<52} | {:<16} | {:>8} | {:<15} | {:>8} | {:>5} | {:<7} | {}\n", "measurement",
             "feedrate", "images/s", "against", "images/s", "ratio", "target", "met?");
  fmt::print("{:-<52}-|-{:-<16}-|-{:->8}-|-{:-<15}-|-{:->8}-|-{:->5}-|-{:-<7}-|-----\n", "", "", "",
             "", "", "", "");
  for (const Row& row : rows) {
    const std::string target = row.target > 0 ? fmt::format(">= {:<4.2f}", row.target) : "-";
    const char* met = row.target <= 0 ? "-" : row.ratio() >= row.target ? "yes" : "NO";
    fmt::print("{:<52} | {:<16} | {:>8.1f} | {:<15} | {:>8.1f} | {:>5.2f} | {:<7} | {}\n", row.name,
               row.subject, row.subject_median(), row.reference, row.reference_median(),
               row.ratio(), target, met);
  }
  fmt::print("\n");
  for (const Row& row : rows) {
    fmt::print("  {}: {} runs {} images/s; {} runs {} images/s{}\n", row.name, row.subject,
               runs_text(row.subject_runs), row.reference, runs_text(row.reference_runs),
               row.note.empty() ? "" : "; " + row.note);
  }
  fmt::print(
      "\nDCT scale | decode, vs 8/8 | + resize to {}x{}, vs 8/8 | keeps 1.5x | decoder may pick\n"
      "----------|----------------|--------------------------|------------|-----------------\n",
      half_scale_output(images[0].width), half_scale_output(images[0].height));
  for (const ScaleCost& cost : scales) {
    fmt::print("{:>9} | {:>7.1f}  {:>5.2f} | {:>15.1f}  {:>8.2f} | {:<10} | {}\n",
               fmt::format("{}/8", cost.num), cost.decode_rate(),
               cost.decode_rate() / scales.back().decode_rate(), cost.decode_resize_rate(),
               cost.decode_resize_rate() / scales.back().decode_resize_rate(),
               cost.keeps_enough ? "yes" : "no",
               decoder_candidate(cost.num) ? "yes" : (cost.num == 8 ? "(full size)" : "no"));
  }
  fmt::print(
      "  (images/s; the resize output is the largest the decoder still decodes at 1/2)\n"
      "  1/2 is the cheapest factor that keeps 1.5x the output's pixels: {}\n",
      half_is_cheapest(scales) ? "yes" : "NO (decode::kDctScaleDenominators needs review)");
  fmt::print("  load average before {}, after {}\n", env["load_average_before"].get<std::string>(),
             env["load_average_after"].get<std::string>());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App app{
      "feedrate-decode-bench: feedrate's JPEG decode against tjbench and its train path against "
      "full decode + resize, one thread, on the same images"};
  app.add_option("--dir", args.dir, "Dataset folder (default: the generated default dataset)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--images", args.images, "JPEGs taken from the dataset, evenly spaced")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--seconds", args.seconds, "Timed seconds per image per contender")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 60.0));
  app.add_option("--warmup", args.warmup, "Untimed seconds before each timed run")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--repeats", args.repeats, "Runs of each contender; the median is quoted")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--tjbench", args.tjbench, "tjbench (Debian package libjpeg-turbo-progs)")
      ->capture_default_str();
  app.add_option("--feedrate", args.feedrate,
                 "The feedrate command for the end-to-end run (default: beside this program)");
  app.add_option("--workers", args.workers, "Workers end to end (default: the CPUs available)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--epochs", args.end_to_end_epochs, "Epochs of each end-to-end run")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--restart-mcus", args.restart_mcus,
                 "MCUs per restart interval aimed for in the packed forms (as feedrate pack)")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_flag("--no-end-to-end", args.no_end_to_end, "Skip the feedrate bench run");
  app.add_flag("--json", args.json, "Print one JSON object instead of text");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate-decode-bench: {}\n", e.what());
    return 1;
  }
}
