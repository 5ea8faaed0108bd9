// The pack cache (loader/cache/pack_cache.h): cached runs deliver the uncached batches byte for
// byte across epochs and worker counts; a changed source invalidates the cache; a corrupt or cut
// short segment falls back to the source with a warning; loaders share one cache folder
// concurrently; failed writes (a full disk, through a test double) and a tiny cache_gb leave no
// corrupt cache. The writer runs unpaced here (PackCacheHooks::unpaced), so that what an epoch
// offers is cached by the next one whatever the machine's speed; the pacing decision itself is
// tested as a function.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

#include "decode/transform_text.h"
#include "loader/cache/pacing.h"
#include "loader/cache/segment.h"
#include "loader/pipeline/pipeline.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

constexpr int kImages = 24;

struct Epoch {
  std::vector<std::uint32_t> indices;
  std::vector<std::int32_t> labels;
  std::vector<std::uint8_t> pixels;
  bool operator==(const Epoch&) const = default;
};

Epoch run_epoch(Pipeline& pipeline, std::uint64_t epoch) {
  Epoch e;
  pipeline.start_epoch(epoch);
  while (std::optional<Batch> batch = pipeline.next()) {
    e.indices.insert(e.indices.end(), batch->indices().begin(), batch->indices().end());
    e.labels.insert(e.labels.end(), batch->labels().begin(), batch->labels().end());
    e.pixels.insert(e.pixels.end(), batch->images_u8().begin(), batch->images_u8().end());
  }
  return e;
}

std::vector<Epoch> run_epochs(Pipeline& pipeline, int epochs) {
  std::vector<Epoch> all;
  for (int epoch = 0; epoch < epochs; ++epoch) all.push_back(run_epoch(pipeline, epoch));
  return all;
}

bool any_warning_contains(const CacheFigures& cache, const std::string& text) {
  for (const std::string& warning : cache.warnings) {
    if (warning.find(text) != std::string::npos) return true;
  }
  return false;
}

std::vector<fs::path> files_ending(const fs::path& folder, const std::string& suffix) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().string().ends_with(suffix)) found.push_back(entry.path());
  }
  return found;
}

class PackCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { paths_ = testing::make_image_folder(source_.path(), kImages, 3); }

  LoaderOptions options(int workers = 2) const {
    LoaderOptions o;
    o.source = source_.path().string();
    o.batch_size = 5;
    o.num_workers = workers;
    o.transform.size = 32;
    o.seed = 7;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  LoaderOptions cached(int workers = 2) const {
    LoaderOptions o = options(workers);
    o.cache_dir = cache_.path().string();
    return o;
  }
  static PackCacheHooks unpaced() {
    PackCacheHooks hooks;
    hooks.unpaced = true;
    return hooks;
  }
  std::vector<Epoch> uncached_epochs(int epochs, LoaderOptions o) const {
    Pipeline pipeline(o);
    return run_epochs(pipeline, epochs);
  }
  // Fills the cache: every sample offered in epoch 0 is cached when epoch 1 starts.
  fs::path fill_cache() const {
    Pipeline pipeline(cached(), {}, unpaced());
    run_epochs(pipeline, 2);
    EXPECT_EQ(pipeline.report().cache.samples, static_cast<std::uint64_t>(kImages));
    return pipeline.report().cache.folder;
  }

  testing::TempDir source_, cache_;
  std::vector<fs::path> paths_;
};

