// Faults under the pipeline, injected through test doubles of the reader (no #ifdefs in
// production code): EIO on one file, a short read, an EAGAIN storm that outlasts the retries
// (every read of the file returns EAGAIN through ReaderOptions::fault_hook, so the real reader
// retries it kMaxTransientRetries times before it fails), and a file truncated after indexing
// (a real one). Each surfaces with the path, offset and errno text; under `skip` every other
// sample is still delivered exactly once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "io/reader.h"
#include "loader/pipeline/pipeline.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

enum class Fault { kEio, kShortRead, kEagainStorm };

fs::path path_of(int fd) {
  std::error_code error;
  return fs::read_symlink("/proc/self/fd/" + std::to_string(fd), error);
}

// Reads through a real reader. The operations on the files named kEagainStorm in `faults` all
// return EAGAIN to that reader (counted in `storm_reads`); the requests for the other files
// named are broken after the read.
class FaultyReader final : public io::Reader {
 public:
  FaultyReader(const io::ReaderOptions& options, std::map<std::string, Fault> faults,
               std::atomic<int>* storm_reads)
      : Reader(options),
        real_(Reader::create(with_storms(options, faults, storm_reads), nullptr)),
        faults_(std::move(faults)) {}

  void read(std::span<io::ReadRequest> requests) override {
    real_->read(requests);
    for (io::ReadRequest& request : requests) {
      const auto fault = faults_.find(path_of(request.fd).filename().string());
      if (fault == faults_.end()) continue;
      switch (fault->second) {
        case Fault::kEio:
          request.bytes_read = 0;
          request.error = std::error_code(EIO, std::generic_category());
          break;
        case Fault::kShortRead:
          request.bytes_read = request.dest.size() / 2;
          request.error = io::ReadErrc::kUnexpectedEof;
          break;
        case Fault::kEagainStorm:
          break;  // failed by the real reader
      }
    }
  }
  io::Backend backend() const override { return real_->backend(); }

 private:
  static io::ReaderOptions with_storms(io::ReaderOptions options,
                                       const std::map<std::string, Fault>& faults,
                                       std::atomic<int>* storm_reads) {
    std::set<std::string> storms;
    for (const auto& [name, fault] : faults) {
      if (fault == Fault::kEagainStorm) storms.insert(name);
    }
    options.fault_hook = [storms, storm_reads](const io::ReadOperation& operation,
                                               std::int64_t result) -> std::int64_t {
      if (storms.count(path_of(operation.fd).filename().string()) == 0) return result;
      ++*storm_reads;
      return -EAGAIN;
    };
    return options;
  }

  std::unique_ptr<io::Reader> real_;
  std::map<std::string, Fault> faults_;
};

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override { paths_ = testing::make_image_folder(dir_.path(), 24, 3); }
  LoaderOptions options(BadInputPolicy policy) const {
    LoaderOptions o;
    o.source = dir_.path().string();
    o.batch_size = 5;
    o.num_workers = 2;
    o.transform.size = 24;
    o.on_bad = policy;
    o.pad_shards = false;  // under skip, each good sample once (nothing pads the skips)
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  Pipeline::ReaderFactory faulty(std::map<std::string, Fault> faults) {
    return [this, faults](const io::ReaderOptions& options, std::string*) {
      return std::make_unique<FaultyReader>(options, faults, &storm_reads_);
    };
  }
  testing::TempDir dir_;
  std::vector<fs::path> paths_;
  std::atomic<int> storm_reads_{0};  // read operations that a storm answered with EAGAIN
};

const std::map<std::string, Fault> kFaults = {{"img_000004.jpg", Fault::kEio},
                                              {"img_000010.jpg", Fault::kShortRead},
                                              {"img_000017.jpg", Fault::kEagainStorm}};

TEST_F(FaultTest, SkipDeliversEveryOtherSampleOnceAndNamesEachFault) {
  Pipeline pipeline(options(BadInputPolicy::kSkip), faulty(kFaults));
  std::multiset<std::string> delivered;
  std::map<std::string, std::string> reasons;
  while (std::optional<Batch> batch = pipeline.next()) {
    for (std::uint32_t index : batch->indices()) {
      delivered.insert(pipeline.dataset().describe(index));
    }
    for (const SkippedSample& s : batch->skipped()) {
      reasons[fs::path(s.where).filename().string()] = s.reason;
    }
  }
  EXPECT_EQ(delivered.size(), paths_.size() - kFaults.size());
  for (const fs::path& path : paths_) {
    const bool faulty = kFaults.count(path.filename().string()) > 0;
    EXPECT_EQ(delivered.count(path.string()), faulty ? 0u : 1u) << path;
  }
  ASSERT_EQ(reasons.size(), 3u);
  EXPECT_NE(reasons["img_000004.jpg"].find("read failed at byte 0: Input/output"),
            std::string::npos)
      << reasons["img_000004.jpg"];
  EXPECT_NE(reasons["img_000010.jpg"].find("unexpected end of file after"), std::string::npos)
      << reasons["img_000010.jpg"];
  EXPECT_NE(reasons["img_000017.jpg"].find("Resource temporarily unavailable"), std::string::npos)
      << reasons["img_000017.jpg"];
  // Read once, and retried by the real reader until its bound.
  EXPECT_EQ(storm_reads_, io::kMaxTransientRetries);
}

