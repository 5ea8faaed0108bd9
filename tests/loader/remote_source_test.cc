// s3:// and https:// sources against real servers (tests/remote/servers.py, started by the ctest
// fixture `remote`: moto's S3 server with signature checks, nginx over HTTPS, and a fault proxy
// in front of moto). The data is a local tree (remote.data) that the fixture uploads, so each
// remote source has its local copy: with the same seed the batches must be byte-identical.
// Skipped when FEEDRATE_REMOTE_ENDPOINTS is not set (the fixture did not run).
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
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
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::TempDir;

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

// The credentials of the moto server, through the environment the AWS tools read. The instance
// metadata service is never asked (the unsigned test would otherwise try 169.254.169.254).
void use_store(const Endpoints& e, const std::string& endpoint, const std::string& secret) {
  ::setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  ::setenv("AWS_ACCESS_KEY_ID", e.json.at("access_key").get<std::string>().c_str(), 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", secret.c_str(), 1);
  ::setenv("AWS_REGION", e.json.at("region").get<std::string>().c_str(), 1);
  ::setenv("AWS_ENDPOINT_URL", endpoint.c_str(), 1);
  ::setenv("AWS_CA_BUNDLE", e.json.at("ca_file").get<std::string>().c_str(), 1);
  ::unsetenv("AWS_DEFAULT_PROFILE");  // read before AWS_PROFILE, as botocore reads them
  ::unsetenv("AWS_PROFILE");
  ::unsetenv("AWS_SESSION_TOKEN");
}

// Every delivered batch of the epochs run: the images' bytes, the labels and the skipped
// samples, in order.
struct Epochs {
  std::vector<std::vector<unsigned char>> images;
  std::vector<std::vector<std::int32_t>> labels;
  std::vector<std::string> skipped;
  std::vector<std::string> reasons;
};

// `hold_previous`: as a training loop, the previous batch is held while the next is asked for.
Epochs run(LoaderOptions options, Report* report = nullptr, std::uint64_t epochs = 2,
           bool hold_previous = false) {
  Loader loader(options);
  Epochs out;
  for (std::uint64_t epoch = 0; epoch < epochs; ++epoch) {
    loader.start_epoch(epoch);
    std::optional<Batch> previous;
    while (std::optional<Batch> batch = loader.next()) {
      const auto* bytes = static_cast<const unsigned char*>(batch->data());
      std::size_t size = 1;
      for (const std::int64_t extent : batch->shape()) size *= static_cast<std::size_t>(extent);
      out.images.emplace_back(bytes, bytes + size);  // uint8 images
      out.labels.emplace_back(batch->label_data(), batch->label_data() + batch->size());
      for (const SkippedSample& s : batch->skipped()) {
        out.skipped.push_back(std::to_string(s.index));
        out.reasons.push_back(s.reason);
      }
      if (hold_previous) previous = std::move(batch);
    }
  }
  if (report != nullptr) *report = loader.report();
  return out;
}

// One call to the fault proxy's control endpoint (tests/remote/fault_proxy.py): `method` GET,
// POST (`body` as JSON) or DELETE on `url` (its /__faults or /__log). Returns the answer's JSON;
// a failed call is a test failure (and null).
nlohmann::json proxy_call(const std::string& method, const std::string& url,
                          const std::string& body = "") {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    ADD_FAILURE() << "curl_easy_init failed";
    return nullptr;
  }
  std::string answer;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (!body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  }
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t n, void* out) {
        static_cast<std::string*>(out)->append(data, size * n);
        return size * n;
      });
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK || status / 100 != 2) {
    ADD_FAILURE() << method << " " << url << ": " << curl_easy_strerror(rc) << ", HTTP " << status
                  << ": " << answer;
    return nullptr;
  }
  return answer.empty() ? nlohmann::json() : nlohmann::json::parse(answer);
}

