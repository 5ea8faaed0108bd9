#include "loader/cache/pack_cache.h"

namespace feedrate {

PackCache::PackCache(const LoaderOptions& options, const Dataset& dataset,
                     std::function<PacingCounters()> counters, const PackCacheHooks& hooks,
                     io::Clock& clock)
    : dataset_(dataset), store_(options.cache_dir, dataset, options.source) {
  {
    std::lock_guard lock(warnings_mutex_);
    store_.load(warnings_);
  }
  PackCacheWriterOptions writer;
  writer.budget_bytes = static_cast<std::uint64_t>(options.cache_gb * 1e9);
  writer.limits = {.max_pixels = options.max_pixels, .on_warning = options.on_warning};
  writer.counters = std::move(counters);
  writer.write = hooks.write;
  writer.unpaced = hooks.unpaced;
  writer.clock = &clock;
  writer_ = std::make_unique<PackCacheWriter>(store_, dataset.size(), std::move(writer));
}

PackCache::~PackCache() = default;

void PackCache::begin_epoch() {
  writer_->start();
  writer_->publish();
  {
    std::lock_guard lock(warnings_mutex_);
    store_.load(warnings_);
  }
  writer_->note_cached(store_);
}

bool PackCache::verify(std::uint32_t sample, std::span<const std::uint8_t> bytes,
                       const std::string& read_error) {
  const PackCacheStore::Entry* entry = store_.find(sample);
  if (entry == nullptr) return false;
  std::string problem = read_error;
  if (problem.empty() && entry_checksum(bytes) != entry->checksum) problem = "checksum mismatch";
  if (problem.empty()) return true;
  {
    std::lock_guard lock(warnings_mutex_);
    cache_warning(store_.describe(*entry) + " (" + dataset_.describe(sample) + "): " + problem +
                      "; reading the source",
                  warnings_);
  }
  store_.forget(sample);
  writer_->forget(sample);
  ++fallbacks_;
  return false;
}

CacheFigures PackCache::figures() const {
  CacheFigures f;
  f.enabled = true;
  f.folder = store_.folder().string();
  f.samples = store_.samples();
  f.dataset_samples = dataset_.size();
  f.bytes = store_.entry_bytes();
  f.source_bytes = store_.source_bytes();
  f.disk_bytes = store_.disk_bytes();
  f.hits = hits_;
  f.misses = misses_;
  f.hit_rate = f.hits + f.misses > 0
                   ? static_cast<double>(f.hits) / static_cast<double>(f.hits + f.misses)
                   : 0;
  f.fallbacks = fallbacks_;
  const PackCacheWriterFigures w = writer_->figures();
  f.transcoded = w.transcoded;
  f.unchanged = w.unchanged;
  f.written_bytes = w.written_bytes;
  f.cpu_s = w.cpu_s;
  f.declined = w.declined;
  f.allowed_per_s = w.allowed_per_s;
  f.stopped = w.stopped;
  {
    std::lock_guard lock(warnings_mutex_);
    f.warnings = warnings_;
  }
  for (const std::string& warning : w.warnings) {
    if (f.warnings.size() < kMaxCacheWarnings) f.warnings.push_back(warning);
  }
  return f;
}

}  // namespace feedrate
