// Loader: exactly-once delivery per epoch across shuffles, shards and num_workers; the same
// order and pixels for the same seed whatever num_workers; wiring of transforms, layouts, the
// pread fallback, the slot bound and early destruction.
#include "feedrate/loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "decode/image_decoder.h"
#include "feedrate/error.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

constexpr int kImages = 45;
constexpr int kClasses = 4;

class LoaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    paths_ = testing::make_image_folder(dir_->path(), kImages, kClasses);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static LoaderOptions options() {
    LoaderOptions o;
    o.source = dir_->path().string();
    o.batch_size = 8;
    o.transform.size = 32;
    o.transform.resize = 36;
    o.seed = 11;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }

  struct Epoch {
    std::vector<std::uint32_t> indices;
    std::vector<std::int32_t> labels;
    std::vector<std::uint8_t> pixels;
    std::vector<std::size_t> batch_sizes;
  };
  static Epoch run_epoch(Loader& loader, std::uint64_t epoch) {
    Epoch e;
    loader.start_epoch(epoch);
    while (std::optional<Batch> batch = loader.next()) {
      EXPECT_EQ(batch->epoch(), epoch);
      EXPECT_EQ(batch->number(), e.batch_sizes.size());
      e.batch_sizes.push_back(batch->size());
      e.indices.insert(e.indices.end(), batch->indices().begin(), batch->indices().end());
      e.labels.insert(e.labels.end(), batch->labels().begin(), batch->labels().end());
      e.pixels.insert(e.pixels.end(), batch->images_u8().begin(), batch->images_u8().end());
    }
    return e;
  }

  static testing::TempDir* dir_;
  static std::vector<fs::path> paths_;
};

testing::TempDir* LoaderTest::dir_ = nullptr;
std::vector<fs::path> LoaderTest::paths_;

TEST_F(LoaderTest, EveryEpochDeliversEverySampleExactlyOnce) {
  for (int workers : {0, 1, 2, 4}) {
    for (ShuffleMode shuffle : {ShuffleMode::kNone, ShuffleMode::kFull, ShuffleMode::kBlocks}) {
      LoaderOptions o = options();
      o.num_workers = workers;
      o.shuffle = shuffle;
      Loader loader(o);
      ASSERT_EQ(loader.batches_per_epoch(), 6u);
      for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
        const Epoch e = run_epoch(loader, epoch);
        EXPECT_EQ(e.batch_sizes, (std::vector<std::size_t>{8, 8, 8, 8, 8, 5}));
        std::vector<std::uint32_t> sorted = e.indices;
        std::sort(sorted.begin(), sorted.end());
        for (std::uint32_t i = 0; i < kImages; ++i) ASSERT_EQ(sorted[i], i);
        for (std::size_t i = 0; i < e.indices.size(); ++i) {
          // make_image_folder lists class 0's images first, then class 1's, ...
          EXPECT_EQ(e.labels[i], loader.dataset().sample(e.indices[i]).label);
          EXPECT_EQ(paths_[e.indices[i]].parent_path().filename().string(),
                    loader.dataset().classes()[e.labels[i]]);
        }
        if (shuffle == ShuffleMode::kNone) {
          EXPECT_TRUE(std::is_sorted(e.indices.begin(), e.indices.end()));
        }
      }
      EXPECT_EQ(loader.stats().images, 2u * kImages);
    }
  }
}

TEST_F(LoaderTest, ShardsArePaddedOrTrimmedToEqualSizes) {
  // 45 samples on 4 ranks. pad_shards: every rank gets ceil(45 / 4) = 12, the 3 missing places
  // filled by repeating the start of the epoch's order (0, 1, 2 unshuffled). Without it: every
  // rank gets floor(45 / 4) = 11 and the last sample of the order (44 unshuffled) is dropped.
  // Either way no sample reaches two ranks except the padding.
  for (const bool shuffle : {false, true}) {
    for (const bool pad : {true, false}) {
      SCOPED_TRACE(std::string(shuffle ? "shuffled" : "in order") +
                   (pad ? ", pad_shards" : ", tail dropped"));
      std::multiset<std::uint32_t> all;
      for (int rank = 0; rank < 4; ++rank) {
        LoaderOptions o = options();
        o.world_size = 4;
        o.rank = rank;
        o.pad_shards = pad;
        o.shuffle = shuffle ? ShuffleMode::kFull : ShuffleMode::kNone;
        o.num_workers = 2;
        Loader loader(o);
        const Epoch e = run_epoch(loader, 1);
        EXPECT_EQ(e.indices.size(), pad ? 12u : 11u) << "rank " << rank;
        all.insert(e.indices.begin(), e.indices.end());
      }
      const std::set<std::uint32_t> distinct(all.begin(), all.end());
      std::set<std::uint32_t> repeated;
      for (std::uint32_t index : distinct) {
        EXPECT_LE(all.count(index), 2u) << index;
        if (all.count(index) == 2) repeated.insert(index);
      }
      if (pad) {
        EXPECT_EQ(all.size(), 48u);
        EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kImages));
        EXPECT_EQ(repeated.size(), 3u);
        if (!shuffle) {
          EXPECT_EQ(repeated, (std::set<std::uint32_t>{0, 1, 2}));
        }
      } else {
        EXPECT_EQ(all.size(), 44u);
        EXPECT_TRUE(repeated.empty());
        if (!shuffle) {
          EXPECT_EQ(distinct.count(kImages - 1), 0u);
        }
      }
    }
  }
}

