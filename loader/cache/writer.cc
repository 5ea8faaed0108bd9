#include "loader/cache/writer.h"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "decode/jpeg_pack.h"
#include "decode/pack_choice.h"
#include "loader/host/system_info.h"

namespace feedrate {
namespace {

using Clock = io::Clock;

// What an entry holds for `bytes`: false when the sample is not cached (the packer fails on a
// JPEG that decoded: it is read from the source as before).
bool entry_for(decode::JpegPacker& packer, std::span<const std::uint8_t> bytes,
               std::vector<std::uint8_t>& out, CacheEntryKind& kind) {
  kind = CacheEntryKind::kUnchanged;
  if (decode::pack_choice(bytes) != decode::PackChoice::kTranscode) return true;
  const decode::DecodeStatus status = packer.pack(bytes, out);
  if (status.ok()) {
    kind = CacheEntryKind::kPacked;
    return true;
  }
  return decode::store_unchanged(status);
}

// Whether the disk under `folder` keeps 5% of its size (at least 1 GiB) free after `more` bytes.
bool disk_has_room(const std::filesystem::path& folder, std::uint64_t more) {
  struct statvfs info {};
  if (::statvfs(folder.c_str(), &info) != 0) return true;  // unknown: the writes will tell
  const double size = static_cast<double>(info.f_blocks) * static_cast<double>(info.f_frsize);
  const double free = static_cast<double>(info.f_bavail) * static_cast<double>(info.f_frsize);
  const double reserve = std::max(0.05 * size, static_cast<double>(std::uint64_t{1} << 30));
  return free - static_cast<double>(more) >= reserve;
}

}  // namespace

PackCacheWriter::PackCacheWriter(PackCacheStore& store, std::size_t samples,
                                 PackCacheWriterOptions options)
    : store_(store),
      options_(std::move(options)),
      claimed_(new std::atomic<std::uint8_t>[samples]),
      samples_(samples) {
  for (std::size_t i = 0; i < samples_; ++i) claimed_[i].store(0, std::memory_order_relaxed);
  note_cached(store_);
}

void PackCacheWriter::start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

PackCacheWriter::~PackCacheWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard segment_lock(segment_mutex_);
  publish_locked();
}

void PackCacheWriter::offer(std::uint32_t sample, std::span<const std::uint8_t> bytes) {
  if (stopped_.load(std::memory_order_relaxed) ||
      claimed_[sample].load(std::memory_order_relaxed) != 0) {
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (queued_bytes_ + bytes.size() > options_.queue_bytes) {
      ++figures_.declined;
      return;
    }
    if (claimed_[sample].exchange(1) != 0) return;
    queue_.push_back({sample, std::vector<std::uint8_t>(bytes.begin(), bytes.end())});
    queued_bytes_ += bytes.size();
  }
  wake_.notify_one();
}

void PackCacheWriter::publish() {
  if (options_.unpaced && thread_.joinable()) {
    std::unique_lock lock(mutex_);
    drained_.wait(lock, [&] { return (queue_.empty() && !writing_) || stopping_; });
  }
  std::lock_guard lock(segment_mutex_);
  publish_locked();
}

void PackCacheWriter::note_cached(const PackCacheStore& store) {
  for (std::uint32_t i = 0; i < samples_; ++i) {
    if (store.find(i) != nullptr) claimed_[i].store(1, std::memory_order_relaxed);
  }
  std::lock_guard lock(segment_mutex_);
  unloaded_bytes_ = 0;
}

void PackCacheWriter::forget(std::uint32_t sample) {
  claimed_[sample].store(0, std::memory_order_relaxed);
}

PackCacheWriterFigures PackCacheWriter::figures() const {
  std::lock_guard lock(mutex_);
  PackCacheWriterFigures figures = figures_;
  figures.stopped = stopped_;
  return figures;
}

void PackCacheWriter::run() {
  // The lowest priority: decode threads preempt this one whenever they have work.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  decode::JpegPacker packer(options_.limits);
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_ || (!options_.unpaced && !pace(lock))) break;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= item.bytes.size();
    writing_ = true;
    lock.unlock();
    write(packer, item);
    lock.lock();
    writing_ = false;
    if (queue_.empty()) drained_.notify_all();
  }
}