TEST_F(PackCacheTest, CachedRunsDeliverTheUncachedBatchesWhateverTheWorkers) {
  const std::vector<Epoch> reference = uncached_epochs(3, options());
  for (int workers : {0, 1, 2}) {
    SCOPED_TRACE("num_workers " + std::to_string(workers));
    testing::TempDir cache_dir;
    LoaderOptions o = options(workers);
    o.cache_dir = cache_dir.path().string();
    Pipeline pipeline(o, {}, unpaced());
    for (int epoch = 0; epoch < 3; ++epoch) {
      EXPECT_TRUE(run_epoch(pipeline, epoch) == reference[epoch]) << "epoch " << epoch;
      const CacheFigures cache = pipeline.report().cache;
      // Epoch 0 reads the source and caches every sample; later epochs read them all cached.
      EXPECT_EQ(cache.hits, static_cast<std::uint64_t>(epoch * kImages));
      EXPECT_EQ(cache.misses, static_cast<std::uint64_t>(kImages));
    }
    const CacheFigures cache = pipeline.report().cache;
    EXPECT_TRUE(cache.enabled);
    EXPECT_EQ(cache.samples, static_cast<std::uint64_t>(kImages));
    EXPECT_EQ(cache.transcoded, static_cast<std::uint64_t>(kImages));  // all JPEGs, all packed
    EXPECT_EQ(cache.fallbacks, 0u);
    EXPECT_TRUE(cache.warnings.empty());
    EXPECT_GT(cache.bytes, 0u);
    EXPECT_GT(cache.cpu_s, 0);
    EXPECT_DOUBLE_EQ(cache.hit_rate, 2.0 / 3.0);
  }
}

TEST_F(PackCacheTest, ShardsAndOtherFormatsMatchTheUncachedBatchesToo) {
  // Tar shards (cached samples read apart from the source's chunks) and a folder of every
  // format: JPEGs are transcoded, the others stored as they are.
  for (const bool mixed : {false, true}) {
    SCOPED_TRACE(mixed ? "mixed formats" : "tar shards");
    testing::TempDir data, cache_dir;
    datagen::DatasetSpec spec;
    spec.out = data.path() / "set";
    spec.count = 14;
    spec.classes = 2;
    spec.format = mixed ? datagen::Format::kFolder : datagen::Format::kTar;
    spec.images_per_shard = 5;
    spec.mixed_formats = mixed;
    spec.threads = 1;
    datagen::make_dataset(spec);
    LoaderOptions o = options();
    o.source = spec.out.string();
    const std::vector<Epoch> reference = uncached_epochs(2, o);
    o.cache_dir = cache_dir.path().string();
    Pipeline pipeline(o, {}, unpaced());
    EXPECT_TRUE(run_epochs(pipeline, 2) == reference);
    const CacheFigures cache = pipeline.report().cache;
    EXPECT_EQ(cache.hits, 14u);
    EXPECT_GT(cache.transcoded, 0u);
    EXPECT_EQ(cache.unchanged > 0, mixed);
  }
}

TEST_F(PackCacheTest, EveryTransformGivesTheUncachedBatches) {
  // Packed JPEGs decode only the intervals around a crop: eval's centre crop, bicubic's wider
  // filter and the pixel steps after the crop see the same pixels as from the original.
  for (const char* text : {"eval", "rrc(32,interp=bicubic),hflip,ta_wide,erase(0.5)",
                           "resize(40,interp=bicubic),center_crop(32),jitter(0.4,0.4,0.4,0.1)"}) {
    SCOPED_TRACE(text);
    LoaderOptions o = options();
    ASSERT_EQ(decode::parse_transform(text, 32, o.transform), "");
    const std::vector<Epoch> reference = uncached_epochs(2, o);
    testing::TempDir cache_dir;
    o.cache_dir = cache_dir.path().string();
    Pipeline pipeline(o, {}, unpaced());
    EXPECT_TRUE(run_epochs(pipeline, 2) == reference);
    EXPECT_EQ(pipeline.report().cache.hits, static_cast<std::uint64_t>(kImages));
  }
}

TEST_F(PackCacheTest, PacedCachingDeliversTheUncachedBatches) {
  // The real pacing (how much it caches depends on the machine's speed: not asserted).
  const std::vector<Epoch> reference = uncached_epochs(3, options());
  Pipeline pipeline(cached());
  EXPECT_TRUE(run_epochs(pipeline, 3) == reference);
  const CacheFigures cache = pipeline.report().cache;
  EXPECT_EQ(cache.hits + cache.misses, 3u * kImages);
  EXPECT_TRUE(cache.warnings.empty());
}

