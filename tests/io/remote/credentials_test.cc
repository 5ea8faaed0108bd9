// The credential chain in the AWS tools' order, with a fake environment and temporary AWS files:
// environment keys, profiles from the credentials and the config file, profile
// (AWS_DEFAULT_PROFILE, AWS_PROFILE), region and endpoint precedence, unsigned requests, and error
// texts that never contain a secret.
#include "io/remote/credentials.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "io/remote/aws_config_file.h"
#include "tests/io/remote/credential_test_util.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRET";

using test_support::Environment;

class Credentials : public ::testing::Test {
 protected:
  void write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(home_.path() / ".aws");
    std::ofstream(home_.path() / ".aws" / name) << text;
  }
  std::string path(const std::string& name) const {
    return (home_.path() / ".aws" / name).string();
  }
  Environment env() const {
    Environment environment;
    environment.set("HOME", home_.path().string());
    return environment;
  }

  testing::TempDir home_;
};

TEST_F(Credentials, NoneMeansUnsignedRequestsToAws) {
  const auto settings = resolve_s3_settings(env().lookup());
  EXPECT_FALSE(settings.credentials->signs());
  EXPECT_EQ(settings.credentials->source(), "none: unsigned requests");
  EXPECT_EQ(settings.region, "us-east-1");
  EXPECT_EQ(settings.endpoint, "");
  EXPECT_FALSE(settings.path_style);
}

TEST_F(Credentials, EnvironmentKeysComeFirst) {
  write("credentials", "[default]\naws_access_key_id = FROMFILE\naws_secret_access_key = x\n");
  const auto settings = resolve_s3_settings(env()
                                                .set("AWS_ACCESS_KEY_ID", "AKIAENV")
                                                .set("AWS_SECRET_ACCESS_KEY", kSecret)
                                                .set("AWS_SESSION_TOKEN", "token")
                                                .lookup());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "AKIAENV");
  EXPECT_EQ(settings.credentials->current()->secret_access_key.reveal(), kSecret);
  EXPECT_EQ(settings.credentials->current()->session_token.reveal(), "token");
  EXPECT_EQ(settings.credentials->source(), "environment (AWS_ACCESS_KEY_ID)");
}

TEST_F(Credentials, DefaultProfileFromTheCredentialsFile) {
  write("credentials",
        "# comment\n[other]\naws_access_key_id = NO\naws_secret_access_key = no\n\n"
        "[default]\n  aws_access_key_id=AKIAFILE  \naws_secret_access_key = " +
            std::string(kSecret) + "\n; another comment\n");
  const auto settings = resolve_s3_settings(env().lookup());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "AKIAFILE");
  EXPECT_EQ(settings.credentials->current()->secret_access_key.reveal(), kSecret);
  EXPECT_TRUE(settings.credentials->current()->session_token.empty());
  EXPECT_EQ(settings.credentials->source(), "profile 'default' in " + path("credentials"));
}

TEST_F(Credentials, NamedProfileFromTheConfigFileWithRegionAndEndpoint) {
  write("config",
        "[default]\nregion = eu-west-1\n"
        "[profile minio]\nregion = auto\naws_access_key_id = AKIACONF\n"
        "aws_secret_access_key = s\nendpoint_url = http://127.0.0.1:9000/\n");
  const auto settings = resolve_s3_settings(env().set("AWS_PROFILE", "minio").lookup());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "AKIACONF");
  EXPECT_EQ(settings.credentials->source(), "profile 'minio' in " + path("config"));
  EXPECT_EQ(settings.region, "auto");
  EXPECT_EQ(settings.endpoint, "http://127.0.0.1:9000");
  EXPECT_TRUE(settings.path_style);
}

TEST_F(Credentials, TheCredentialsFileWinsOverTheConfigFile) {
  write("credentials", "[p]\naws_access_key_id = CRED\naws_secret_access_key = s\n");
  write("config", "[profile p]\naws_access_key_id = CONF\naws_secret_access_key = s\n");
  const auto settings = resolve_s3_settings(env().set("AWS_PROFILE", "p").lookup());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "CRED");
}

TEST_F(Credentials, FileLocationsCanBeOverridden) {
  testing::TempDir elsewhere;
  std::ofstream(elsewhere / "creds") << "[default]\naws_access_key_id = OVR\n"
                                        "aws_secret_access_key = s\naws_session_token = t\n";
  std::ofstream(elsewhere / "conf") << "[default]\nregion = ap-south-1\n";
  const auto settings =
      resolve_s3_settings(env()
                              .set("AWS_SHARED_CREDENTIALS_FILE", (elsewhere / "creds").string())
                              .set("AWS_CONFIG_FILE", (elsewhere / "conf").string())
                              .lookup());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "OVR");
  EXPECT_EQ(settings.credentials->current()->session_token.reveal(), "t");
  EXPECT_EQ(settings.region, "ap-south-1");
  EXPECT_EQ(settings.credentials->source(),
            "profile 'default' in " + (elsewhere / "creds").string());
}

