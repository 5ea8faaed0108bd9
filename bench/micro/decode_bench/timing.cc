#include "bench/micro/decode_bench/timing.h"

#include <algorithm>

namespace feedrate::decode_bench {

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

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double harmonic(const std::vector<double>& per_image) {
  double seconds = 0;
  for (double r : per_image) seconds += 1 / r;
  return static_cast<double>(per_image.size()) / seconds;
}

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

}  // namespace feedrate::decode_bench