TEST_F(LoaderTest, DropLastDropsThePartialBatch) {
  LoaderOptions o = options();
  o.drop_last = true;
  Loader loader(o);
  const Epoch e = run_epoch(loader, 0);
  EXPECT_EQ(e.batch_sizes, (std::vector<std::size_t>(5, 8)));
}

TEST_F(LoaderTest, SameSeedSameOrderAndPixelsWhateverNumWorkers) {
  std::vector<Epoch> runs;
  for (int workers : {0, 1, 2, 4}) {
    LoaderOptions o = options();
    o.num_workers = workers;
    o.prefetch_batches = 1 + static_cast<std::size_t>(workers);
    Loader loader(o);
    runs.push_back(run_epoch(loader, 3));
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].indices, runs[0].indices);
    EXPECT_TRUE(runs[i].pixels == runs[0].pixels) << "run " << i << " differs in pixels";
  }
  // Another epoch or seed changes both order and augmentation.
  LoaderOptions o = options();
  Loader loader(o);
  const Epoch other_epoch = run_epoch(loader, 4);
  EXPECT_NE(other_epoch.indices, runs[0].indices);
  o.seed = 12;
  Loader reseeded(o);
  EXPECT_NE(run_epoch(reseeded, 3).indices, runs[0].indices);
}

TEST_F(LoaderTest, SamplesAreTheDecoderOutputForTheirSeed) {
  for (auto kind : {TransformKind::kTrain, TransformKind::kEval}) {
    LoaderOptions o = options();
    o.transform.kind = kind;
    o.num_workers = 2;
    Loader loader(o);
    const Epoch e = run_epoch(loader, 2);
    decode::ImageDecoder decoder;
    const std::size_t bytes = 32 * 32 * 3;
    std::vector<std::uint8_t> expected(bytes);
    for (std::size_t i = 0; i < e.indices.size(); ++i) {
      const auto jpeg = testing::read_file(paths_[e.indices[i]]);
      ASSERT_TRUE(
          decoder.decode(jpeg, o.transform, decode::sample_seed(o.seed, 2, e.indices[i]), expected)
              .ok());
      ASSERT_TRUE(std::equal(expected.begin(), expected.end(), e.pixels.begin() + i * bytes))
          << "sample " << e.indices[i];
    }
  }
}

TEST_F(LoaderTest, EvalTransformIsTheSameEveryEpoch) {
  LoaderOptions o = options();
  o.transform.kind = TransformKind::kEval;
  o.shuffle = ShuffleMode::kNone;
  Loader loader(o);
  EXPECT_TRUE(run_epoch(loader, 0).pixels == run_epoch(loader, 1).pixels);
  o.transform.kind = TransformKind::kTrain;
  Loader train(o);
  EXPECT_FALSE(run_epoch(train, 0).pixels == run_epoch(train, 1).pixels);
}

TEST_F(LoaderTest, FloatLayoutIsNormalizedCHWOfTheBytes) {
  LoaderOptions o = options();
  Loader bytes_loader(o);
  const Epoch bytes = run_epoch(bytes_loader, 0);
  o.layout = OutputLayout::kFloat32NCHW;
  Loader float_loader(o);
  float_loader.start_epoch(0);
  std::size_t sample = 0;
  const std::size_t pixels = 32 * 32;
  while (std::optional<Batch> batch = float_loader.next()) {
    EXPECT_EQ(batch->shape(),
              (std::vector<std::int64_t>{static_cast<std::int64_t>(batch->size()), 3, 32, 32}));
    EXPECT_THROW(batch->images_u8(), Error);
    const auto f = batch->images_f32();
    for (std::size_t n = 0; n < batch->size(); ++n, ++sample) {
      for (std::size_t p = 0; p < pixels; p += 97) {
        for (int c = 0; c < 3; ++c) {
          const float x = bytes.pixels[(sample * pixels + p) * 3 + c];
          const float expected =
              (x / 255.0f - o.transform.normalization.mean[c]) / o.transform.normalization.std[c];
          ASSERT_NEAR(f[n * 3 * pixels + c * pixels + p], expected, 1e-4);
        }
      }
    }
  }
  EXPECT_EQ(sample, static_cast<std::size_t>(kImages));
}

