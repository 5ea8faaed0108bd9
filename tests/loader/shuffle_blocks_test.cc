// shuffle=blocks on tar shards: every sample once per epoch on one rank and over ranks, the same
// pixels per sample as storage order, each block read whole exactly once per epoch, the order a
// pure function of (seed, epoch, rank, world size) whatever num_workers, exact resume at the same
// world size and every sample once at another.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench/datagen/datagen.h"
#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "feedrate/loader_state.h"
#include "loader/pipeline/block_store.h"
#include "loader/pipeline/sampler.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

constexpr int kImages = 60;

struct Delivered {
  std::vector<std::uint32_t> indices;
  std::vector<std::vector<std::uint8_t>> pixels;  // per batch
  std::map<std::uint32_t, std::vector<std::uint8_t>> by_index;
};

void take(Loader& loader, Delivered& out, std::size_t batches = SIZE_MAX) {
  for (std::size_t b = 0; b < batches; ++b) {
    std::optional<Batch> batch = loader.next();
    if (!batch) return;
    out.indices.insert(out.indices.end(), batch->indices().begin(), batch->indices().end());
    out.pixels.emplace_back(batch->images_u8().begin(), batch->images_u8().end());
    const std::size_t per_image = batch->images_u8().size() / batch->size();
    for (std::size_t i = 0; i < batch->size(); ++i) {
      const auto begin = batch->images_u8().begin() + static_cast<std::ptrdiff_t>(i * per_image);
      out.by_index[batch->indices()[i]].assign(begin,
                                               begin + static_cast<std::ptrdiff_t>(per_image));
    }
  }
}

class ShuffleBlocksTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    datagen::DatasetSpec spec;
    spec.out = dir_->path() / "shards";
    spec.count = kImages;
    spec.classes = 4;
    spec.class_order = true;
    spec.format = datagen::Format::kTar;
    spec.images_per_shard = 25;
    datagen::make_dataset(spec);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static LoaderOptions options(ShuffleMode mode, int workers = 2, int rank = 0, int world = 1) {
    LoaderOptions o;
    o.source = (dir_->path() / "shards").string();
    o.batch_size = 8;
    o.transform.size = 16;
    o.transform.resize = 18;
    o.seed = 9;
    o.num_workers = workers;
    o.rank = rank;
    o.world_size = world;
    o.shuffle = mode;
    o.tar_chunk_bytes = 256 << 10;  // blocks of a few members
    o.shuffle_window_mb = 1;        // windows of 3 blocks
    return o;
  }
  static testing::TempDir* dir_;
};
testing::TempDir* ShuffleBlocksTest::dir_ = nullptr;

TEST_F(ShuffleBlocksTest, EverySampleOnceWithStorageOrdersPixelsAndEachBlockReadOnce) {
  Loader in_order(options(ShuffleMode::kNone));
  Delivered reference;
  in_order.start_epoch(1);
  take(in_order, reference);

  Loader blocks(options(ShuffleMode::kBlocks));
  const std::vector<std::uint32_t> block_starts = blocks_of(blocks.dataset(), blocks.options());
  const std::size_t block_total = block_starts.size();
  ASSERT_GT(block_total, 6u) << "the test needs several windows";
  // Every block is read once, those of the first window in kFirstWindowParts parts.
  SamplerOptions sampler;
  sampler.shuffle = ShuffleMode::kBlocks;
  sampler.seed = blocks.options().seed;
  sampler.block_starts = block_starts;
  sampler.window_blocks = window_blocks_of(blocks.options());
  const std::size_t units_1 = epoch_read_units(kImages, sampler, 1).size();
  const std::size_t units_2 = epoch_read_units(kImages, sampler, 2).size();
  EXPECT_GT(units_1, block_total);
  Delivered first, second;
  blocks.start_epoch(1);
  take(blocks, first);
  const std::uint64_t reads_per_epoch = blocks.stats().read_operations;
  blocks.start_epoch(2);
  take(blocks, second);

  std::vector<std::uint32_t> sorted = first.indices;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted.size(), static_cast<std::size_t>(kImages));
  for (std::uint32_t i = 0; i < kImages; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_FALSE(std::is_sorted(first.indices.begin(), first.indices.end()));
  EXPECT_NE(first.indices, second.indices);
  EXPECT_EQ(first.by_index, reference.by_index);  // pixels are a function of (seed, epoch, sample)
  EXPECT_EQ(reads_per_epoch, units_1);            // each read unit whole, once
  EXPECT_EQ(blocks.stats().read_operations, units_1 + units_2);
}

TEST_F(ShuffleBlocksTest, OrderIsAPureFunctionWhateverTheWorkers) {
  Delivered a, b;
  Loader zero(options(ShuffleMode::kBlocks, 0));
  zero.start_epoch(3);
  take(zero, a);
  Loader four(options(ShuffleMode::kBlocks, 4));
  four.start_epoch(3);
  take(four, b);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.pixels, b.pixels);
}