TEST_F(PackCacheTest, ResumedStateIsTheSameWithTheCache) {
  // The cache changes where bytes come from, not the state: a state saved in a cached run
  // resumes an uncached one exactly.
  const std::vector<Epoch> reference = uncached_epochs(2, options());
  fill_cache();
  Pipeline pipeline(cached(), {}, unpaced());
  pipeline.start_epoch(1);
  ASSERT_TRUE(pipeline.next().has_value());
  const LoaderState state = pipeline.state();
  Pipeline resumed(options());
  resumed.load_state(state, false);
  Epoch rest;
  while (std::optional<Batch> batch = resumed.next()) {
    rest.indices.insert(rest.indices.end(), batch->indices().begin(), batch->indices().end());
  }
  EXPECT_EQ(rest.indices, std::vector<std::uint32_t>(reference[1].indices.begin() + 5,
                                                     reference[1].indices.end()));
}

TEST_F(PackCacheTest, AChangedSourceInvalidatesTheCache) {
  const fs::path old_folder = fill_cache();
  // Another image under the same name: size, mtime and content change.
  testing::write_file(paths_[5], testing::small_jpeg(999, 80, 60));
  Pipeline pipeline(cached(), {}, unpaced());
  EXPECT_EQ(pipeline.report().cache.samples, 0u);
  EXPECT_FALSE(fs::exists(old_folder));  // retired: no other loader held it
  EXPECT_NE(pipeline.report().cache.folder, old_folder.string());
  const std::vector<Epoch> reference = uncached_epochs(2, options());
  EXPECT_TRUE(run_epochs(pipeline, 2) == reference);
}

TEST_F(PackCacheTest, ACorruptEntryFallsBackToTheSourceWithAWarning) {
  const fs::path folder = fill_cache();
  const std::vector<fs::path> data = files_ending(folder, ".dat");
  ASSERT_FALSE(data.empty());
  {
    // Flip bytes in the middle of the first data file: its size, so its index, still checks.
    std::fstream file(data[0], std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(data[0]) / 2));
    file.write("\xde\xad\xbe\xef", 4);
  }
  const std::vector<Epoch> reference = uncached_epochs(2, options());
  Pipeline pipeline(cached(), {}, unpaced());
  EXPECT_TRUE(run_epoch(pipeline, 0) == reference[0]);
  const CacheFigures cache = pipeline.report().cache;
  EXPECT_GE(cache.fallbacks, 1u);
  EXPECT_TRUE(any_warning_contains(cache, "checksum mismatch"))
      << ::testing::PrintToString(cache.warnings);
  EXPECT_EQ(cache.hits + cache.fallbacks, static_cast<std::uint64_t>(kImages));
  // The samples that fell back were cached again, and win over the bad entries.
  EXPECT_TRUE(run_epoch(pipeline, 1) == reference[1]);
  EXPECT_EQ(pipeline.report().cache.fallbacks, cache.fallbacks);
  EXPECT_EQ(pipeline.report().cache.samples, static_cast<std::uint64_t>(kImages));
}

TEST_F(PackCacheTest, ACutShortSegmentIsRemovedWithAWarning) {
  const fs::path folder = fill_cache();
  for (const fs::path& data : files_ending(folder, ".dat")) {
    fs::resize_file(data, fs::file_size(data) - 100);
  }
  Pipeline pipeline(cached(), {}, unpaced());
  const CacheFigures cache = pipeline.report().cache;
  EXPECT_EQ(cache.samples, 0u);
  EXPECT_TRUE(any_warning_contains(cache, "cut short")) << ::testing::PrintToString(cache.warnings);
  EXPECT_TRUE(files_ending(folder, ".dat").empty());
  EXPECT_TRUE(files_ending(folder, ".idx").empty());
  EXPECT_TRUE(run_epoch(pipeline, 0) == uncached_epochs(1, options())[0]);
}