// The Range headers of the requests the fault proxy saw for paths holding `match` ("" for a
// request without one).
std::vector<std::string> ranges_seen(const std::string& control, const std::string& match) {
  std::vector<std::string> ranges;
  const nlohmann::json log = proxy_call("GET", control + "/__log");
  if (log.is_null()) return ranges;
  for (const nlohmann::json& entry : log.at("log")) {
    if (entry.at("path").get<std::string>().find(match) == std::string::npos) continue;
    ranges.push_back(entry.at("range").is_string() ? entry.at("range").get<std::string>() : "");
  }
  return ranges;
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
    proxy_call("DELETE", control() + "/__faults");
    proxy_call("DELETE", control() + "/__log");
  }
  void TearDown() override {
    if (found_) proxy_call("DELETE", control() + "/__faults");
  }
  // Arms the fault proxy with `rules` (JSON, one rule or a list).
  void add_faults(const std::string& rules) const {
    proxy_call("POST", control() + "/__faults", rules);
  }
  std::string control() const { return found_->json.at("proxy_control"); }
  // Requests through the fault proxy in front of moto.
  void use_proxy() const { use_store(e(), e().json.at("proxy"), e().json.at("secret_key")); }
  const Endpoints& e() const { return *found_; }
  std::optional<Endpoints> found_;
};

