// The process's limit on TBB worker threads while loaders need more than TBB's default (internal
// to loader/). TBB's pool defaults to one thread per core, counting the caller; a loader's
// num_workers may ask for more (I/O-bound runs), and none of its arena's threads is the caller.
// A tbb::global_control raises the limit, but while several exist TBB applies the smallest, and
// the limit falls back when the one that raised it is destroyed: a second Loader made while the
// first lived would lose its workers when the first went ("TBB Warning: The number of workers
// is currently limited to 1"). So one control, owned here, holds the largest need of the
// ThreadLimit objects alive, and follows it as they come and go.
//
// Thread-safety: construct and destroy ThreadLimit objects from any thread.
#pragma once

#include <cstddef>

namespace feedrate {

class ThreadLimit {
 public:
  // Keeps TBB's max_allowed_parallelism at `threads` or more while this object lives.
  explicit ThreadLimit(std::size_t threads);
  ~ThreadLimit();
  ThreadLimit(const ThreadLimit&) = delete;
  ThreadLimit& operator=(const ThreadLimit&) = delete;

 private:
  const std::size_t threads_;
};

}  // namespace feedrate
