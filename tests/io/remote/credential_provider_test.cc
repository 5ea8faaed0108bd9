// The credential provider's refresh under a clock the test moves: fixed credentials never
// refresh; temporary ones are fetched again kRefreshAhead before they expire, a failed refresh
// keeps credentials that are still valid and is retried kRetryAfter later, expired ones fail
// with their source and without a secret, and callers racing for a refresh share one fetch.
// A signed request whose credentials expired fails as denied access, naming the source.
#include "io/remote/credential_provider.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "io/remote/object_store.h"
#include "io/remote/range_fetcher.h"
#include "io/remote/remote_error.h"
#include "tests/io/remote/credential_test_util.h"
#include "tests/io/remote/fetch_test_util.h"

namespace feedrate::io {
namespace {

using namespace std::chrono_literals;
using test_support::ManualWallClock;

constexpr const char* kSecret = "tEsTsEcReT/ProviderOnly+0123456789abcdef";

// A fetch that counts its calls and answers key KEY<n> (n = the call's number), expiring
// `lifetime` after the clock's time, or throws while `failing`.
class CountingFetch {
 public:
  CountingFetch(ManualWallClock& clock, std::chrono::seconds lifetime)
      : clock_(clock), lifetime_(lifetime) {}
  TimedCredentials first() { return answer(0); }
  CredentialProvider::Fetch fetch() {
    return [this] {
      const int call = ++calls_;
      if (failing_) throw std::runtime_error("the source is down");
      return answer(call);
    };
  }
  int calls() const { return calls_.load(); }
  void fail(bool failing) { failing_ = failing; }

