// Resumable state: JSON round trip; truncated, damaged and edited states are errors; the rest of
// an epoch after a restore is byte for byte the uninterrupted run's (any num_workers), later
// epochs are unaffected; an elastic restore at another world size delivers every sample of
// the epoch exactly once plus the padding of the new deal; mismatches are errors naming what
// differs.
#include "feedrate/loader_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

constexpr int kImages = 45;

struct Delivered {
  std::vector<std::size_t> numbers;
  std::vector<std::uint32_t> indices;
  std::vector<std::vector<std::uint8_t>> pixels;  // per batch
};

void take(Loader& loader, Delivered& out, std::size_t batches = SIZE_MAX) {
  for (std::size_t b = 0; b < batches; ++b) {
    std::optional<Batch> batch = loader.next();
    if (!batch) return;
    out.numbers.push_back(batch->number());
    out.indices.insert(out.indices.end(), batch->indices().begin(), batch->indices().end());
    out.pixels.emplace_back(batch->images_u8().begin(), batch->images_u8().end());
  }
}

class LoaderStateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    testing::make_image_folder(dir_->path(), kImages, 3);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static LoaderOptions options(int workers, int rank = 0, int world = 1) {
    LoaderOptions o;
    o.source = dir_->path().string();
    o.batch_size = 4;
    o.transform.size = 24;
    o.transform.resize = 28;
    o.seed = 5;
    o.num_workers = workers;
    o.rank = rank;
    o.world_size = world;
    return o;
  }
  static testing::TempDir* dir_;
};
testing::TempDir* LoaderStateTest::dir_ = nullptr;

LoaderState sample_state() {
  LoaderState s;
  s.samples = 45;
  s.index_hash = "0123456789abcdef";
  s.seed = 5;
  s.epoch = 3;
  s.rank = 1;
  s.world_size = 2;
  s.batch_size = 4;
  s.batches_received = 7;
  s.dealt_from_sample = 8;
  s.dealt_from_batch = 2;
  return s;
}

TEST(LoaderStateJson, RoundTrips) {
  const LoaderState s = sample_state();
  EXPECT_EQ(LoaderState::from_json(s.to_json()), s);
}

TEST(LoaderStateJson, EveryTruncationIsAnError) {
  const std::string text = sample_state().to_json();
  for (std::size_t n = 0; n < text.size(); ++n) {
    EXPECT_THROW(LoaderState::from_json(text.substr(0, n)), Error) << "prefix of " << n;
  }
}

TEST(LoaderStateJson, AnEditedFieldIsACheckumMismatch) {
  std::string text = sample_state().to_json();
  const std::string field = "\"batches_received\":7";
  const std::size_t at = text.find(field);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, field.size(), "\"batches_received\":6");
  try {
    LoaderState::from_json(text);
    FAIL() << "an edited state was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
  }
}

TEST(LoaderStateJson, RandomDamageIsAnErrorOrTheSameState) {
  const LoaderState original = sample_state();
  const std::string text = original.to_json();
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = text;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % damaged.size();
      switch (rng() % 3) {
        case 0:
          damaged[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          damaged.erase(at, 1);
          break;
        default:
          damaged.insert(at, 1, static_cast<char>(rng() % 256));
      }
    }
    try {
      // JSON may still mean the same (a space added between tokens): then it must be the same.
      EXPECT_EQ(LoaderState::from_json(damaged), original) << damaged;
    } catch (const Error&) {
    }
  }
}

TEST(LoaderStateJson, WrongFormatVersionAndTypesSayWhat) {
  const auto message = [](const std::string& text) {
    try {
      LoaderState::from_json(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("[1,2]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(message(R"({"format":"other"})").find("format is \"other\""), std::string::npos);
  EXPECT_NE(message(R"({"format":"feedrate.loader_state","version":5})").find("version 5"),
            std::string::npos);
  // Version 1 (shuffle a bool) is refused: its order would not be this version's.
  EXPECT_NE(message(R"({"format":"feedrate.loader_state","version":1})").find("version 1"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"feedrate.loader_state","version":2})").find("missing field"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"feedrate.loader_state","version":3})").find("missing field"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"feedrate.loader_state","version":4})").find("missing field"),
            std::string::npos);
  // Version 2 is read, and written back as it was, where the order did not change; a blocks
  // state of version 2 is refused (its first window's order changed in version 3).
  LoaderState full;
  full.version = 2;
  full.samples = 10;
  full.batch_size = 2;
  const LoaderState read = LoaderState::from_json(full.to_json());
  EXPECT_EQ(read, full);
  EXPECT_EQ(read.to_json(), full.to_json());
  LoaderState blocks = full;
  blocks.shuffle = "blocks";
  blocks.block_bytes = 4096;
  blocks.window_blocks = 2;
  EXPECT_NE(message(blocks.to_json()).find("version 2 with shuffle \"blocks\""), std::string::npos);
  blocks.version = LoaderState::kFormatVersion;
  EXPECT_EQ(LoaderState::from_json(blocks.to_json()), blocks);
}

