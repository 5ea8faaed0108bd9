// Soak (run by `make soak`, not by ctest): for FEEDRATE_SOAK_SECONDS (default 180), loaders with
// random num_workers, batch sizes and prefetch depths over an image folder and tar shards run
// many epochs; some are destroyed part-way through an epoch, some while holding a batch. Checks:
// every full epoch delivers every sample exactly once, a cut-short epoch delivers none twice,
// RSS stays flat across loaders, and no file descriptor outlives its loader. Prints the figures.
#include <dirent.h>
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "feedrate/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using Clock = std::chrono::steady_clock;

long rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

int open_fds() {
  DIR* dir = ::opendir("/proc/self/fd");
  int count = 0;
  while (::readdir(dir) != nullptr) ++count;
  ::closedir(dir);
  return count;
}

// RSS is measured between loaders, after malloc_trim(0), with glibc's cache of thread stacks
// off (`make soak` sets GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0): glibc keeps memory
// freed by many threads in per-thread arenas, and the stacks of exited threads (one I/O thread
// per epoch) up to 40 MB, for reuse. Untrimmed, RSS after full epochs rose from 32 MB at epoch 20
// to 77 MB at epoch 253 of a 200 s soak; trimmed but with the stack cache on, RSS between
// loaders rose from 8.6 to 22.9 MB over 74 loaders; with the cache off it stayed at 8.7-9.0 MB.
// Both are bounded caches of the C library, not leaks (LeakSanitizer finds none); `make soak`
// also caps malloc's arenas at 2. What remains still swings by several MB from loader to loader
// (8-15 MB in a 90 s run, up and down), so the check compares the median RSS of the second half
// of the loaders (after a warm-up of 10) with that of the first half: a leak moves the median
// by half of what it gains over the run, allocator noise does not move it.
constexpr long kRssToleranceKb = 4 * 1024;

long median(std::vector<long> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

TEST(Soak, ManyEpochsRandomWorkersEarlyDestruction) {
  const char* env = std::getenv("FEEDRATE_SOAK_SECONDS");
  const double seconds = env ? std::atof(env) : 180;
  testing::TempDir dir;
  const int images = 150;
  testing::make_image_folder(dir / "folder", images, 5);
  datagen::DatasetSpec spec;
  spec.out = dir / "shards";
  spec.count = images;
  spec.classes = 5;
  spec.format = datagen::Format::kTar;
  spec.images_per_shard = 40;
  datagen::make_dataset(spec);

  std::mt19937_64 rng(2026);
  const auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  const int fds_before = open_fds();
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  std::uint64_t loaders = 0, full_epochs = 0, cut_epochs = 0, samples = 0;
  long last_rss = -1, peak_rss = 0;
  std::vector<long> rss_between;  // from the 11th loader on
  while (Clock::now() < end) {
    LoaderOptions o;
    o.source = ((loaders % 2 == 0) ? dir / "folder" : dir / "shards").string();
    o.num_workers = pick(0, 4);
    o.batch_size = static_cast<std::size_t>(pick(1, 32));
    o.prefetch_batches = static_cast<std::size_t>(pick(2, 5));
    o.transform.size = 48;
    o.seed = rng();
    o.rank = 0;
    o.world_size = 1;
    ++loaders;
    std::optional<Batch> outlives;
    {
      Loader loader(o);
      const int epochs = pick(1, 4);
      for (int epoch = 0; epoch < epochs; ++epoch) {
        // One epoch in five stops part-way: at a random batch, keeping that batch.
        const bool cut = pick(0, 4) == 0;
        const std::size_t stop_at = static_cast<std::size_t>(pick(0, 4));
        std::multiset<std::uint32_t> seen;
        loader.start_epoch(static_cast<std::uint64_t>(epoch));
        std::size_t number = 0;
        while (std::optional<Batch> batch = loader.next()) {
          seen.insert(batch->indices().begin(), batch->indices().end());
          samples += batch->size();
          if (cut && number++ == stop_at) {
            outlives = std::move(batch);
            break;
          }
        }
        ASSERT_EQ(std::set<std::uint32_t>(seen.begin(), seen.end()).size(), seen.size())
            << "a sample delivered twice in epoch " << epoch << " of loader " << loaders;
        if (cut) {
          ++cut_epochs;
          break;  // destroyed mid-epoch, with `outlives` held
        }
        ASSERT_EQ(seen.size(), static_cast<std::size_t>(images)) << "loader " << loaders;
        ++full_epochs;
        peak_rss = std::max(peak_rss, rss_kb());
      }
    }
    if (outlives) {
      EXPECT_GT(outlives->size(), 0u);
    }
    outlives.reset();
    ASSERT_EQ(open_fds(), fds_before) << "file descriptors leaked by loader " << loaders;
    // What the process keeps between loaders, without the free memory malloc holds on to.
    malloc_trim(0);
    last_rss = rss_kb();
    if (loaders > 10) rss_between.push_back(last_rss);  // after warm-up (TBB's pool, page cache)
    if (loaders % 25 == 0) {
      std::printf("soak: %llu loaders, %llu full epochs, RSS between loaders %.1f MB\n",
                  static_cast<unsigned long long>(loaders),
                  static_cast<unsigned long long>(full_epochs), last_rss / 1024.0);
    }
  }
  ASSERT_GE(rss_between.size(), 10u) << "too short a soak to judge RSS";
  const std::size_t half = rss_between.size() / 2;
  const long first_half = median({rss_between.begin(), rss_between.begin() + half});
  const long second_half = median({rss_between.begin() + half, rss_between.end()});
  std::printf(
      "soak: %.0f s, %llu loaders, %llu full epochs, %llu cut short, %llu samples; median RSS "
      "between loaders %.1f MB in the first half, %.1f MB in the second (last %.1f MB); peak RSS "
      "during epochs %.1f MB; open fds %d before and after\n",
      seconds, static_cast<unsigned long long>(loaders),
      static_cast<unsigned long long>(full_epochs), static_cast<unsigned long long>(cut_epochs),
      static_cast<unsigned long long>(samples), first_half / 1024.0, second_half / 1024.0,
      last_rss / 1024.0, peak_rss / 1024.0, open_fds());
  EXPECT_LE(second_half, first_half + kRssToleranceKb) << "RSS grew across loaders";
}

}  // namespace
}  // namespace feedrate
