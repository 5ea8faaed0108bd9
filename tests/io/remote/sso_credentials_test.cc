// The chain's AWS IAM Identity Center (SSO) source against a fake portal on 127.0.0.1 (a scripted
// server answering GetRoleCredentials in JSON, as the portal does) and token caches written in a
// temporary HOME: both profile forms and the cache file each reads (the SHA-1 of the sso-session's
// name or of the start URL), the exact request (path, query, bearer header), the credentials and
// their expiry driving a refresh that reads the token again, a token that is missing, malformed
// or expired (also during a run), a 401 or 403 from the portal, a malformed answer, missing or
// inconsistent settings, the portal's endpoint, the source's place in botocore's order, and
// errors that never hold the token or a secret.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/remote/aws_profile.h"
#include "io/remote/credentials.h"
#include "io/remote/sso_config.h"
#include "tests/io/remote/credential_test_util.h"
#include "tests/io/remote/fake_metadata_servers.h"
#include "tests/io/remote/scripted_server.h"

namespace feedrate::io {
namespace {

using namespace std::chrono_literals;
// CredentialTest, Environment, ScriptedServer, http(), header_value(), request_line(),
// closed_port(), expect_resolve_error().
using namespace test_support;

constexpr const char* kToken = "aoaAAAAAGXssoAccessToken/0123456789+BearerSecretPart";
constexpr const char* kSecret = "sSoRoLeSeCrEt/0123456789+abcdefghijklmnop";
constexpr const char* kStartUrl = "https://my-sso-portal.awsapps.com/start";
// `printf %s URL | sha1sum` of kStartUrl, and the SHA-1 of "abc" (FIPS 180-1's first example),
// the session name of the tests.
constexpr const char* kStartUrlCache = "c7aaaf71fcc8777ae2475525ed049d39fe16c484.json";
constexpr const char* kSessionCache = "a9993e364706816aba3e25717850c26c9cd0d89d.json";
constexpr const char* kSource = "sso of profile 'dev' (account '123456789012', role 'reader')";
constexpr const char* kPath = "/federation/credentials?account_id=123456789012&role_name=reader";

// GetRoleCredentials: without a bearer token 401; with one, KEY-<n> (n counting requests from 1),
// session-<n>, expiring an hour after ManualWallClock's start. `status` other than 200 answers
// that status; `malformed` answers 200 without a roleCredentials object.
struct FakePortal {
  std::atomic<int> status{200};
  std::atomic<bool> malformed{false};
  ScriptedServer server{[this](const std::string& request, std::size_t index) {
    if (status != 200) return http(status, "{\"message\":\"Session token not found or invalid\"}");
    if (header_value(request, "x-amz-sso_bearer_token").empty()) return http(401);
    if (malformed) return http(200, std::string("{\"roleCredentials\": \"") + kSecret + "\"}");
    const std::string n = std::to_string(index + 1);
    return http(200, "{\"roleCredentials\": {\"accessKeyId\": \"KEY-" + n +
                         "\", \"secretAccessKey\": \"" + kSecret +
                         "\", \"sessionToken\": \"session-" + n +
                         "\", \"expiration\": 1767229200000}}");
  }};
  std::string endpoint() const { return server.url(""); }
};

class SsoCredentials : public CredentialTest {
 protected:
  std::filesystem::path cache(const std::string& file) const {
    return home_.path() / ".aws" / "sso" / "cache" / file;
  }
  // A token cache as `aws sso login` writes it.
  void cache_token(const std::string& file, const std::string& token = kToken,
                   const std::string& expires = "2026-01-01T08:00:00Z") {
    std::filesystem::create_directories(cache(file).parent_path());
    std::ofstream(cache(file)) << "{\"startUrl\": \"" << kStartUrl
                               << "\", \"region\": \"eu-central-1\", \"accessToken\": \"" << token
                               << "\", \"expiresAt\": \"" << expires << "\"}";
  }
  // HOME, the portal at the fake, the profile dev.
  Environment env() const {
    Environment environment;
    environment.set("HOME", home_.path().string())
        .set("AWS_ENDPOINT_URL_SSO", portal_.endpoint())
        .set("AWS_PROFILE", "dev");
    return environment;
  }
  std::string config_path() const { return (home_.path() / ".aws" / "config").string(); }
  // resolve_s3_settings() fails with `fragment`, holding neither the token nor the secret.
  void expect_error(const Environment& environment, const std::string& fragment) {
    expect_resolve_error(environment.lookup(), fragment, kToken, options());
    expect_resolve_error(environment.lookup(), fragment, kSecret, options());
  }

