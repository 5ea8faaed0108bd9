#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <fmt/core.h>
#include <jpeglib.h>
#include <sys/utsname.h>

#include <string>

#include "bench/micro/decode_bench/commands.h"
#include "bench/micro/decode_bench/report.h"
#include "decode/resize.h"

namespace feedrate::decode_bench {

namespace {

std::string runs_text(const std::vector<double>& runs) {
  std::string text;
  for (double r : runs) text += fmt::format("{}{:.1f}", text.empty() ? "" : " ", r);
  return text;
}

}  // namespace

nlohmann::ordered_json environment(const Args& args, const std::filesystem::path& dir,
                                   const std::vector<Image>& images, const CpuInfo& cpu) {
  const std::string tjbench_version =
      run_command("dpkg-query -W -f='${Version}' libjpeg-turbo-progs 2>/dev/null || true");
  utsname name{};
  ::uname(&name);
  double mean_bytes = 0;
  for (const Image& image : images) mean_bytes += static_cast<double>(image.bytes.size());
  mean_bytes /= static_cast<double>(images.size());
  return {
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
}

void print_heading(const nlohmann::ordered_json& env) {
  fmt::print("feedrate-decode-bench: decode/ against tjbench, one thread, same images\n");
  for (const auto& [key, value] : env.items()) {
    fmt::print("  {:<20} {}\n", key, value.get<std::string>());
  }
  fmt::print("\n");
  std::fflush(stdout);
}

void print_json(const nlohmann::ordered_json& env, const std::vector<Row>& rows,
                const std::vector<ScaleCost>& scales) {
  nlohmann::ordered_json out = {{"environment", env},
                                {"measurements", nlohmann::ordered_json::array()}};
  for (const Row& row : rows) {
    out["measurements"].push_back(
        {{"measurement", row.name},
         {"feedrate", row.subject},
         {"against", row.reference},
         {"feedrate_images_per_s", row.subject_runs},
         {"against_images_per_s", row.reference_runs},
         {"ratio", row.ratio()},
         {"target", row.target > 0 ? nlohmann::ordered_json(row.target) : nlohmann::ordered_json()},
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
         {"decode_resize_vs_full", cost.decode_resize_rate() / scales.back().decode_resize_rate()},
         {"keeps_enough_pixels", cost.keeps_enough},
         {"decoder_may_pick", decoder_candidate(cost.num)}});
  }
  out["half_scale_is_cheapest"] = half_is_cheapest(scales);
  fmt::print("{}\n", out.dump(2));
}

void print_text(const nlohmann::ordered_json& env, const std::vector<Row>& rows,
                const std::vector<ScaleCost>& scales, const Image& first) {
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
      half_scale_output(first.width), half_scale_output(first.height));
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
}

}  // namespace feedrate::decode_bench