bool PackCacheWriter::pace(std::unique_lock<std::mutex>& lock) {
  while (!stopping_) {
    const Clock::time_point now = options_.clock->now();
    if (now - window_start_ >= std::chrono::duration<double>(kPacingWindowS)) {
      lock.unlock();
      const PacingCounters counters = options_.counters ? options_.counters() : PacingCounters{};
      lock.lock();
      const double transcode_s =
          figures_.transcoded + figures_.unchanged > 0
              ? figures_.cpu_s / static_cast<double>(figures_.transcoded + figures_.unchanged)
              : 0;
      figures_.allowed_per_s =
          allowed_transcodes_per_s(headroom_between(window_counters_, counters, transcode_s));
      window_counters_ = counters;
      window_start_ = now;
    }
    // The first entry measures what one costs.
    if (figures_.transcoded + figures_.unchanged == 0) return true;
    if (figures_.allowed_per_s > 0 && now >= next_start_) {
      next_start_ = now + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(1 / figures_.allowed_per_s));
      return true;
    }
    const Clock::time_point until =
        figures_.allowed_per_s > 0
            ? std::min(next_start_,
                       window_start_ + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(kPacingWindowS)))
            : window_start_ + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(kPacingWindowS));
    options_.clock->wait_until(wake_, lock, until);
  }
  return false;
}

void PackCacheWriter::write(decode::JpegPacker& packer, Item& item) {
  const std::uint64_t cpu_start = thread_cpu_ns();
  CacheEntryKind kind = CacheEntryKind::kUnchanged;
  if (!entry_for(packer, item.bytes, packed_, kind)) return;
  const std::span<const std::uint8_t> bytes =
      kind == CacheEntryKind::kPacked ? std::span<const std::uint8_t>(packed_) : item.bytes;
  {
    std::lock_guard segment_lock(segment_mutex_);
    if (stopped_) return;
    if (!segment_) {
      if (options_.budget_bytes > 0) {
        const std::uint64_t used = store_.disk_bytes() + unloaded_bytes_;
        if (used + bytes.size() > options_.budget_bytes) {
          stop_caching("cache_gb reached (" + std::to_string(used) + " bytes cached of " +
                       std::to_string(options_.budget_bytes) + "); caching stops");
          return;
        }
        budget_left_ = options_.budget_bytes - used;
      }
      if (!disk_has_room(store_.folder(), options_.segment_bytes)) {
        stop_caching(store_.folder().string() +
                     ": the disk has less than 5% (or 1 GiB) free; caching stops");
        return;
      }
      std::error_code error;
      segment_ = std::make_unique<SegmentWriter>(store_.folder(), store_.new_segment_name(),
                                                 options_.write, error);
      if (error) {
        segment_.reset();
        stop_caching(store_.folder().string() + ": cannot create a segment: " + error.message() +
                     "; caching stops");
        return;
      }
    }
    if (options_.budget_bytes > 0 && segment_->bytes() + bytes.size() > budget_left_) {
      publish_locked();
      stop_caching("cache_gb reached (" + std::to_string(options_.budget_bytes) +
                   " bytes); caching stops");
      return;
    }
    if (const std::error_code error = segment_->append(item.sample, kind, bytes)) {
      // The segment is dropped whole: nothing of it was published, so nothing corrupt remains.
      segment_->discard();
      segment_.reset();
      stop_caching(store_.folder().string() + ": cannot write: " + error.message() +
                   "; the segment is dropped and caching stops");
      return;
    }
    if (segment_->bytes() >= options_.segment_bytes) publish_locked();
  }
  const double cpu_s = static_cast<double>(thread_cpu_ns() - cpu_start) * 1e-9;
  std::lock_guard lock(mutex_);
  ++(kind == CacheEntryKind::kPacked ? figures_.transcoded : figures_.unchanged);
  figures_.written_bytes += bytes.size();
  figures_.cpu_s += cpu_s;
}

void PackCacheWriter::publish_locked() {
  if (!segment_) return;
  const std::uint64_t bytes = segment_->bytes();
  const bool empty = segment_->entries().empty();
  std::error_code error;
  if (!empty) error = segment_->publish();
  segment_.reset();
  if (empty) return;
  if (error) {
    stop_caching(store_.folder().string() + ": cannot publish a segment: " + error.message() +
                 "; caching stops");
    return;
  }
  unloaded_bytes_ += bytes;
}

void PackCacheWriter::stop_caching(std::string why) {
  stopped_ = true;
  std::lock_guard lock(mutex_);
  cache_warning(std::move(why), figures_.warnings);
}

}  // namespace feedrate
