// s3:// and https:// sources against real servers (tests/remote/servers.py, started by the ctest
// fixture `remote`: moto's S3 server with signature checks, nginx over HTTPS, and a fault proxy
// in front of moto). The data is a local tree (remote.data) that the fixture uploads, so each
// remote source has its local copy: with the same seed the batches must be byte-identical.
// Skipped when FEEDRATE_REMOTE_ENDPOINTS is not set (the fixture did not run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "feedrate/error.h"
#include "feedrate/loader.h"

namespace feedrate {
namespace {

struct Endpoints {
  nlohmann::json json;
  std::string s3() const { return json.at("s3"); }
  std::string bucket_url() const {
    return "s3://" + json.at("bucket").get<std::string>() + "/" +
           json.at("prefix").get<std::string>();
  }
  std::string local(const std::string& relative) const {
    return json.at("data").get<std::string>() + "/" + relative;
  }
};

std::optional<Endpoints> endpoints() {
  const char* path = std::getenv("FEEDRATE_REMOTE_ENDPOINTS");
  if (path == nullptr) return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return Endpoints{nlohmann::json::parse(in)};
}

// The credentials of the moto server, through the environment the AWS tools read.
void use_store(const Endpoints& e, const std::string& endpoint, const std::string& secret) {
  ::setenv("AWS_ACCESS_KEY_ID", e.json.at("access_key").get<std::string>().c_str(), 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", secret.c_str(), 1);
  ::setenv("AWS_REGION", e.json.at("region").get<std::string>().c_str(), 1);
  ::setenv("AWS_ENDPOINT_URL", endpoint.c_str(), 1);
  ::setenv("AWS_CA_BUNDLE", e.json.at("ca_file").get<std::string>().c_str(), 1);
  ::unsetenv("AWS_PROFILE");
  ::unsetenv("AWS_SESSION_TOKEN");
}

// Every delivered batch of epochs 0 and 1: the images' bytes, the labels and the skipped
// samples, in order.
struct Epochs {
  std::vector<std::vector<unsigned char>> images;
  std::vector<std::vector<std::int32_t>> labels;
  std::vector<std::string> skipped;
};

Epochs run(LoaderOptions options) {
  Loader loader(options);
  Epochs out;
  for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
    loader.start_epoch(epoch);
    while (std::optional<Batch> batch = loader.next()) {
      const auto* bytes = static_cast<const unsigned char*>(batch->data());
      std::size_t size = 1;
      for (const std::int64_t extent : batch->shape()) size *= static_cast<std::size_t>(extent);
      out.images.emplace_back(bytes, bytes + size);  // uint8 images
      out.labels.emplace_back(batch->label_data(), batch->label_data() + batch->size());
      for (const SkippedSample& s : batch->skipped()) {
        out.skipped.push_back(std::to_string(s.index));
      }
    }
  }
  return out;
}

LoaderOptions options_for(std::string source, ShuffleMode shuffle = ShuffleMode::kFull) {
  LoaderOptions options;
  options.source = std::move(source);
  options.batch_size = 8;
  options.num_workers = 2;
  options.seed = 11;
  options.shuffle = shuffle;
  options.shuffle_window_mb = 1;
  options.tar_chunk_bytes = 1 << 20;
  options.transform = parse_transform("train", 48);
  options.rank = 0;
  options.world_size = 1;
  return options;
}

class RemoteSource : public ::testing::Test {
 protected:
  void SetUp() override {
    found_ = endpoints();
    if (!found_)
      GTEST_SKIP() << "FEEDRATE_REMOTE_ENDPOINTS not set: the remote fixture did not run";
    use_store(*found_, found_->s3(), found_->json.at("secret_key"));
  }
  const Endpoints& e() const { return *found_; }
  std::optional<Endpoints> found_;
};

void expect_same(const Epochs& remote, const Epochs& local) {
  ASSERT_EQ(remote.images.size(), local.images.size());
  for (std::size_t b = 0; b < local.images.size(); ++b) {
    EXPECT_EQ(remote.labels[b], local.labels[b]) << "batch " << b;
    EXPECT_TRUE(remote.images[b] == local.images[b]) << "batch " << b << " differs";
  }
  EXPECT_EQ(remote.skipped, local.skipped);
}

TEST_F(RemoteSource, S3ImageFolderDeliversTheLocalCopysBatches) {
  const Epochs local = run(options_for(e().local("folder")));
  const Epochs remote = run(options_for(e().bucket_url() + "folder/"));
  ASSERT_FALSE(local.images.empty());
  expect_same(remote, local);
}

TEST_F(RemoteSource, S3TarShardsDeliverTheLocalCopysBatchesInEveryShuffle) {
  for (ShuffleMode mode : {ShuffleMode::kFull, ShuffleMode::kBlocks, ShuffleMode::kNone}) {
    SCOPED_TRACE(shuffle_name(mode));
    expect_same(run(options_for(e().bucket_url() + "tar/", mode)),
                run(options_for(e().local("tar"), mode)));
  }
}

TEST_F(RemoteSource, S3BracePatternAndRankShardsAsLocal) {
  LoaderOptions remote = options_for(e().bucket_url() + "tar/shard_{000000..000002}.tar");
  LoaderOptions local = options_for(e().local("tar"));
  remote.rank = local.rank = 1;
  remote.world_size = local.world_size = 2;
  expect_same(run(remote), run(local));
}

TEST_F(RemoteSource, HttpsBracePatternDeliversTheLocalCopysBatches) {
  const std::string https = e().json.at("https");
  expect_same(run(options_for(https + "/tar/shard_{000000..000002}.tar")),
              run(options_for(e().local("tar"))));
}

TEST_F(RemoteSource, MissingObjectsFailAtOnceNamingTheUrl) {
  const std::string missing = e().bucket_url() + "tar/shard_{000000..000009}.tar";
  try {
    Loader loader(options_for(missing));
    FAIL() << "a pattern naming missing shards was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::strstr(error.what(), "shard_000003.tar"), nullptr) << error.what();
  }
  const std::string https = e().json.at("https");
  try {
    Loader loader(options_for(https + "/tar/nothing-here.tar"));
    FAIL() << "a missing https shard was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::strstr(error.what(), "nothing-here.tar"), nullptr) << error.what();
    EXPECT_NE(std::strstr(error.what(), "404"), nullptr) << error.what();
  }
}

TEST_F(RemoteSource, AWrongSecretIsDeniedNamingTheCredentialsSourceNotTheSecret) {
  const std::string secret = "not-the-secret-" + std::to_string(::getpid());
  use_store(e(), e().s3(), secret);
  try {
    Loader loader(options_for(e().bucket_url() + "folder/"));
    FAIL() << "a wrong secret was accepted";
  } catch (const Error& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("403"), std::string::npos) << text;
    EXPECT_NE(text.find("AWS_ACCESS_KEY_ID"), std::string::npos) << text;
    EXPECT_EQ(text.find(secret), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace feedrate