  FakePortal portal_;
};

constexpr const char* kSessionProfile =
    "[profile dev]\nsso_session = abc\nsso_account_id = 123456789012\nsso_role_name = reader\n"
    "region = eu-west-1\n[sso-session abc]\nsso_start_url = "
    "https://my-sso-portal.awsapps.com/start\nsso_region = eu-central-1\n"
    "sso_registration_scopes = sso:account:access\n";
constexpr const char* kLegacyProfile =
    "[profile dev]\nsso_start_url = https://my-sso-portal.awsapps.com/start\n"
    "sso_region = eu-central-1\nsso_account_id = 123456789012\nsso_role_name = reader\n";

TEST_F(SsoCredentials, ASessionProfileAsksThePortalWithItsCachedToken) {
  write("config", kSessionProfile);
  cache_token(kSessionCache);
  const auto settings = resolve_s3_settings(env().lookup(), options());
  EXPECT_EQ(settings.credentials->source(), kSource);
  const auto credentials = settings.credentials->current();
  EXPECT_EQ(credentials->access_key_id, "KEY-1");
  EXPECT_EQ(credentials->secret_access_key.reveal(), kSecret);
  EXPECT_EQ(credentials->session_token.reveal(), "session-1");
  const auto requests = portal_.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(request_line(requests[0]), std::string("GET ") + kPath + " HTTP/1.1");
  EXPECT_EQ(header_value(requests[0], "x-amz-sso_bearer_token"), kToken);
  EXPECT_EQ(header_value(requests[0], "Authorization"), "");
  EXPECT_EQ(settings.region, "eu-west-1");  // the profile's region, not the portal's

  // The session's cache, not the start URL's.
  std::filesystem::rename(cache(kSessionCache), cache(kStartUrlCache));
  expect_error(env(), std::string(kSource) + ": no SSO token is cached in " +
                          cache(kSessionCache).string() + "; run `aws sso login --profile dev`");
}

TEST_F(SsoCredentials, ALegacyProfileReadsTheCacheOfItsStartUrl) {
  write("config", kLegacyProfile);
  cache_token(kStartUrlCache);
  EXPECT_EQ(key(env()), "KEY-1");
  const auto requests = portal_.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(request_line(requests[0]), std::string("GET ") + kPath + " HTTP/1.1");
  EXPECT_EQ(header_value(requests[0], "x-amz-sso_bearer_token"), kToken);
  std::filesystem::rename(cache(kStartUrlCache), cache(kSessionCache));
  expect_error(env(), "no SSO token is cached in " + cache(kStartUrlCache).string());
  EXPECT_EQ(portal_.server.requests().size(), 1u);
}

TEST_F(SsoCredentials, TheCredentialsExpiryDrivesARefreshThatReadsTheTokenAgain) {
  write("config", kSessionProfile);
  cache_token(kSessionCache);
  const auto settings = resolve_s3_settings(env().lookup(), options());
  const auto first = settings.credentials->current();
  clock_.advance(50min);
  EXPECT_EQ(settings.credentials->current(), first);
  EXPECT_EQ(portal_.server.requests().size(), 1u);
  cache_token(kSessionCache, "token-of-a-new-login");
  clock_.advance(6min);  // within 5 minutes of the expiration
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-2");
  const auto requests = portal_.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(header_value(requests[1], "x-amz-sso_bearer_token"), "token-of-a-new-login");
}

// The token expires before the credentials: they serve until they expire, then each request
// fails saying to log in again.
TEST_F(SsoCredentials, ATokenThatExpiresDuringTheRunStopsTheRefresh) {
  write("config", kSessionProfile);
  cache_token(kSessionCache, kToken, "2026-01-01T00:30:00Z");
  const auto settings = resolve_s3_settings(env().lookup(), options());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-1");
  clock_.advance(56min);
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-1");
  clock_.advance(5min);
  try {
    settings.credentials->current();
    ADD_FAILURE() << "credentials after their expiry";
  } catch (const CredentialsUnavailable& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(std::string(kSource) + ": the SSO token cached in " +
                        cache(kSessionCache).string() +
                        " expired at 2026-01-01T00:30:00Z; run `aws sso login --profile dev`"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find(kToken), std::string::npos) << what;
  }
  EXPECT_EQ(portal_.server.requests().size(), 1u);
}

TEST_F(SsoCredentials, AnExpiredOrBrokenTokenCacheSaysToLogIn) {
  write("config", kSessionProfile);
  const std::string path = cache(kSessionCache).string();
  const std::string login = "; run `aws sso login --profile dev`";
  cache_token(kSessionCache, kToken, "2025-12-31T23:00:00Z");
  expect_error(env(), std::string(kSource) + ": the SSO token cached in " + path +
                          " expired at 2025-12-31T23:00:00Z" + login);
  // The form older AWS CLIs wrote.
  cache_token(kSessionCache, kToken, "2025-12-31T23:00:00UTC");
  expect_error(env(), " expired at 2025-12-31T23:00:00Z" + login);
  cache_token(kSessionCache, kToken, "2026-01-01T08:00:00UTC");
  EXPECT_EQ(key(env()), "KEY-1");
  cache_token(kSessionCache, kToken, "tomorrow");
  expect_error(env(), std::string(kSource) + ": \"expiresAt\" in the SSO token cache " + path +
                          " is not an ISO 8601 timestamp");
  std::ofstream(cache(kSessionCache)) << "{\"accessToken\": 5, \"expiresAt\": \"x\"}";
  expect_error(env(), "the SSO token cache " + path +
                          " is not JSON with a string \"accessToken\" and \"expiresAt\"" + login);
  std::ofstream(cache(kSessionCache)) << kToken;
  expect_error(env(), "the SSO token cache " + path + " is not JSON");
  EXPECT_EQ(portal_.server.requests().size(), 1u);
}

TEST_F(SsoCredentials, PortalRefusalsNameAccountRoleAndEndpoint) {
  write("config", kSessionProfile);
  cache_token(kSessionCache);
  const std::string get = std::string(kSource) + ": GET " + portal_.endpoint() + kPath;
  portal_.status = 403;
  expect_error(env(), get + ": HTTP 403");
  portal_.status = 401;
  expect_error(env(), get + ": HTTP 401: the portal refused the SSO token cached in " +
                          cache(kSessionCache).string() + "; run `aws sso login --profile dev`");
  portal_.status = 200;
  portal_.malformed = true;
  expect_error(env(), get + ": the JSON has no \"roleCredentials\" object");
  Environment nothing = env();
  nothing.set("AWS_ENDPOINT_URL_SSO", "http://127.0.0.1:" + std::to_string(closed_port()));
  expect_error(nothing, std::string(kSource) + ": GET http://127.0.0.1:");
}

// A profile that names its sso-session and holds the account and the role.
constexpr const char* kSessionReference =
    "[profile dev]\nsso_session = abc\nsso_account_id = 1\nsso_role_name = reader\n";

TEST_F(SsoCredentials, MissingOrInconsistentSettingsAreNamed) {
  const std::string in = "profile 'dev' in " + config_path();
  write("config", "[profile dev]\nsso_start_url = " + std::string(kStartUrl) +
                      "\nsso_region = eu-central-1\nsso_account_id = 123456789012\n");
  expect_error(env(), in + " is configured for SSO but is missing sso_role_name");
  write("config", "[profile dev]\nsso_account_id = 123456789012\n");
  expect_error(env(), in + " is configured for SSO but is missing sso_start_url, sso_region, "
                           "sso_role_name");
  write("config", kSessionReference);
  expect_error(env(),
               in + ": sso_session 'abc' has no [sso-session abc] section in " + config_path());
  write("config",
        kSessionReference + std::string("[sso-session abc]\nsso_start_url = ") + kStartUrl + "\n");
  expect_error(env(), in + " is configured for SSO but is missing sso_region (in the profile or "
                           "its [sso-session abc])");
  write("config", kSessionReference +
                      std::string("sso_region = us-east-1\n[sso-session abc]\n"
                                  "sso_start_url = ") +
                      kStartUrl + "\nsso_region = eu-central-1\n");
  expect_error(env(), in + ": sso_region is 'us-east-1' in the profile but 'eu-central-1' in its "
                           "[sso-session abc]");
  EXPECT_TRUE(portal_.server.requests().empty());
}

TEST_F(SsoCredentials, ThePortalsEndpoint) {
  write("config", kSessionProfile);
  const Environment environment = env().unset("AWS_ENDPOINT_URL_SSO");
  const AwsProfiles files = read_aws_profiles(environment.lookup());
  const auto config = read_sso_config(environment.lookup(), find_profile(files, "dev"));
  ASSERT_TRUE(config);
  EXPECT_EQ(config->endpoint, "https://portal.sso.eu-central-1.amazonaws.com");
  EXPECT_EQ(config->token_cache, cache(kSessionCache));
  EXPECT_EQ(sha1_hex("abc") + ".json", kSessionCache);

  FakePortal global;
  cache_token(kSessionCache);
  Environment both = env();
  both.set("AWS_ENDPOINT_URL", global.endpoint());
  EXPECT_EQ(key(both), "KEY-1");
  EXPECT_EQ(portal_.server.requests().size(), 1u);  // AWS_ENDPOINT_URL_SSO first
  both.unset("AWS_ENDPOINT_URL_SSO");
  EXPECT_EQ(key(both), "KEY-1");
  EXPECT_EQ(global.server.requests().size(), 1u);
}

// botocore's order: the environment's keys, assume-role, web identity, SSO, then the profile's
// keys in the credentials file.
TEST_F(SsoCredentials, SourcesInBotocoresOrder) {
  write("config", kSessionProfile);
  write("credentials", std::string("[dev]\naws_access_key_id = KEY-PROFILE\n"
                                   "aws_secret_access_key = ") +
                           kSecret + "\n");
  cache_token(kSessionCache);
  Environment all = env();
  all.set("AWS_ACCESS_KEY_ID", "KEY-ENV").set("AWS_SECRET_ACCESS_KEY", kSecret);
  EXPECT_EQ(key(all), "KEY-ENV");
  all.unset("AWS_ACCESS_KEY_ID").unset("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(key(all), "KEY-1");  // SSO before the profile's keys
  // Web identity comes first: its STS (nothing listens there) is asked, not the portal.
  const auto token_file = home_ / "web-identity-token";
  std::ofstream(token_file) << "web-identity-token\n";
  all.set("AWS_WEB_IDENTITY_TOKEN_FILE", token_file.string())
      .set("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/pod")
      .set("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:" + std::to_string(closed_port()));
  expect_error(all, "web identity (AWS_ROLE_ARN 'arn:aws:iam::123456789012:role/pod'): POST");
  EXPECT_EQ(portal_.server.requests().size(), 1u);
  write("config", "");
  EXPECT_EQ(key(env()), "KEY-PROFILE");
}

}  // namespace
}  // namespace feedrate::io