TEST_F(LoaderStateTest, RestoredEpochIsTheUninterruptedRestByteForByte) {
  Loader uninterrupted(options(2));
  Delivered whole, next_epoch;
  uninterrupted.start_epoch(1);
  take(uninterrupted, whole);
  uninterrupted.start_epoch(2);
  take(uninterrupted, next_epoch);
  ASSERT_EQ(whole.numbers.size(), 12u);

  for (const std::size_t stop_after : {std::size_t{0}, std::size_t{5}, std::size_t{12}}) {
    SCOPED_TRACE("stopped after " + std::to_string(stop_after) + " batches");
    Loader first(options(1));
    first.start_epoch(1);
    Delivered head;
    take(first, head, stop_after);
    const LoaderState saved = first.state();  // batches still prefetching do not count
    EXPECT_EQ(saved.batches_received, stop_after);
    EXPECT_EQ(saved.epoch, 1u);

    Loader resumed(options(3));
    resumed.load_state(LoaderState::from_json(saved.to_json()));
    EXPECT_EQ(resumed.state(), saved);
    Delivered rest;
    resumed.start_epoch(1);
    take(resumed, rest);
    ASSERT_EQ(rest.numbers.size(), 12 - stop_after);
    for (std::size_t b = 0; b < rest.numbers.size(); ++b) {
      EXPECT_EQ(rest.numbers[b], stop_after + b);
      EXPECT_EQ(rest.pixels[b], whole.pixels[stop_after + b]) << "batch " << stop_after + b;
    }
    EXPECT_TRUE(std::equal(rest.indices.begin(), rest.indices.end(),
                           whole.indices.begin() + static_cast<std::ptrdiff_t>(4 * stop_after)));
    Delivered later;
    resumed.start_epoch(2);
    take(resumed, later);
    EXPECT_EQ(later.indices, next_epoch.indices);
    EXPECT_EQ(later.pixels, next_epoch.pixels);
  }
}

TEST_F(LoaderStateTest, NextWithoutStartEpochContinuesTheRestoredEpoch) {
  Loader first(options(1));
  first.start_epoch(4);
  Delivered head;
  take(first, head, 3);
  Loader resumed(options(1));
  resumed.load_state(first.state());
  std::optional<Batch> batch = resumed.next();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->epoch(), 4u);
  EXPECT_EQ(batch->number(), 3u);
}

// Two ranks stop after `steps` batches each; the state of one rank restores a run of `world`
// ranks: over the epoch every sample arrives exactly once, plus the new deal's padding.
TEST_F(LoaderStateTest, ElasticRestoreDealsTheRestToTheNewRanks) {
  for (const std::size_t steps : {std::size_t{0}, std::size_t{2}, std::size_t{5}}) {
    for (const int world : {1, 2, 3, 5}) {
      SCOPED_TRACE(std::to_string(steps) + " steps at world size 2, resumed at " +
                   std::to_string(world));
      std::multiset<std::uint32_t> seen;
      LoaderState saved;
      for (int rank = 0; rank < 2; ++rank) {
        Loader old(options(1, rank, 2));
        old.start_epoch(0);
        Delivered head;
        take(old, head, steps);
        seen.insert(head.indices.begin(), head.indices.end());
        saved = old.state();  // any rank's state will do: they stepped together
      }
      EXPECT_EQ(seen.size(), 2 * 4 * steps);
      std::size_t new_samples = 0;
      for (int rank = 0; rank < world; ++rank) {
        Loader resumed(options(1, rank, world));
        resumed.load_state(saved);
        Delivered rest;
        take(resumed, rest);
        if (!rest.numbers.empty()) {
          EXPECT_EQ(rest.numbers.front(), steps);
        }
        new_samples += rest.indices.size();
        seen.insert(rest.indices.begin(), rest.indices.end());
      }
      const std::size_t left = kImages - 2 * 4 * steps;
      const std::size_t padding = (world - left % world) % world;
      EXPECT_EQ(new_samples, left + padding);
      EXPECT_EQ(std::set<std::uint32_t>(seen.begin(), seen.end()).size(),
                static_cast<std::size_t>(kImages));
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(kImages) + padding);
    }
  }
}

TEST_F(LoaderStateTest, MismatchesAreErrorsNamingWhatDiffers) {
  Loader first(options(1));
  first.start_epoch(0);
  Delivered head;
  take(first, head, 2);
  const LoaderState saved = first.state();

  LoaderOptions other = options(1);
  other.batch_size = 5;
  other.seed = 6;
  Loader different(other);
  try {
    different.load_state(saved);
    FAIL() << "a state of another batch size was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("batch_size 4 in the state, 5 here"), std::string::npos) << message;
    EXPECT_NE(message.find("seed 5 in the state, 6 here"), std::string::npos) << message;
    EXPECT_EQ(message.find("changed dataset"), std::string::npos) << message;  // not a dataset
  }

  testing::TempDir grown;
  testing::make_image_folder(grown.path(), kImages + 1, 3);
  LoaderOptions bigger = options(1);
  bigger.source = grown.path().string();
  Loader changed(bigger);
  try {
    changed.load_state(saved);
    FAIL() << "a state of another dataset was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dataset samples 45 in the state, 46 here"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("a changed dataset is accepted with allow_dataset_change"),
              std::string::npos)
        << e.what();
  }
  changed.load_state(saved, /*allow_dataset_change=*/true);
  EXPECT_TRUE(changed.next().has_value());

  LoaderState beyond = saved;
  beyond.batches_received = 13;  // the epoch has 12
  EXPECT_THROW(first.load_state(beyond), Error);
}

}  // namespace
}  // namespace feedrate
