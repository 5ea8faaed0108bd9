// The pack cache's write side (internal to loader/; see pack_cache.h): samples offered by the
// decode stage, transcoded on a thread of its own and appended to a segment of the cache.
//
// offer() copies a sample's encoded bytes into a bounded queue (queue_bytes) when the sample has
// no entry yet, is not queued, the queue has room and caching has not stopped; otherwise it
// does nothing (the sample may be cached in a later epoch). The writer thread runs at the lowest
// CPU priority (nice 19), so that decoding preempts it, and starts transcodes no faster than
// allowed_transcodes_per_s() (pack_cache_pacing.h) allows, from the run's figures (`counters`)
// over windows of kPacingWindowS (on its options' clock) and its own measured CPU per transcode.
// Each JPEG is transcoded losslessly by decode's packer (decode/jpeg_pack.h, as `feedrate pack`
// does); a JPEG packed already, one the packer declines (libjpeg warns on it, or its index would
// not fit) and other formats are stored as they are.
//
// Segments are published when they reach segment_bytes and by publish(). Caching stops, with a
// warning, when the folder's bytes would pass budget_bytes, when the disk has less than 5% (at
// least 1 GiB) free, or on a write error (a full disk): the segment being written is then
// dropped, never published, so a failure leaves no corrupt entry.
//
// Thread-safety: offer(), publish(), forget() and figures() from any thread; start() and the
// destructor from the owner's (the destructor stops the thread: the queue is dropped, what was
// written is published).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "decode/jpeg_pack.h"
#include "decode/status.h"
#include "io/clock.h"
#include "loader/cache/pacing.h"
#include "loader/cache/segment.h"
#include "loader/cache/store.h"

namespace feedrate {

inline constexpr double kPacingWindowS = 0.25;

struct PackCacheWriterOptions {
  std::uint64_t budget_bytes = 0;  // 0: no cap but the disk's
  std::size_t queue_bytes = std::size_t{32} << 20;
  std::uint64_t segment_bytes = std::uint64_t{64} << 20;
  decode::DecodeLimits limits;
  std::function<PacingCounters()> counters;  // the run's figures, read every window
  SegmentWriteFn write;                      // empty: write_all (tests inject failures)
  // Tests: no pacing (every queued sample is written as fast as the thread goes), and publish()
  // first waits for the queue to empty, so that what an epoch offered is cached by the next.
  bool unpaced = false;
  io::Clock* clock = &io::Clock::real();  // times the pacing; outlives the writer
};

struct PackCacheWriterFigures {
  std::uint64_t transcoded = 0, unchanged = 0;  // entries written
  std::uint64_t written_bytes = 0;              // their bytes
  std::uint64_t declined = 0;                   // offers not queued for lack of room
  double cpu_s = 0;                             // transcoding and writing, this thread's CPU time
  double allowed_per_s = 0;                     // the pacing's last decision
  bool stopped = false;                         // budget, disk or a write error
  std::vector<std::string> warnings;
};

class PackCacheWriter {
 public:
  // `samples`: the dataset's; `store` outlives the writer.
  PackCacheWriter(PackCacheStore& store, std::size_t samples, PackCacheWriterOptions options);
  ~PackCacheWriter();
  PackCacheWriter(const PackCacheWriter&) = delete;
  PackCacheWriter& operator=(const PackCacheWriter&) = delete;

  // Starts the writer thread (once; later calls do nothing). Call it from one thread.
  void start();
  void offer(std::uint32_t sample, std::span<const std::uint8_t> bytes);
  // Publishes the segment being written (waits for the entry being appended, if any).
  void publish();
  // After the store's load(): its samples have entries, so they are not offered again.
  void note_cached(const PackCacheStore& store);
  // A sample whose entry went bad may be cached again.
  void forget(std::uint32_t sample);
  PackCacheWriterFigures figures() const;

 private:
  struct Item {
    std::uint32_t sample = 0;
    std::vector<std::uint8_t> bytes;
  };

  void run();
  // Waits until the pacing allows the next transcode; false when stopping.
  bool pace(std::unique_lock<std::mutex>& lock);
  void write(decode::JpegPacker& packer, Item& item);  // transcode, then append
  void publish_locked();                               // segment_mutex_ held
  void stop_caching(std::string why);

  PackCacheStore& store_;
  const PackCacheWriterOptions options_;
  std::unique_ptr<std::atomic<std::uint8_t>[]> claimed_;  // per sample: has or will have an entry
  const std::size_t samples_;

  mutable std::mutex mutex_;  // the queue and the figures
  std::condition_variable wake_;
  std::deque<Item> queue_;
  std::size_t queued_bytes_ = 0;
  bool stopping_ = false;
  bool writing_ = false;  // an item taken off the queue is being written
  std::condition_variable drained_;
  std::atomic<bool> stopped_{false};
  PackCacheWriterFigures figures_;
  // Pacing (the writer thread, under mutex_).
  io::Clock::time_point window_start_{}, next_start_{};
  PacingCounters window_counters_;

  std::mutex segment_mutex_;
  std::unique_ptr<SegmentWriter> segment_;
  std::uint64_t budget_left_ = 0;     // checked when a segment opens
  std::uint64_t unloaded_bytes_ = 0;  // published since the store's last load()
  std::vector<std::uint8_t> packed_;  // the writer thread's transcode output

  std::thread thread_;
};

}  // namespace feedrate