TEST_F(FaultTest, ErrorPolicyStopsWithThePathAndErrno) {
  Pipeline pipeline(options(BadInputPolicy::kError), faulty({{"img_000004.jpg", Fault::kEio}}));
  try {
    while (pipeline.next()) {
    }
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("img_000004.jpg: read failed at byte 0"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(FaultTest, AFileTruncatedAfterIndexingIsAShortRead) {
  Pipeline pipeline(options(BadInputPolicy::kSkip));
  const fs::path victim = paths_[7];
  fs::resize_file(victim, fs::file_size(victim) / 3);
  std::size_t delivered = 0;
  std::vector<SkippedSample> skipped;
  while (std::optional<Batch> batch = pipeline.next()) {
    delivered += batch->size();
    skipped.insert(skipped.end(), batch->skipped().begin(), batch->skipped().end());
  }
  EXPECT_EQ(delivered, paths_.size() - 1);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].where, victim.string());
  EXPECT_NE(skipped[0].reason.find("unexpected end of file after"), std::string::npos)
      << skipped[0].reason;
}

// Options reading `count` generated samples of two classes from tar shards made in `dir`, in
// `mode`, skipping bad samples.
LoaderOptions tar_shards(const testing::TempDir& dir, std::size_t count, ShuffleMode mode) {
  datagen::DatasetSpec spec;
  spec.out = dir / "shards";
  spec.count = count;
  spec.classes = 2;
  spec.format = datagen::Format::kTar;
  datagen::make_dataset(spec);
  LoaderOptions o;
  o.source = spec.out.string();
  o.shuffle = mode;
  o.transform.size = 24;
  o.on_bad = BadInputPolicy::kSkip;
  o.rank = 0;
  o.world_size = 1;
  return o;
}

TEST(TarFault, AShardTruncatedAfterIndexingLosesOnlyTheMembersPastTheEnd) {
  // In storage order (one chunk read) and in blocks (the shard is one block, read whole).
  for (const ShuffleMode mode : {ShuffleMode::kNone, ShuffleMode::kBlocks}) {
    SCOPED_TRACE(shuffle_name(mode));
    testing::TempDir dir;
    LoaderOptions o = tar_shards(dir, 12, mode);
    o.batch_size = 12;
    o.pad_shards = false;
    Loader loader(o);  // indexed before the damage
    LoaderOptions padding = o;
    padding.pad_shards = true;
    Loader padded(padding);
    const fs::path shard = loader.dataset().files().front();
    // Cut inside the 9th member: members 0..7 are whole, 8..11 are not.
    const SampleRef& ninth = loader.dataset().sample(8);
    fs::resize_file(shard, ninth.offset + ninth.size / 2);
    std::optional<Batch> batch = loader.next();
    ASSERT_TRUE(batch.has_value());
    EXPECT_EQ(batch->size(), 8u);
    for (const std::uint32_t index : batch->indices()) EXPECT_LT(index, 8u);
    ASSERT_EQ(batch->skipped().size(), 4u);
    for (const SkippedSample& s : batch->skipped()) {
      EXPECT_NE(s.where.find(".tar:img_"), std::string::npos) << s.where;
      EXPECT_NE(s.reason.find("unexpected end of file"), std::string::npos) << s.reason;
    }
    // pad_shards: the epoch's start, read again outside the epoch's reads (in blocks: member
    // by member), fills the four places; its broken members are not counted twice.
    std::optional<Batch> full = padded.next();
    ASSERT_TRUE(full.has_value());
    EXPECT_EQ(full->size(), 12u);
    const std::set<std::uint32_t> distinct(full->indices().begin(), full->indices().end());
    EXPECT_EQ(distinct.size(), 8u);
    for (const std::uint32_t index : distinct) EXPECT_LT(index, 8u);
    EXPECT_FALSE(padded.next().has_value());
    EXPECT_EQ(padded.stats().skipped, 4u);
  }
}

TEST(TarFault, MembersLentByAReadWithoutASlotAreTheOnesItWouldHaveGiven) {
  // Two slots while the previous batch is held: a batch's places are filled by samples of the
  // next read, read alone (in blocks: member by member) before the read has a slot.
  for (const ShuffleMode mode : {ShuffleMode::kNone, ShuffleMode::kBlocks}) {
    SCOPED_TRACE(shuffle_name(mode));
    testing::TempDir dir;
    LoaderOptions o = tar_shards(dir, 24, mode);
    o.batch_size = 4;
    o.num_workers = 2;
    Loader roomy(o);  // indexed before the damage
    LoaderOptions tight = o;
    tight.prefetch_batches = 2;
    Loader loader(tight);
    for (const std::uint32_t victim : {1u, 5u, 6u, 13u}) {
      const SampleRef& member = roomy.dataset().sample(victim);
      std::ofstream(roomy.dataset().files()[member.file], std::ios::in | std::ios::binary)
          .seekp(static_cast<std::streamoff>(member.offset))
          .write("HTML", 4);
    }
    std::vector<std::vector<std::uint32_t>> expected;
    while (std::optional<Batch> batch = roomy.next()) {
      expected.emplace_back(batch->indices().begin(), batch->indices().end());
    }
    std::vector<std::vector<std::uint32_t>> lent;
    std::optional<Batch> previous;
    while (std::optional<Batch> batch = loader.next()) {
      lent.emplace_back(batch->indices().begin(), batch->indices().end());
      previous = std::move(batch);
    }
    EXPECT_EQ(lent, expected);
    ASSERT_EQ(expected.size(), 6u);
    for (const std::vector<std::uint32_t>& batch : expected) EXPECT_EQ(batch.size(), 4u);
    EXPECT_EQ(loader.stats().skipped, 4u);
  }
}

}  // namespace
}  // namespace feedrate
