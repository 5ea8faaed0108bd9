// The remote read-ahead's runner (internal to loader/): a thread of its own that carries out
// what its planner (read_ahead_planner.h, which says what is fetched when and why) decides,
// keeping ranged GETs in flight for the samples the epoch's order names next, ACROSS batches,
// so that the store's time to first byte (tens to hundreds of milliseconds) is paid once per
// request in flight, not once per batch. The I/O thread then takes the samples in order, as it
// reads the batches.
//
// Every GET asks for the object's version the index was built from (If-Match: its ETag), and
// scatters its samples into their own buffers as they arrive (io/remote/fetch_destination.h):
// take() hands each sample's bytes to its caller, who copies them into the batch, the one copy
// after the transfer. Retries are the fetcher's (io/remote/range_fetcher.h); a sample whose GET
// fails for good is delivered as its error ("WHERE: MESSAGE", naming the object), for the
// bad-input policy.
//
// Across epochs: start_epoch() may name the samples the next epoch takes. The next start_epoch()
// keeps what was read ahead when it is given those samples and this epoch was taken to its end;
// otherwise it drops it and starts afresh. The store's figures run on over every epoch either
// way, as the rest of the report does.
//
// With a local-disk cache (loader/cache/remote_mirror.h) the samples it holds are not fetched:
// take() hands them over as `local`, for the I/O thread to read from the disk; every sample
// that arrives is stored there by this thread, before take() sees it.
//
// Thread-safety: start_epoch(), take() and the destructor belong to one thread (the I/O
// thread); stats(), held_bytes() and requests_allowed() may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "feedrate/dataset.h"
#include "io/clock.h"
#include "io/remote/fetch_stats.h"
#include "io/remote/range_fetcher.h"
#include "loader/cache/remote_mirror.h"
#include "loader/dataset/remote_settings.h"
#include "loader/pipeline/read_ahead_planner.h"

namespace feedrate {

class ReadAheadRunner {
 public:
  // `mirror` (may be null) outlives the runner. `window_bytes`: the bytes held at most (the
  // memory budget counts them); `scattered`: the order scatters storage runs over the window
  // (shuffle=blocks). `clock` (outlives the runner) times the fetcher's requests, take()'s waits
  // and the planner's choices: the pipeline's clock.
  ReadAheadRunner(const Dataset& dataset, RemoteSettings settings, std::uint64_t window_bytes,
                  RemoteMirror* mirror, bool scattered = false,
                  io::Clock& clock = io::Clock::real());
  ~ReadAheadRunner();
  ReadAheadRunner(const ReadAheadRunner&) = delete;
  ReadAheadRunner& operator=(const ReadAheadRunner&) = delete;

  // Starts the epoch whose batches take `order` (this rank's samples, in delivery order); `next`:
  // the samples the epoch expected after it takes, to read ahead into (empty: none). Keeps what
  // was read ahead when `order` is the previous call's `next` and all of that epoch was taken;
  // otherwise drops whatever the previous epoch had in flight and reads ahead from order's first.
  void start_epoch(std::vector<std::uint32_t> order, std::vector<std::uint32_t> next = {});

  using Sample = ReadAheadSample;
  using Use = std::function<void(const Sample& sample)>;
  // Waits until the next `count` samples of the order have arrived or failed, hands each to
  // `use` in order (position 0..count-1), then lets their memory go. Throws feedrate::Error when
  // the read-ahead itself failed (libcurl could not start).
  void take(std::size_t count, const Use& use);

  // The fetcher's figures, as of its latest poll.
  io::FetchStats stats() const;
  // The GETs the read-ahead was allowed in flight, on average over the store's busy time so far
  // (in_flight_growth.h).
  double requests_allowed() const;
  // The bytes held now: of samples arrived and not yet taken, and of the GETs in flight.
  std::uint64_t held_bytes() const;
  // Sample buffers made so far (the steady state makes none per sample).
  std::uint64_t buffers_made() const;
  const RemoteSettings& settings() const { return settings_; }
  // The dataset's first object, for its scheme.
  const std::string& first_url() const;

 private:
  void run();
  // Submits what the planner says, while it says so (under mutex_).
  void submit(io::RangeFetcher& fetcher);
  // Stores arrived samples in the mirror, then records the arrivals (mutex_ held by `lock`,
  // released while storing).
  void arrived(std::vector<io::FetchResult>& completed, std::unique_lock<std::mutex>& lock);
  void stop();

  const Dataset& dataset_;
  const RemoteSettings settings_;
  RemoteMirror* const mirror_;
  io::Clock& clock_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  ReadAheadPlanner planner_;
  // Set by start_epoch() for the thread to begin the next epoch with; reset once done.
  std::optional<std::vector<std::uint32_t>> begin_next_;
  bool stopping_ = false;
  std::exception_ptr failure_;
  // The statistics of every thread's fetcher in turn, so that the store's figures cover every
  // epoch, also after a start afresh (the runner's thread only).
  io::FetchMeter meter_;
  io::RangeFetcher* fetcher_ = nullptr;  // the running thread's, for wake()
  std::thread thread_;
};

}  // namespace feedrate