void expect_same(const Epochs& remote, const Epochs& local) {
  ASSERT_FALSE(local.images.empty());
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

TEST_F(RemoteSource, FileListsAtS3AndHttpsUrlsDeliverTheLocalListsBatches) {
  const Epochs local = run(options_for(e().local("folder/list.txt")));
  ASSERT_EQ(local.images.size(), 6u);  // 24 of 48 images, 3 batches an epoch
  expect_same(run(options_for(e().bucket_url() + "folder/list.txt")), local);
  const std::string https = e().json.at("https");
  expect_same(run(options_for(https + "/folder/list.txt")), local);
}

TEST_F(RemoteSource, S3TarShardsDeliverTheLocalCopysBatchesInEveryShuffle) {
  for (ShuffleMode mode : {ShuffleMode::kFull, ShuffleMode::kBlocks, ShuffleMode::kNone}) {
    SCOPED_TRACE(shuffle_name(mode));
    expect_same(run(options_for(e().bucket_url() + "tar/", mode)),
                run(options_for(e().local("tar"), mode)));
  }
}

// From a loader's second epoch on, the read-ahead goes on into the next epoch, which keeps what
// it fetched: four epochs still deliver the local copy's batches, and the store's figures count
// every epoch's requests (the first epoch's fetcher's too) and no more than one read-ahead epoch
// beyond them (the fifth's, which the loader promised after the fourth).
TEST_F(RemoteSource, EpochsReadAheadFromTheOneBeforeDeliverTheLocalCopysBatches) {
  for (ShuffleMode mode : {ShuffleMode::kFull, ShuffleMode::kBlocks}) {
    SCOPED_TRACE(shuffle_name(mode));
    Report report;
    expect_same(run(options_for(e().bucket_url() + "folder/", mode), &report, 4),
                run(options_for(e().local("folder"), mode), nullptr, 4));
    EXPECT_GE(report.store.requests, 4 * 48u);  // one object per image
    EXPECT_LE(report.store.requests, 5 * 48u);
    expect_same(run(options_for(e().bucket_url() + "tar/", mode), nullptr, 4),
                run(options_for(e().local("tar"), mode), nullptr, 4));
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

TEST_F(RemoteSource, CacheDirStoresEverySampleSoTheNextLoaderReadsTheLocalDisk) {
  TempDir cache;
  LoaderOptions options = options_for(e().bucket_url() + "tar/");
  options.cache_dir = cache.path().string();
  const Epochs local = run(options_for(e().local("tar")));
  Report first;
  expect_same(run(options, &first), local);
  EXPECT_TRUE(first.cache.enabled);
  EXPECT_EQ(first.cache.samples, first.run.dataset_samples);
  EXPECT_EQ(first.cache.unchanged, first.run.dataset_samples);  // stored once, unchanged
  EXPECT_EQ(first.cache.bytes, first.run.dataset_bytes);
  // Epoch 1 of the first loader already read the cache; a second loader fetches nothing.
  Report second;
  expect_same(run(options, &second), local);
  EXPECT_EQ(second.store.requests, 0u);
  EXPECT_EQ(second.cache.misses, 0u);
  EXPECT_EQ(second.cache.hits, 2 * second.run.dataset_samples);
}

TEST_F(RemoteSource, ABadCacheEntryIsFetchedAgainAlone) {
  TempDir cache;
  LoaderOptions options = options_for(e().bucket_url() + "folder/");
  options.cache_dir = cache.path().string();
  const Epochs local = run(options_for(e().local("folder")));
  Report first;
  run(options, &first, 1);
  // Flip one byte of the cached copy of one image.
  const std::filesystem::path object = std::filesystem::path(first.cache.folder) / "objects" / "5";
  {
    std::fstream file(object, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(file) << object;
    file.seekg(100);
    const char byte = static_cast<char>(file.get());
    file.seekp(100);
    file.put(static_cast<char>(~byte));
  }
  Report second;
  expect_same(run(options, &second), local);
  EXPECT_EQ(second.cache.fallbacks, 1u);
  EXPECT_EQ(second.store.requests, 0u);  // the window fetched nothing: the refetch is its own
  EXPECT_EQ(second.cache.misses, 1u);    // that one sample, read from the store
}

TEST_F(RemoteSource, RetriesOfEveryTransientFaultStillDeliverTheLocalCopysBatches) {
  use_proxy();
  add_faults(
      R"([{"match": "shard_000000", "fault": "status", "status": 503, "code": "SlowDown", "times": 2},
                 {"match": "shard_000001", "fault": "status", "status": 500, "times": 1},
                 {"match": "shard_000001", "fault": "status", "status": 429, "times": 1},
                 {"match": "shard_000002", "fault": "reset", "times": 1},
                 {"match": "shard_000002", "fault": "short", "has_range": true, "times": 2},
                 {"match": "shard_000000", "fault": "reset", "after_bytes": 1000, "times": 1}])");
  Report report;
  expect_same(run(options_for(e().bucket_url() + "tar/"), &report),
              run(options_for(e().local("tar"))));
  const nlohmann::json rules = proxy_call("GET", control() + "/__faults");
  ASSERT_EQ(rules.at("rules").size(), 6u) << rules.dump();
  for (const nlohmann::json& rule : rules.at("rules")) {
    EXPECT_EQ(rule.at("remaining"), 0) << "a fault did not happen: " << rule.dump();
  }
}

TEST_F(RemoteSource, AnObjectThatKeepsFailingIsSkippedNamingItNothingElseIsLost) {
  use_proxy();
  add_faults(R"({"match": "img_000004.jpg", "fault": "status", "status": 500, "always": true})");
  LoaderOptions options = options_for(e().bucket_url() + "folder/");
  options.on_bad = BadInputPolicy::kSkip;
  options.pad_shards = false;  // the skipped place is taken by the next sample, none repeats
  const Epochs remote = run(options);
  ASSERT_EQ(remote.reasons.size(), 2u);  // once an epoch
  for (const std::string& reason : remote.reasons) {
    EXPECT_NE(reason.find("img_000004.jpg"), std::string::npos) << reason;
    EXPECT_NE(reason.find("500"), std::string::npos) << reason;
  }
  std::size_t delivered = 0;
  for (const auto& labels : remote.labels) delivered += labels.size();
  EXPECT_EQ(delivered + remote.reasons.size(), 2 * 48u);
  // With pad_shards the epoch's first sample, fetched again alone, takes the last place.
  options.pad_shards = true;
  const Epochs padded = run(options);
  delivered = 0;
  for (const auto& labels : padded.labels) delivered += labels.size();
  EXPECT_EQ(delivered, 2 * 48u);
}

TEST_F(RemoteSource, ObjectsLentBeforeTheirReadHasASlotAreTheOnesItWouldHaveGiven) {
  // Two slots while the previous batch is held: a batch's places are filled by the next read's
  // objects, fetched alone before that read has a slot, and the read then begins after them.
  use_proxy();
  add_faults(R"([{"match": "img_000004.jpg", "fault": "status", "status": 500, "always": true},
                 {"match": "img_000017.jpg", "fault": "status", "status": 500, "always": true}])");
  LoaderOptions options = options_for(e().bucket_url() + "folder/");
  options.on_bad = BadInputPolicy::kSkip;
  const Epochs roomy = run(options);
  options.prefetch_batches = 2;
  const Epochs tight = run(options, nullptr, 2, /*hold_previous=*/true);
  expect_same(tight, roomy);
  for (const auto& labels : tight.labels) EXPECT_EQ(labels.size(), 8u);
  EXPECT_EQ(tight.reasons.size(), 4u);  // two objects, once an epoch
}

TEST_F(RemoteSource, TheReportCarriesTheStoresFigures) {
  Report report;
  run(options_for(e().bucket_url() + "folder/"), &report, 1);
  EXPECT_TRUE(report.store.remote);
  EXPECT_EQ(report.store.scheme, "s3");
  // One object per image; a loader's first epoch reads nothing ahead into the next.
  EXPECT_EQ(report.store.requests, 48u);
  EXPECT_EQ(report.store.bytes, report.run.dataset_bytes);
  EXPECT_GT(report.store.first_byte_p50_ms, 0);
  EXPECT_GE(report.store.peak_in_flight, 2u);
  EXPECT_EQ(report.run.io_backend, "remote");
  bool store_finding = false;
  for (const Advice& advice : report.verdict.advice) store_finding |= advice.kind == "io.store";
  EXPECT_EQ(store_finding, report.verdict.bottleneck == Resource::kIo ||
                               report.verdict.runner_up == Resource::kIo);
}

TEST_F(RemoteSource, ResumeMidEpochDeliversTheLocalCopysRest) {
  const auto rest_after = [](LoaderOptions options, std::size_t taken) {
    LoaderState state;
    {
      Loader loader(options);
      loader.start_epoch(1);
      for (std::size_t b = 0; b < taken; ++b) EXPECT_TRUE(loader.next().has_value());
      state = loader.state();
    }
    Loader resumed(options);
    resumed.load_state(state);
    std::vector<std::vector<std::int32_t>> labels;
    while (std::optional<Batch> batch = resumed.next()) {
      labels.emplace_back(batch->label_data(), batch->label_data() + batch->size());
    }
    return labels;
  };
  const auto remote = rest_after(options_for(e().bucket_url() + "tar/"), 2);
  ASSERT_FALSE(remote.empty());
  EXPECT_EQ(remote, rest_after(options_for(e().local("tar")), 2));
}

TEST_F(RemoteSource, UnsignedRequestsReadAPublicServerAndADenialNamesThem) {
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  const std::string https = e().json.at("https");
  expect_same(run(options_for(https + "/tar/shard_{000000..000002}.tar")),
              run(options_for(e().local("tar"))));
  // moto in its signature-checking mode answers an unsigned request with a 500, not S3's 403:
  // the proxy gives the 403 a private bucket gives.
  ::setenv("AWS_ENDPOINT_URL", e().json.at("proxy").get<std::string>().c_str(), 1);
  add_faults(R"({"match": "list-type=2", "fault": "status", "status": 403, "always": true})");
  try {
    Loader loader(options_for(e().bucket_url() + "tar/"));
    FAIL() << "a denied listing was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::strstr(error.what(), "403"), nullptr) << error.what();
    EXPECT_NE(std::strstr(error.what(), "unsigned"), nullptr) << error.what();
  }
}

// Replaces an object of the bucket (a signed PUT, as the AWS tools make it).
void put_object(const Endpoints& e, const std::string& key, const std::string& body) {
  CURL* curl = curl_easy_init();
  ASSERT_NE(curl, nullptr);
  const std::string url = e.s3() + "/" + e.json.at("bucket").get<std::string>() + "/" + key;
  const std::string user =
      e.json.at("access_key").get<std::string>() + ":" + e.json.at("secret_key").get<std::string>();
  const std::string sigv4 = "aws:amz:" + e.json.at("region").get<std::string>() + ":s3";
  curl_slist* headers = curl_slist_append(nullptr, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
  headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_USERPWD, user.c_str());
  curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t n, void*) { return size * n; });
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  ASSERT_EQ(rc, CURLE_OK) << curl_easy_strerror(rc);
  ASSERT_EQ(status, 200) << "PUT " << url;
}

