// feedrate-io-bench's vocabulary (bench/micro/io_bench/main.cc says what the program does):
// the I/O a measurement runs (Job), how long a run reads (Budget), the file and settings every
// run shares (Setup), the offsets it reads at (Offsets) and a run's outcome (Run).
// Thread-safety: plain values; an Offsets is used by one thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>

namespace feedrate::io_bench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = kKiB * kKiB;
constexpr std::uint64_t kSeed = 0x5eed'f00d;  // every run reads the same offsets

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// How long each run reads: `bytes` when non-zero, else `seconds`.
struct Budget {
  double seconds = 0;
  std::uint64_t bytes = 0;

  bool spent(std::uint64_t done, double elapsed) const {
    return bytes > 0 ? done >= bytes : elapsed >= seconds;
  }
  // Requests in the next batch: `batch`, fewer at the end of a byte budget.
  std::size_t next_batch(std::uint64_t done, std::size_t block, std::size_t batch) const {
    if (bytes == 0) return batch;
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(batch, (bytes - done + block - 1) / block));
  }
};

enum class Pattern { kRandom, kSequential };

// The I/O that every contender of a measurement runs.
struct Job {
  Pattern pattern = Pattern::kRandom;
  std::size_t block = 0;
  unsigned depth = 1;
  bool direct = false;
};

// "O_DIRECT random 128 KiB, qd 32".
std::string describe(const Job& job);

// What every run needs to know.
struct Setup {
  fs::path path;
  std::uint64_t file_bytes = 0;
  Budget budget;
  std::size_t batch = 0;
  std::string fio;          // the executable; empty when not found
  std::string fio_version;  // "fio-3.33"
};

// Block-aligned offsets into a file of `blocks` blocks: uniform from kSeed, or in order,
// starting over at the end of the file.
class Offsets {
 public:
  Offsets(Pattern pattern, std::uint64_t blocks, std::size_t block)
      : pattern_(pattern), block_(block), blocks_(blocks), pick_(0, blocks - 1) {}

  std::uint64_t next() {
    if (pattern_ == Pattern::kRandom) return pick_(random_) * block_;
    const std::uint64_t offset = next_ * block_;
    next_ = (next_ + 1) % blocks_;
    return offset;
  }

 private:
  Pattern pattern_;
  std::size_t block_;
  std::uint64_t blocks_;
  std::uint64_t next_ = 0;
  std::mt19937_64 random_{kSeed};
  std::uniform_int_distribution<std::uint64_t> pick_;
};

// The outcome of one run.
struct Run {
  std::optional<double> mb_per_s;  // empty when the run failed or could not start
  std::string detail;              // how it read, or why it failed
};

// Destination buffers for `batch` requests of `block` bytes, touched so that page faults

}  // namespace feedrate::io_bench