TEST_F(PackCacheTest, TwoRanksShareOneCacheFolderConcurrently) {
  std::vector<std::vector<Epoch>> reference;
  for (int rank = 0; rank < 2; ++rank) {
    LoaderOptions o = options();
    o.rank = rank;
    o.world_size = 2;
    reference.push_back(uncached_epochs(3, o));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      LoaderOptions o = cached();
      o.rank = rank;
      o.world_size = 2;
      Pipeline pipeline(o, {}, unpaced());
      if (!(run_epochs(pipeline, 3) == reference[rank])) ++mismatches;
    });
  }
  for (std::thread& rank : ranks) rank.join();
  EXPECT_EQ(mismatches, 0);
  // A third loader finds every sample cached by one rank or the other, and nothing broken.
  Pipeline pipeline(cached(), {}, unpaced());
  const CacheFigures cache = pipeline.report().cache;
  EXPECT_EQ(cache.samples, static_cast<std::uint64_t>(kImages));
  EXPECT_TRUE(cache.warnings.empty()) << ::testing::PrintToString(cache.warnings);
  EXPECT_TRUE(run_epoch(pipeline, 0) == uncached_epochs(1, options())[0]);
  EXPECT_EQ(pipeline.report().cache.hits, static_cast<std::uint64_t>(kImages));
  EXPECT_TRUE(files_ending(cache.folder, ".tmp").empty());
}

TEST_F(PackCacheTest, AFullDiskLeavesNoCorruptCache) {
  // The third write fails as a full disk does: the segment is dropped and caching stops.
  PackCacheHooks hooks = unpaced();
  auto writes = std::make_shared<std::atomic<int>>(0);
  hooks.write = [writes](int fd, const void* data, std::size_t size) {
    if (++*writes >= 3) return std::error_code(ENOSPC, std::generic_category());
    return write_all(fd, data, size);
  };
  const std::vector<Epoch> reference = uncached_epochs(2, options());
  fs::path folder;
  {
    Pipeline pipeline(cached(), {}, hooks);
    EXPECT_TRUE(run_epochs(pipeline, 2) == reference);
    const CacheFigures cache = pipeline.report().cache;
    EXPECT_TRUE(cache.stopped);
    EXPECT_TRUE(any_warning_contains(cache, std::strerror(ENOSPC)))
        << ::testing::PrintToString(cache.warnings);
    EXPECT_EQ(cache.samples, 0u);
    folder = cache.folder;
  }
  EXPECT_TRUE(files_ending(folder, ".tmp").empty());
  EXPECT_TRUE(files_ending(folder, ".dat").empty());
  Pipeline pipeline(cached(), {}, unpaced());
  EXPECT_TRUE(pipeline.report().cache.warnings.empty());
  EXPECT_TRUE(run_epochs(pipeline, 2) == reference);
}