TEST_F(RemoteSource, AnObjectChangedAfterIndexingIsAnErrorNamingIt) {
  const std::string key = e().json.at("prefix").get<std::string>() + "changing/class_0/a.jpg";
  const std::vector<unsigned char> jpeg = testing::small_jpeg(3);
  put_object(e(), key, std::string(jpeg.begin(), jpeg.end()));
  put_object(e(), e().json.at("prefix").get<std::string>() + "changing/class_0/b.jpg",
             std::string(jpeg.begin(), jpeg.end()));
  LoaderOptions options = options_for(e().bucket_url() + "changing/");
  options.batch_size = 2;
  Loader loader(options);
  loader.start_epoch(0);
  ASSERT_TRUE(loader.next().has_value());
  const std::vector<unsigned char> other = testing::small_jpeg(4);
  put_object(e(), key, std::string(other.begin(), other.end()));
  loader.start_epoch(1);
  try {
    while (loader.next()) {
    }
    FAIL() << "a changed object was read";
  } catch (const Error& error) {
    EXPECT_NE(std::strstr(error.what(), "changing/class_0/a.jpg"), nullptr) << error.what();
    EXPECT_NE(std::strstr(error.what(), "changed"), nullptr) << error.what();
  }
}

TEST_F(RemoteSource, AnIndexBesideTheShardsSparesReadingThemWhole) {
  use_proxy();
  const auto whole_shard_reads = [&](const std::string& folder) {
    const std::vector<std::string> ranges = ranges_seen(control(), "/" + folder + "/shard_");
    return std::count_if(ranges.begin(), ranges.end(),
                         [](const std::string& r) { return r.starts_with("bytes=0-"); });
  };
  // Streamed once without an index (the check can fail)...
  expect_same(run(options_for(e().bucket_url() + "tar/", ShuffleMode::kNone)),
              run(options_for(e().local("tar"), ShuffleMode::kNone)));
  EXPECT_EQ(whole_shard_reads("tar"), 3);
  // ...and never with `feedrate index`'s index.json beside the shards.
  expect_same(run(options_for(e().bucket_url() + "indexed/", ShuffleMode::kNone)),
              run(options_for(e().local("indexed"), ShuffleMode::kNone)));
  EXPECT_EQ(whole_shard_reads("indexed"), 0);
}

