#include "bench/cli/bench_report.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "bench/cli/report_output.h"
#include "loader/diagnosis/report_document.h"

namespace feedrate::bench {

std::string dataset_text(const BenchDataset& dataset) {
  std::string text = fmt::format("dataset   {} ({}): {} samples, {} classes, {:.1f} MB\n",
                                 dataset.source, format_name(dataset.format), dataset.samples,
                                 dataset.classes, dataset.bytes / 1e6);
  if (dataset.ignored_files > 0) {
    text += fmt::format("ignored   {} files that are not images, e.g. {}\n", dataset.ignored_files,
                        fmt::join(dataset.ignored_examples, ", "));
  }
  return text;
}

std::string bench_text(const BenchResult& r) {
  const LoaderOptions& options = r.options;
  const RunStats& stats = r.stats;
  std::string text = fmt::format(
      "run       {} images in {} batches, {:.2f} s, {} worker(s), batch {}, {} {}, {}\n",
      stats.images, stats.batches, r.report.wall_s, options.num_workers, options.batch_size,
      r.transform, options.transform.size, layout_name(options.layout));
  for (std::size_t e = 0; e < r.epochs.size() && r.epochs.size() > 1; ++e) {
    const EpochFigures& epoch = r.epochs[e];
    text +=
        fmt::format("epoch {:<3} {:.1f} images/s, {:.1f} MB read at {:.1f} MB/s{}\n", e,
                    epoch.images / epoch.seconds, epoch.bytes_read / 1e6,
                    epoch.bytes_read / 1e6 / epoch.seconds,
                    r.report.cache.enabled
                        ? fmt::format("; cache: {} read, {} written ({:.1f} s of CPU), {} cached",
                                      epoch.cache_hits, epoch.cache_written, epoch.cache_cpu_s,
                                      epoch.cache_samples)
                        : std::string());
  }
  text += fmt::format("speed     {:.1f} images/s, {:.1f} MB/s\n", r.report.images_per_s,
                      r.report.mb_per_s);
  text += fmt::format("decode    {:.2f} ms of CPU per image\n",
                      r.report.costs.image.decode_ms_per_image);
  if (const std::string packing = describe(r.report.costs.packed); !packing.empty()) {
    text += fmt::format("packing   {}\n", packing);
  }
  text += fmt::format(
      "shuffle   {}{}: {:.2f} distinct labels per batch, {:.0f}% of a full shuffle's {:.2f}; "
      "storage-to-delivery rank correlation {:.3f}\n",
      shuffle_name(options.shuffle),
      options.shuffle == ShuffleMode::kBlocks
          ? fmt::format(" (window {} MB)", options.shuffle_window_mb)
          : std::string(),
      r.quality.labels_per_batch, 100 * r.quality.label_mix, r.quality.full_labels_per_batch,
      r.quality.spearman);
  text += fmt::format("memory    peak RSS {:.1f} MB\n", r.report.figures.peak_rss_bytes / 1e6);
  text += fmt::format(
      "io        {}{}, throttle {}, read latency p50 {:.0f} us p99 {:.0f} us, {:.1f} reads "
      "in flight on average (peak {})\n",
      stats.io.backend,
      stats.io_fallback_reason.empty() ? "" : " (" + stats.io_fallback_reason + ")",
      stats.io.throttle, stats.io.latency_p50_us, stats.io.latency_p99_us,
      stats.io.average_in_flight, stats.io.peak_in_flight);
  if (!stats.io.notes.empty()) text += fmt::format("          {}\n", stats.io.notes);
  if (const CacheFigures& c = r.report.cache; c.enabled) {
    text += fmt::format(
        "cache     {}: {} of {} samples, {:.1f} MB ({:.3f}x their source's {:.1f} MB); hit rate "
        "{:.0f}%; this run wrote {} transcoded + {} unchanged with {:.1f} s of CPU{}{}\n",
        c.folder, c.samples, c.dataset_samples, c.bytes / 1e6,
        c.source_bytes > 0 ? static_cast<double>(c.bytes) / static_cast<double>(c.source_bytes)
                           : 0.0,
        c.source_bytes / 1e6, 100 * c.hit_rate, c.transcoded, c.unchanged, c.cpu_s,
        c.fallbacks > 0 ? fmt::format("; {} bad entries read from the source", c.fallbacks)
                        : std::string(),
        c.stopped ? "; caching stopped (see the warning)" : "");
  }
  text += fmt::format("device    {}\n", stats.device);
  text += fmt::format("skipped   {}\n", stats.skipped);
  for (const SkippedSample& s : stats.skipped_samples) {
    text += fmt::format("  {}: {}\n", s.where, s.reason);
  }
  text += "\n";
  text += report_text(r.report);
  return text;
}

nlohmann::json bench_json(const BenchResult& r) {
  const LoaderOptions& options = r.options;
  // The library's document (loader/diagnosis/report_document.h), and what only the command line
  // knows: the dataset as opened, the options as given, the epochs it timed, the order's quality.
  nlohmann::json out = nlohmann::json::parse(report_document(r.report, r.stats, flag_spelling));
  out["dataset"] = r.dataset.source;
  out["classes"] = r.dataset.classes;
  out["ignored_files"] = r.dataset.ignored_files;
  out["ignored_examples"] = r.dataset.ignored_examples;
  out["io"]["cold"] = r.cold;
  out["transform"] = r.transform;
  out["size"] = options.transform.size;
  out["layout"] = layout_name(options.layout);
  out["shuffle"] = {{"mode", shuffle_name(options.shuffle)},
                    {"window_mb", options.shuffle_window_mb},
                    {"labels_per_batch", r.quality.labels_per_batch},
                    {"full_shuffle_labels_per_batch", r.quality.full_labels_per_batch},
                    {"label_mix", r.quality.label_mix},
                    {"spearman", r.quality.spearman}};
  nlohmann::json per_epoch = nlohmann::json::array();
  for (const EpochFigures& e : r.epochs) {
    per_epoch.push_back({{"images", e.images},
                         {"seconds", e.seconds},
                         {"images_per_s", e.seconds > 0 ? e.images / e.seconds : 0.0},
                         {"bytes_read", e.bytes_read},
                         {"mb_per_s", e.seconds > 0 ? e.bytes_read / 1e6 / e.seconds : 0.0},
                         {"cache_hits", e.cache_hits},
                         {"cache_written", e.cache_written},
                         {"cache_samples", e.cache_samples},
                         {"cache_cpu_s", e.cache_cpu_s}});
  }
  out["epochs"] = per_epoch;
  return out;
}

}  // namespace feedrate::bench