TEST_F(PackCacheTest, ATinyBudgetStopsCachingWithinIt) {
  LoaderOptions o = cached();
  o.cache_gb = 20e-6;  // 20,000 bytes: a few of the small packed JPEGs
  Pipeline pipeline(o, {}, unpaced());
  EXPECT_TRUE(run_epochs(pipeline, 3) == uncached_epochs(3, options()));
  const CacheFigures cache = pipeline.report().cache;
  EXPECT_TRUE(cache.stopped);
  EXPECT_TRUE(any_warning_contains(cache, "cache_gb reached"))
      << ::testing::PrintToString(cache.warnings);
  EXPECT_GT(cache.samples, 0u);
  EXPECT_LE(cache.disk_bytes, 20'000u);
  EXPECT_LT(cache.samples, static_cast<std::uint64_t>(kImages));
}

TEST(PackCachePacing, TakesTheHeadroomAboveDeliveryLessAMargin) {
  Headroom h;
  h.delivered_images_per_s = 700;
  h.cpu_images_per_s = 1000;
  h.decode_cpu_s_per_image = 0.002;
  h.transcode_cpu_s_per_image = 0.008;
  // (0.9 x 1000 - 700) images/s of decode CPU, each 1/4 of a transcode.
  EXPECT_DOUBLE_EQ(allowed_transcodes_per_s(h), 50);
}

TEST(PackCachePacing, ACpuBoundRunGivesUpOnlyTheLossBudget) {
  Headroom h;
  h.delivered_images_per_s = 1000;
  h.cpu_images_per_s = 1000;
  h.decode_cpu_s_per_image = 0.002;
  h.transcode_cpu_s_per_image = 0.008;
  EXPECT_DOUBLE_EQ(allowed_transcodes_per_s(h), kPacingLossBudget * 1000 / 4);
}

TEST(PackCachePacing, NothingIsAllowedBeforeAnythingIsMeasured) {
  Headroom h;
  h.delivered_images_per_s = 700;
  h.cpu_images_per_s = 1000;
  h.decode_cpu_s_per_image = 0.002;
  EXPECT_EQ(allowed_transcodes_per_s(h), 0);  // no transcode measured yet
  EXPECT_EQ(allowed_transcodes_per_s(Headroom{}), 0);
}

TEST(PackCachePacing, HeadroomComesFromTheWindowBetweenTwoReadings) {
  PacingCounters before{10, 1000, 4, 1100, 2};
  PacingCounters after{12, 2400, 6, 2500, 2};
  const Headroom h = headroom_between(before, after, 0.005);
  EXPECT_DOUBLE_EQ(h.delivered_images_per_s, 700);  // 1,400 images in 2 s
  EXPECT_DOUBLE_EQ(h.decode_cpu_s_per_image, 2.0 / 1400);
  EXPECT_DOUBLE_EQ(h.cpu_images_per_s, 1400);  // 2 cores / (2 s / 1,400)
  EXPECT_DOUBLE_EQ(h.transcode_cpu_s_per_image, 0.005);
  EXPECT_EQ(headroom_between(after, after, 0.005).delivered_images_per_s, 0);
  // Where the capacity model measured the CPU, its capacity is C.
  after.cpu_capacity_images_per_s = 1800;
  EXPECT_DOUBLE_EQ(headroom_between(before, after, 0.005).cpu_images_per_s, 1800);
}

TEST(PackCacheSegment, StaleFilesGoOnlyOnceTheirWriterIsGone) {
  testing::TempDir folder;
  std::error_code error;
  {
    SegmentWriter dead(folder.path(), "seg-dead", {}, error);
    ASSERT_FALSE(error);
    ASSERT_FALSE(dead.append(3, CacheEntryKind::kUnchanged, std::vector<std::uint8_t>(10, 1)));
    // A crash: the file stays, its lock goes with the process. Simulated by keeping a copy.
    fs::copy_file(folder / "seg-dead.dat.tmp", folder / "seg-crashed.dat.tmp");
  }
  SegmentWriter live(folder.path(), "seg-live", {}, error);
  ASSERT_FALSE(error);
  EXPECT_EQ(remove_stale_files(folder.path()), 1u);
  EXPECT_FALSE(fs::exists(folder / "seg-crashed.dat.tmp"));
  EXPECT_TRUE(fs::exists(folder / "seg-live.dat.tmp"));

  ASSERT_FALSE(live.append(4, CacheEntryKind::kUnchanged, std::vector<std::uint8_t>(7, 2)));
  ASSERT_FALSE(live.publish());
  SegmentIndex index;
  EXPECT_EQ(read_segment_index(folder / "seg-live.idx", 10, index), "");
  ASSERT_EQ(index.entries.size(), 1u);
  EXPECT_EQ(index.entries[0].sample, 4u);
  EXPECT_EQ(index.entries[0].size, 7u);
  EXPECT_EQ(index.entries[0].checksum, entry_checksum(std::vector<std::uint8_t>(7, 2)));
  // A sample beyond the dataset does not check.
  EXPECT_NE(read_segment_index(folder / "seg-live.idx", 4, index), "");
  EXPECT_EQ(remove_stale_files(folder.path()), 0u);
}

}  // namespace
}  // namespace feedrate