TEST_F(ShuffleBlocksTest, RanksCoverTheEpochOnceWithEqualShards) {
  for (const bool pad : {true, false}) {
    std::multiset<std::uint32_t> all;
    std::set<std::size_t> lengths;
    for (int rank = 0; rank < 7; ++rank) {
      LoaderOptions o = options(ShuffleMode::kBlocks, 1, rank, 7);
      o.pad_shards = pad;
      Loader loader(o);
      Delivered mine;
      loader.start_epoch(0);
      take(loader, mine);
      lengths.insert(mine.indices.size());
      all.insert(mine.indices.begin(), mine.indices.end());
    }
    // 60 samples on 7 ranks: 9 each with padding (3 repeated), 8 each without (4 dropped).
    EXPECT_EQ(lengths, (std::set<std::size_t>{pad ? 9u : 8u}));
    EXPECT_EQ(all.size(), pad ? 63u : 56u);
    EXPECT_EQ(std::set<std::uint32_t>(all.begin(), all.end()).size(), pad ? 60u : 56u);
  }
}

TEST_F(ShuffleBlocksTest, ResumesExactlyAtTheSameWorldSizeAndOnceAtAnother) {
  Loader whole(options(ShuffleMode::kBlocks));
  Delivered uninterrupted;
  whole.start_epoch(1);
  take(whole, uninterrupted);

  Loader first(options(ShuffleMode::kBlocks, 1));
  first.start_epoch(1);
  Delivered head;
  take(first, head, 3);
  const LoaderState saved = LoaderState::from_json(first.state().to_json());
  EXPECT_EQ(saved.shuffle, "blocks");
  EXPECT_EQ(saved.block_bytes, 256u << 10);
  EXPECT_EQ(saved.window_blocks, 3u);

  Loader resumed(options(ShuffleMode::kBlocks, 3));
  resumed.load_state(saved);
  Delivered rest;
  resumed.start_epoch(1);
  take(resumed, rest);
  ASSERT_EQ(head.pixels.size() + rest.pixels.size(), uninterrupted.pixels.size());
  for (std::size_t b = 0; b < rest.pixels.size(); ++b) {
    EXPECT_EQ(rest.pixels[b], uninterrupted.pixels[3 + b]) << "batch " << 3 + b;
  }

  // The rest dealt to 4 ranks: with what the first run consumed, every sample once (plus the
  // padding of the new deal).
  std::multiset<std::uint32_t> all(head.indices.begin(), head.indices.end());
  for (int rank = 0; rank < 4; ++rank) {
    Loader elastic(options(ShuffleMode::kBlocks, 1, rank, 4));
    elastic.load_state(saved);
    Delivered part;
    elastic.start_epoch(1);
    take(elastic, part);
    all.insert(part.indices.begin(), part.indices.end());
  }
  const std::size_t left = kImages - head.indices.size();
  EXPECT_EQ(all.size(), head.indices.size() + left + (4 - left % 4) % 4);
  EXPECT_EQ(std::set<std::uint32_t>(all.begin(), all.end()).size(),
            static_cast<std::size_t>(kImages));

  LoaderOptions other_window = options(ShuffleMode::kBlocks);
  other_window.shuffle_window_mb = 2;
  Loader mismatched(other_window);
  EXPECT_THROW(mismatched.load_state(saved), Error);
  Loader full(options(ShuffleMode::kFull));
  EXPECT_THROW(full.load_state(saved), Error);
}

TEST_F(ShuffleBlocksTest, AnEpochBegunAtTwoRanksKeepsItsDealWhenResumedAtThree) {
  // Two ranks take 2 batches each; the rest of the epoch goes to 3 ranks. The blocks were
  // dealt to 2 ranks, and the resumed epoch keeps that sequence (the state says so), so every
  // sample is delivered once, plus the new deal's padding.
  std::multiset<std::uint32_t> all;
  LoaderState saved;
  for (int rank = 0; rank < 2; ++rank) {
    Loader loader(options(ShuffleMode::kBlocks, 1, rank, 2));
    loader.start_epoch(4);
    Delivered head;
    take(loader, head, 2);
    all.insert(head.indices.begin(), head.indices.end());
    if (rank == 0) saved = LoaderState::from_json(loader.state().to_json());
  }
  EXPECT_EQ(saved.blocks_world_size, 2);
  const std::size_t left = kImages - all.size();
  for (int rank = 0; rank < 3; ++rank) {
    Loader resumed(options(ShuffleMode::kBlocks, 1, rank, 3));
    resumed.load_state(saved);
    resumed.start_epoch(4);
    Delivered part;
    take(resumed, part, 1);
    // Saved again mid-epoch at 3 ranks, the state still names the epoch's deal of 2.
    EXPECT_EQ(resumed.state().blocks_world_size, 2);
    take(resumed, part);
    all.insert(part.indices.begin(), part.indices.end());
    // The next epoch deals its blocks to the 3 ranks of this run.
    resumed.start_epoch(5);
    EXPECT_EQ(resumed.state().blocks_world_size, 3);
  }
  EXPECT_EQ(all.size(), kImages - left + left + (3 - left % 3) % 3);
  EXPECT_EQ(std::set<std::uint32_t>(all.begin(), all.end()).size(),
            static_cast<std::size_t>(kImages));
}

}  // namespace
}  // namespace feedrate
