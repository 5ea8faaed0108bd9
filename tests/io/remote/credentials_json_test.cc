// The JSON of temporary credentials and its timestamps: the two token field names, optional
// token and expiration, Version 1 for a credential_process, the SSO portal's roleCredentials
// with milliseconds, ISO 8601 in UTC (also "UTC" as the zone) and with offsets, and refusals that
// name the field but never quote the text (it holds the secret).
#include "io/remote/credentials_json.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "io/remote/utc_time.h"

namespace feedrate::io {
namespace {

constexpr const char* kSecret = "jSoNsEcReT/abcdefghijklmnopqrstuvwxyz012";

std::string with_secret(const std::string& rest) {
  return "{\"AccessKeyId\": \"AKIA\", \"SecretAccessKey\": \"" + std::string(kSecret) + "\"" +
         rest + "}";
}

void expect_refused(const std::string& text, CredentialsJson kind, const std::string& fragment) {
  try {
    parse_credentials_json(text, kind, "origin");
    ADD_FAILURE() << "parsed";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("origin: " + fragment), std::string::npos) << what;
    EXPECT_EQ(what.find(kSecret), std::string::npos) << what;
  }
}

// The credentials hold `key`, kSecret and `token`, expiring at 2026-12-02T15:04:05Z.
void expect_parsed(const TimedCredentials& timed, const std::string& key,
                   const std::string& token) {
  EXPECT_EQ(timed.credentials.access_key_id, key);
  EXPECT_EQ(timed.credentials.secret_access_key.reveal(), kSecret);
  EXPECT_EQ(timed.credentials.session_token.reveal(), token);
  ASSERT_TRUE(timed.expiration);
  EXPECT_EQ(format_utc_time(*timed.expiration), "2026-12-02T15:04:05Z");
}

TEST(CredentialsJson, MetadataAnswers) {
  expect_parsed(parse_credentials_json(
                    with_secret(", \"Token\": \"tok\", \"Expiration\": \"2026-12-02T15:04:05Z\", "
                                "\"Code\": \"Success\", \"Type\": \"AWS-HMAC\""),
                    CredentialsJson::kMetadata, "origin"),
                "AKIA", "tok");
}

TEST(CredentialsJson, ProcessOutputNeedsVersionOne) {
  const auto timed =
      parse_credentials_json(with_secret(", \"Version\": 1, \"SessionToken\": \"st\""),
                             CredentialsJson::kProcess, "origin");
  EXPECT_EQ(timed.credentials.session_token.reveal(), "st");
  EXPECT_FALSE(timed.expiration);  // long-term keys
  expect_refused(with_secret(""), CredentialsJson::kProcess, "the JSON needs \"Version\": 1");
  expect_refused(with_secret(", \"Version\": \"1\""), CredentialsJson::kProcess,
                 "the JSON needs \"Version\": 1");
}

TEST(CredentialsJson, RefusalsNameTheFieldNotTheText) {
  expect_refused(std::string(kSecret), CredentialsJson::kMetadata,
                 "the answer is not a JSON object");
  expect_refused("[\"" + std::string(kSecret) + "\"]", CredentialsJson::kMetadata,
                 "the answer is not a JSON object");
  expect_refused("{\"SecretAccessKey\": \"" + std::string(kSecret) + "\"}",
                 CredentialsJson::kMetadata, "the JSON has no \"AccessKeyId\"");
  expect_refused(with_secret(", \"Token\": 5"), CredentialsJson::kMetadata,
                 "\"Token\" in the JSON is not a string");
  expect_refused(with_secret(", \"Expiration\": \"soon\""), CredentialsJson::kMetadata,
                 "\"Expiration\" is not an ISO 8601 timestamp");
  expect_refused("{\"AccessKeyId\": \"\", \"SecretAccessKey\": \"" + std::string(kSecret) + "\"}",
                 CredentialsJson::kMetadata, "\"AccessKeyId\" or \"SecretAccessKey\" is empty");
}

TEST(CredentialsJson, SsoRoleCredentials) {
  expect_parsed(parse_credentials_json(
                    "{\"roleCredentials\": {\"accessKeyId\": \"ASIA\", \"secretAccessKey\": \"" +
                        std::string(kSecret) +
                        "\", \"sessionToken\": \"st\", \"expiration\": 1796223845000}}",
                    CredentialsJson::kSso, "origin"),
                "ASIA", "st");
  expect_refused(with_secret(""), CredentialsJson::kSso,
                 "the JSON has no \"roleCredentials\" object");
  expect_refused("{\"roleCredentials\": {\"accessKeyId\": \"ASIA\", \"secretAccessKey\": \"" +
                     std::string(kSecret) + "\", \"expiration\": \"2026-12-02T15:04:05Z\"}}",
                 CredentialsJson::kSso,
                 "\"expiration\" in the JSON is not a number of milliseconds since the epoch");
  expect_refused("{\"roleCredentials\": {\"secretAccessKey\": \"" + std::string(kSecret) +
                     "\", \"expiration\": 1}}",
                 CredentialsJson::kSso, "the JSON has no \"accessKeyId\"");
}

TEST(UtcTime, ReadsUtcOffsetsAndFractions) {
  const auto z = parse_utc_time("2026-12-02T15:04:05Z");
  EXPECT_EQ(parse_utc_time("2026-12-02T15:04:05.123456Z") - z, std::chrono::microseconds(0))
      << "fractions are dropped to whole seconds";
  EXPECT_EQ(parse_utc_time("2026-12-02T17:04:05+02:00"), z);
  EXPECT_EQ(parse_utc_time("2026-12-02T10:34:05-04:30"), z);
  EXPECT_EQ(parse_utc_time("2026-12-02T15:04:05UTC"), z);  // older AWS CLIs' SSO token cache
  EXPECT_EQ(format_utc_time(z), "2026-12-02T15:04:05Z");
  for (const char* bad :
       {"", "2026-12-02", "2026-12-02T15:04:05", "2026-13-02T15:04:05Z", "2026-12-02T15:04:05Zjunk",
        "2026/12/02T15:04:05Z", "2026-12-02T15:04:05UTCjunk", "2026-12-02T15:04:05UT"}) {
    EXPECT_THROW(parse_utc_time(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace feedrate::io