 private:
  TimedCredentials answer(int call) const {
    return {{"KEY" + std::to_string(call), Secret(kSecret), Secret("token")},
            clock_.now() + lifetime_};
  }
  ManualWallClock& clock_;
  std::chrono::seconds lifetime_;
  std::atomic<int> calls_{0};
  std::atomic<bool> failing_{false};
};

TEST(CredentialProvider, FixedCredentialsNeverRefresh) {
  const auto provider = CredentialProvider::fixed({"AKIA", Secret(kSecret), {}}, "env");
  EXPECT_TRUE(provider->signs());
  EXPECT_EQ(provider->source(), "env");
  EXPECT_EQ(provider->current(), provider->current());  // the same snapshot
  EXPECT_FALSE(CredentialProvider::fixed({}, "none")->signs());
}

TEST(CredentialProvider, RefreshesAheadOfTheExpiration) {
  ManualWallClock clock;
  CountingFetch source(clock, 1h);
  CredentialProvider provider("test source", source.first(), source.fetch(), clock.clock());
  EXPECT_EQ(provider.current()->access_key_id, "KEY0");
  clock.advance(1h - CredentialProvider::kRefreshAhead - 1s);
  EXPECT_EQ(provider.current()->access_key_id, "KEY0");
  EXPECT_EQ(source.calls(), 0);
  clock.advance(2s);  // inside the refresh window, still valid
  EXPECT_EQ(provider.current()->access_key_id, "KEY1");
  EXPECT_EQ(provider.current()->access_key_id, "KEY1");
  EXPECT_EQ(source.calls(), 1);
}

TEST(CredentialProvider, AFailedRefreshKeepsValidCredentialsAndRetriesLater) {
  ManualWallClock clock;
  CountingFetch source(clock, 1h);
  CredentialProvider provider("test source", source.first(), source.fetch(), clock.clock());
  source.fail(true);
  clock.advance(1h - 4min);
  EXPECT_EQ(provider.current()->access_key_id, "KEY0");
  EXPECT_EQ(source.calls(), 1);
  clock.advance(CredentialProvider::kRetryAfter - 1s);
  EXPECT_EQ(provider.current()->access_key_id, "KEY0");
  EXPECT_EQ(source.calls(), 1);  // not before kRetryAfter
  clock.advance(1s);
  source.fail(false);
  EXPECT_EQ(provider.current()->access_key_id, "KEY2");
  EXPECT_EQ(source.calls(), 2);
}

TEST(CredentialProvider, ExpiredCredentialsFailNamingTheSourceWithoutTheSecret) {
  ManualWallClock clock;
  CountingFetch source(clock, 10min);
  CredentialProvider provider("credential_process of profile 'p'", source.first(), source.fetch(),
                              clock.clock());
  source.fail(true);
  clock.advance(10min);
  try {
    provider.current();
    ADD_FAILURE() << "expired credentials were given";
  } catch (const CredentialsUnavailable& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("credential_process of profile 'p': the credentials expired at "
                        "2026-01-01T00:10:00Z and fetching new ones failed: the source is down"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find(kSecret), std::string::npos) << what;
  }
  EXPECT_THROW(provider.current(), CredentialsUnavailable);
  EXPECT_EQ(source.calls(), 1);  // the failing source is asked again only after kRetryAfter
  clock.advance(CredentialProvider::kRetryAfter);
  source.fail(false);
  EXPECT_EQ(provider.current()->access_key_id, "KEY2");
}

TEST(CredentialProvider, AnswersThatCannotSignAreRefused) {
  ManualWallClock clock;
  TimedCredentials first{{"KEY0", Secret(kSecret), {}}, clock.now() + 1min};
  int calls = 0;
  CredentialProvider provider(
      "src", first,
      [&] {
        ++calls;
        return TimedCredentials{{"", Secret(), {}}, clock.now() + 1h};
      },
      clock.clock());
  EXPECT_EQ(provider.current()->access_key_id, "KEY0");  // refresh tried, refused, still valid
  EXPECT_EQ(calls, 1);
  clock.advance(1min);
  clock.advance(CredentialProvider::kRetryAfter);
  try {
    provider.current();
    ADD_FAILURE() << "expired credentials were given";
  } catch (const CredentialsUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("the answer has no access key"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(CredentialProvider("src", first, {}, clock.clock()), std::invalid_argument);
}

TEST(CredentialProvider, ConcurrentCallersShareOneRefresh) {
  ManualWallClock clock;
  CountingFetch source(clock, 1h);
  CredentialProvider provider("test source", source.first(), source.fetch(), clock.clock());
  clock.advance(1h + 1s);  // expired: every caller needs the refresh
  std::vector<std::thread> callers;
  std::atomic<int> refreshed{0};
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&] {
      for (int j = 0; j < 100; ++j) {
        if (provider.current()->access_key_id == "KEY1") ++refreshed;
      }
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(refreshed.load(), 800);
  EXPECT_EQ(source.calls(), 1);
}

// Settings for a store that is never reached: the request fails before it is sent.
S3Settings expired_settings(ManualWallClock& clock, CountingFetch& source) {
  S3Settings settings;
  settings.endpoint = "http://127.0.0.1:9";
  settings.path_style = true;
  settings.credentials = std::make_shared<CredentialProvider>(
      "container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI)", source.first(), source.fetch(),
      clock.clock());
  source.fail(true);
  clock.advance(2h);
  return settings;
}

TEST(CredentialProvider, RequestsWithExpiredCredentialsAreDenied) {
  ManualWallClock clock;
  CountingFetch source(clock, 1h);
  const S3Settings settings = expired_settings(clock, source);

  RangeFetcher fetcher(settings, {});
  std::vector<std::byte> buffer(10);
  fetcher.submit({"s3://bucket/key", 0, buffer, 7, ""});
  const auto results = test_support::drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].tag, 7u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kAccessDenied));
  EXPECT_NE(results[0].message.find("GET s3://bucket/key bytes 0-9"), std::string::npos)
      << results[0].message;
  EXPECT_NE(results[0].message.find("container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI)"),
            std::string::npos)
      << results[0].message;
  EXPECT_EQ(results[0].message.find(kSecret), std::string::npos);

  ObjectStore store(settings, {});
  const auto got = store.get("s3://bucket/key");
  EXPECT_EQ(got.error, make_error_code(RemoteErrc::kAccessDenied));
  EXPECT_NE(got.message.find("GET s3://bucket/key: container credentials"), std::string::npos)
      << got.message;
}

}  // namespace
}  // namespace feedrate::io