TEST_F(RemoteSource, BlockShuffleFetchesRunsOfNeighboursWholeInFewRequests) {
  use_proxy();
  // Shards with their index (no streaming pass to count), read in blocks of a 1 MB window, four
  // epochs.
  const Epochs local = run(options_for(e().local("indexed"), ShuffleMode::kBlocks), nullptr, 4);
  ASSERT_EQ(local.images.size(), 24u);  // 48 samples an epoch
  expect_same(run(options_for(e().bucket_url() + "indexed/", ShuffleMode::kBlocks), nullptr, 4),
              local);
  const std::vector<std::string> ranges = ranges_seen(control(), "/indexed/shard_");
  // The dataset is smaller than the read-ahead's window. The first two epochs start afresh
  // (the first reads nothing ahead), so their first window, all 48 samples, goes a sample a GET;
  // the next two were read ahead by the epoch before, and there a run of neighbours goes in GETs
  // of at most the read-ahead's share per GET in flight, a few per shard: their 96 samples (and
  // what the last one read ahead) in fewer than 48 GETs.
  EXPECT_GE(ranges.size(), 2 * 48u);
  EXPECT_LT(ranges.size(), 2 * 48u + 48u) << ranges.size() << " requests";
}

TEST_F(RemoteSource, APacksIndexJsonAsTheSourceIsReadWithoutAStreamingPass) {
  use_proxy();
  const Epochs local = run(options_for(e().local("packed")));
  ASSERT_EQ(local.images.size(), 12u);  // 48 images, 6 batches an epoch
  expect_same(run(options_for(e().bucket_url() + "packed/index.json")), local);
  const std::vector<std::string> ranges = ranges_seen(control(), "/packed/shard-");
  ASSERT_FALSE(ranges.empty());
  for (const std::string& range : ranges) {
    // No streaming pass (it reads from byte 0): a shard's first sample starts after its header.
    EXPECT_FALSE(range.empty() || range.starts_with("bytes=0-")) << range;
  }
  const std::string https = e().json.at("https");
  expect_same(run(options_for(https + "/packed/index.json")), local);
}

TEST_F(RemoteSource, APackIndexNamingAMissingShardIsAnErrorNamingIt) {
  std::ifstream in(e().local("packed/index.json"));
  nlohmann::json index = nlohmann::json::parse(in);
  index["shards"][0]["name"] = "shard-999999.tar";
  const std::string key = e().json.at("prefix").get<std::string>() + "packed/broken.json";
  put_object(e(), key, index.dump());
  try {
    Loader loader(options_for(e().bucket_url() + "packed/broken.json"));
    FAIL() << "a pack index naming a missing shard was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::strstr(error.what(), "packed/shard-999999.tar"), nullptr) << error.what();
    EXPECT_NE(std::strstr(error.what(), "broken.json"), nullptr) << error.what();
  }
  put_object(e(), key, "shard-000000.tar 1\n");  // a file list's text in a .json
  try {
    Loader loader(options_for(e().bucket_url() + "packed/broken.json"));
    FAIL() << "a .json that is no pack index was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::strstr(error.what(), "broken.json"), nullptr) << error.what();
  }
}

}  // namespace
}  // namespace feedrate