TEST_F(LoaderTest, PreadFallbackDeliversTheSameBatches) {
  LoaderOptions o = options();
  Loader uring(o);
  o.force_pread = true;
  Loader pread(o);
  EXPECT_EQ(pread.stats().io_backend, "pread");
  EXPECT_FALSE(pread.stats().io_fallback_reason.empty());
  const Epoch a = run_epoch(uring, 0);
  const Epoch b = run_epoch(pread, 0);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_TRUE(a.pixels == b.pixels);
  EXPECT_EQ(pread.stats().bytes_read, pread.dataset().total_bytes());
}

TEST_F(LoaderTest, DirectIoAndThrottleDeliverTheSameBatches) {
  LoaderOptions o = options();
  Loader plain(o);
  o.direct_io = true;
  o.throttle = "nvme";
  Loader direct(o);
  const Epoch a = run_epoch(plain, 0);
  const Epoch b = run_epoch(direct, 0);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_TRUE(a.pixels == b.pixels);
  const RunStats stats = direct.stats();
  EXPECT_NE(stats.io.throttle, "unlimited");
  // O_DIRECT, or buffered reads with the refusal counted where the file system refuses it.
  EXPECT_TRUE(stats.io.backend.find("O_DIRECT") != std::string::npos ||
              stats.io.direct_io_fallbacks > 0)
      << stats.io.backend;
  EXPECT_GT(stats.io.latency_p99_us, 0);
  EXPECT_GE(stats.io.latency_p99_us, stats.io.latency_p50_us);
}

TEST(TarChunks, NearbyMembersAreReadAsOneChunkWithTheSameResult) {
  testing::TempDir dir;
  datagen::DatasetSpec spec;
  spec.out = dir / "shards";
  spec.count = 40;
  spec.classes = 4;
  spec.format = datagen::Format::kTar;
  spec.images_per_shard = 16;
  datagen::make_dataset(spec);
  for (bool shuffle : {false, true}) {
    LoaderOptions o;
    o.source = (dir / "shards").string();
    o.batch_size = 8;
    o.transform.size = 24;
    o.shuffle = shuffle ? ShuffleMode::kFull : ShuffleMode::kNone;
    o.rank = 0;
    o.world_size = 1;
    o.tar_chunk_bytes = 0;  // one read per member
    Loader per_member(o);
    o.tar_chunk_bytes = 1 << 20;
    Loader chunked(o);
    std::vector<std::uint8_t> a, b;
    std::vector<std::int32_t> la, lb;
    while (std::optional<Batch> batch = per_member.next()) {
      a.insert(a.end(), batch->images_u8().begin(), batch->images_u8().end());
      la.insert(la.end(), batch->labels().begin(), batch->labels().end());
    }
    while (std::optional<Batch> batch = chunked.next()) {
      b.insert(b.end(), batch->images_u8().begin(), batch->images_u8().end());
      lb.insert(lb.end(), batch->labels().begin(), batch->labels().end());
    }
    EXPECT_EQ(la, lb);
    EXPECT_TRUE(a == b) << "shuffle " << shuffle;
    EXPECT_EQ(per_member.stats().read_operations, 40u);
    if (!shuffle) {
      // Sequential batches of 8 neighbouring members: one chunk per batch and shard.
      EXPECT_LE(chunked.stats().read_operations, 8u);
    }
  }
}

TEST_F(LoaderTest, HoldingEverySlotIsAnErrorNotAHang) {
  LoaderOptions o = options();
  o.prefetch_batches = 2;
  Loader loader(o);
  std::optional<Batch> first = loader.next();
  std::optional<Batch> second = loader.next();
  ASSERT_TRUE(first && second);
  try {
    loader.next();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("prefetch_batches"), std::string::npos);
  }
  first.reset();
  EXPECT_TRUE(loader.next().has_value());
}