// botocore's session variable 'profile' reads AWS_DEFAULT_PROFILE, then AWS_PROFILE.
TEST_F(Credentials, ProfilePrecedence) {
  write("credentials",
        "[default]\naws_access_key_id = DEFAULT\naws_secret_access_key = s\n"
        "[older]\naws_access_key_id = OLDER\naws_secret_access_key = s\n"
        "[newer]\naws_access_key_id = NEWER\naws_secret_access_key = s\n");
  write("config", "[profile older]\nregion = eu-north-1\n");
  const auto key = [](const S3Settings& settings) {
    return settings.credentials->current()->access_key_id;
  };
  EXPECT_EQ(key(resolve_s3_settings(env().lookup())), "DEFAULT");
  const auto older = resolve_s3_settings(env().set("AWS_DEFAULT_PROFILE", "older").lookup());
  EXPECT_EQ(key(older), "OLDER");
  EXPECT_EQ(older.region, "eu-north-1");  // the profile's settings come with it
  EXPECT_EQ(older.credentials->source(), "profile 'older' in " + path("credentials"));
  EXPECT_EQ(key(resolve_s3_settings(env().set("AWS_PROFILE", "newer").lookup())), "NEWER");
  EXPECT_EQ(key(resolve_s3_settings(
                env().set("AWS_DEFAULT_PROFILE", "older").set("AWS_PROFILE", "newer").lookup())),
            "OLDER");
}

TEST_F(Credentials, RegionPrecedence) {
  write("config", "[default]\nregion = from-config\n");
  EXPECT_EQ(resolve_s3_settings(env().lookup()).region, "from-config");
  EXPECT_EQ(resolve_s3_settings(env().set("AWS_DEFAULT_REGION", "dflt").lookup()).region, "dflt");
  EXPECT_EQ(
      resolve_s3_settings(env().set("AWS_DEFAULT_REGION", "dflt").set("AWS_REGION", "reg").lookup())
          .region,
      "reg");
}

TEST_F(Credentials, EndpointPrecedence) {
  write("config",
        "[default]\nendpoint_url = http://any:1\ns3 =\n  endpoint_url = http://s3-only:2\n"
        "  addressing_style = path\nregion = r\n");
  EXPECT_EQ(read_aws_config_file(path("config")).sections.at("default").at("s3.endpoint_url"),
            "http://s3-only:2");
  EXPECT_EQ(resolve_s3_settings(env().lookup()).endpoint, "http://s3-only:2");
  EXPECT_EQ(resolve_s3_settings(env().set("AWS_ENDPOINT_URL", "http://global:3").lookup()).endpoint,
            "http://global:3");
  EXPECT_EQ(resolve_s3_settings(env()
                                    .set("AWS_ENDPOINT_URL", "http://global:3")
                                    .set("AWS_ENDPOINT_URL_S3", "https://s3env:4")
                                    .lookup())
                .endpoint,
            "https://s3env:4");
  EXPECT_EQ(resolve_s3_settings(env().lookup()).region, "r");  // the sub-section ended
}

TEST_F(Credentials, NoSignRequestForcesUnsigned) {
  const auto settings = resolve_s3_settings(env()
                                                .set("AWS_ACCESS_KEY_ID", "AKIA")
                                                .set("AWS_SECRET_ACCESS_KEY", kSecret)
                                                .set("AWS_NO_SIGN_REQUEST", "true")
                                                .lookup());
  EXPECT_FALSE(settings.credentials->signs());
  EXPECT_EQ(settings.credentials->source(), "none: unsigned requests (AWS_NO_SIGN_REQUEST)");
}

// Every error of the chain names the problem and never the secret.
void expect_error(const EnvLookup& env, const std::string& fragment) {
  test_support::expect_resolve_error(env, fragment, kSecret);
}

TEST_F(Credentials, InconsistentSettingsFailWithoutTheSecret) {
  expect_error(env().set("AWS_SECRET_ACCESS_KEY", kSecret).lookup(),
               "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  expect_error(env().set("AWS_PROFILE", "missing").lookup(),
               "AWS_PROFILE names profile 'missing', which is in neither");
  expect_error(env().set("AWS_DEFAULT_PROFILE", "gone").set("AWS_PROFILE", "missing").lookup(),
               "AWS_DEFAULT_PROFILE names profile 'gone', which is in neither");
  expect_error(env().set("AWS_ENDPOINT_URL", "ftp://x").lookup(), "scheme 'ftp'");
  expect_error(env().set("AWS_ENDPOINT_URL", "http://x/bucket").lookup(),
               "must be http(s)://host[:port]");
  write("credentials", "[default]\naws_secret_access_key = " + std::string(kSecret) + "\n");
  expect_error(env().lookup(), "aws_secret_access_key without aws_access_key_id");
  write("credentials", "[default]\n" + std::string(kSecret) + "\n");
  expect_error(env().lookup(), path("credentials") + ":2: expected '[section]' or 'key = value'");
}

}  // namespace
}  // namespace feedrate::io