TEST_F(LoaderTest, DestroyingMidEpochWithBatchesHeldIsClean) {
  std::optional<Batch> kept;
  {
    LoaderOptions o = options();
    o.num_workers = 2;
    Loader loader(o);
    loader.start_epoch(0);
    kept = loader.next();
    ASSERT_TRUE(kept.has_value());
  }
  // The batch outlives its loader and stays readable.
  EXPECT_EQ(kept->size(), 8u);
  EXPECT_EQ(kept->images_u8().size(), 8u * 32 * 32 * 3);
  // Restarting an epoch part-way through cancels the rest of it.
  LoaderOptions o = options();
  Loader loader(o);
  loader.start_epoch(0);
  ASSERT_TRUE(loader.next().has_value());
  const Epoch e = run_epoch(loader, 1);
  EXPECT_EQ(e.indices.size(), static_cast<std::size_t>(kImages));
}

TEST_F(LoaderTest, WaitHookRunsWhileWaitingAndItsExceptionLeavesTheEpochIntact) {
  LoaderOptions o = options();
  o.shuffle = ShuffleMode::kNone;
  o.throttle = "1000,100000,20000";  // 20 ms per read: every batch keeps the consumer waiting
  Loader loader(o);
  loader.start_epoch(0);
  struct Interrupted {};
  int calls = 0;
  EXPECT_THROW(loader.next([&] {
    ++calls;
    throw Interrupted{};
  }),
               Interrupted);
  EXPECT_EQ(calls, 1);
  std::vector<std::uint32_t> indices;
  int waits = 0;
  while (std::optional<Batch> batch = loader.next([&] { ++waits; })) {
    indices.insert(indices.end(), batch->indices().begin(), batch->indices().end());
  }
  EXPECT_GT(waits, 0);
  ASSERT_EQ(indices.size(), static_cast<std::size_t>(kImages));
  for (std::uint32_t i = 0; i < kImages; ++i) EXPECT_EQ(indices[i], i);
}

TEST_F(LoaderTest, NextWithoutStartRunsEpochZeroThenEnds) {
  LoaderOptions o = options();
  Loader loader(o);
  std::size_t images = 0;
  while (std::optional<Batch> batch = loader.next()) images += batch->size();
  EXPECT_EQ(images, static_cast<std::size_t>(kImages));
  EXPECT_FALSE(loader.next().has_value());
}

TEST_F(LoaderTest, OptionsAreValidatedByName) {
  auto message = [&](const std::function<void(LoaderOptions&)>& change) -> std::string {
    LoaderOptions o = options();
    change(o);
    try {
      Loader loader(o);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message([](auto& o) { o.batch_size = 0; }).find("batch_size must be in [1, 65536]"),
            std::string::npos);
  EXPECT_NE(message([](auto& o) { o.num_workers = -1; }).find("num_workers"), std::string::npos);
  EXPECT_NE(message([](auto& o) {
              o.rank = 3;
              o.world_size = 2;
            }).find("rank must be in [0, 1]"),
            std::string::npos);
  EXPECT_NE(message([](auto& o) { o.prefetch_batches = 0; }).find("prefetch_batches"),
            std::string::npos);
  EXPECT_NE(message([](auto& o) { o.transform.size = 0; }).find("size"), std::string::npos);
  EXPECT_NE(message([](auto& o) { o.source = "/nonexistent/x"; }).find("/nonexistent/x"),
            std::string::npos);
  EXPECT_NE(message([](auto& o) { o.throttle = "floppy"; }).find("option throttle"),
            std::string::npos);
}

TEST_F(LoaderTest, MemoryBudgetCapsTheSlotsAndRejectsLessThanOneBatch) {
  LoaderOptions o = options();
  o.batch_size = 16;
  o.transform.size = 224;  // 16 x 150 KB of images plus ~20 KB x 1.25 encoded: ~2.8 MB a batch
  o.prefetch_batches = 8;
  o.memory_budget_mb = 6;
  Loader loader(o);
  EXPECT_EQ(loader.options().prefetch_batches, 2u);
  std::size_t images = 0;
  while (std::optional<Batch> batch = loader.next()) images += batch->size();
  EXPECT_EQ(images, static_cast<std::size_t>(kImages));
  o.memory_budget_mb = 1;
  try {
    Loader too_small(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory_budget_mb: 1 MB is too small for one batch"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(LoaderTest, RankAndWorldSizeComeFromTheEnvironment) {
  ::setenv("RANK", "1", 1);
  ::setenv("WORLD_SIZE", "3", 1);
  LoaderOptions o = options();
  o.rank = -1;
  o.world_size = -1;
  Loader loader(o);
  EXPECT_EQ(loader.options().rank, 1);
  EXPECT_EQ(loader.options().world_size, 3);
  EXPECT_EQ(loader.samples_per_epoch(), 15u);
  ::setenv("WORLD_SIZE", "two", 1);
  EXPECT_THROW(Loader bad(o), Error);
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
}

}  // namespace
}  // namespace feedrate
