// The chain's two STS sources against a fake STS on 127.0.0.1 (a scripted server answering
// AssumeRole and AssumeRoleWithWebIdentity as STS does, in XML): their place in botocore's order,
// the form each request sends (action, version, role, session name, external id, duration, the
// token), the signature's scope and key for AssumeRole (its bytes are checked against moto in
// object_store_server_test.cc), a chain of source profiles, a credential_source (instance
// metadata, container, environment) and a refresh before its credentials expire, the STS
// endpoint's precedence, a
// refresh that reads the token file again, and errors that name the role, the endpoint, the
// status and STS's Code and Message without the token or a secret.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/remote/aws_profile.h"
#include "io/remote/credentials.h"
#include "io/remote/role_credentials.h"
#include "tests/io/remote/credential_test_util.h"
#include "tests/io/remote/fake_metadata_servers.h"
#include "tests/io/remote/scripted_server.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

using namespace std::chrono_literals;
// CredentialTest, Environment, ScriptedServer, http(), header_value(), expect_resolve_error(),
// FakeImds, FakeContainer.
using namespace test_support;

constexpr const char* kSecret = "sTsSoUrCeSeCrEt/0123456789+abcdefghijklmn";
constexpr const char* kToken = "eyJhbGciOiJSUzI1NiJ9.web-identity-token.SiGnAtUrE";
constexpr const char* kRole = "arn:aws:iam::123456789012:role/reader";
constexpr const char* kEncodedRole = "arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Freader";
constexpr const char* kExpiration = "2026-01-01T01:00:00Z";  // ManualWallClock's start + 1 h

std::string body_of(const std::string& request) {
  return request.substr(request.find("\r\n\r\n") + 4);
}

// The encoded value of form field `name`, empty when absent.
std::string field(const std::string& request, const std::string& name) {
  const std::string form = "&" + body_of(request) + "&";
  const auto at = form.find("&" + name + "=");
  if (at == std::string::npos) return {};
  const auto start = at + name.size() + 2;
  return form.substr(start, form.find('&', start) - start);
}

// STS: each answer's AccessKeyId is KEY-<n> (n counting requests from 1) and its session token
// session-<n>; `status` other than 200 answers an <ErrorResponse> quoting the request's token.
struct FakeSts {
  std::atomic<int> status{200};
  std::string expiration = kExpiration;
  ScriptedServer server{[this](const std::string& request, std::size_t index) {
    const std::string action = field(request, "Action");
    if (status != 200) {
      return http(status,
                  "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
                  "<Message>Not authorized for token " +
                      field(request, "WebIdentityToken") + "</Message></Error></ErrorResponse>");
    }
    const std::string n = std::to_string(index + 1);
    return http(200,
                "<" + action + "Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><" +
                    action + "Result><Credentials><AccessKeyId>KEY-" + n +
                    "</AccessKeyId><SecretAccessKey>" + kSecret +
                    "</SecretAccessKey><SessionToken>session-" + n + "</SessionToken><Expiration>" +
                    expiration + "</Expiration></Credentials></" + action + "Result></" + action +
                    "Response>");
  }};
  std::string endpoint() const { return server.url(""); }
};

class StsCredentials : public CredentialTest {
 protected:
  std::string token_file(const std::string& token) {
    const auto path = home_ / "token";
    std::ofstream(path) << token << "\n";
    return path.string();
  }
  // HOME, and STS at the fake.
  Environment env() const {
    Environment environment;
    environment.set("HOME", home_.path().string())
        .set("AWS_ENDPOINT_URL_STS", sts_.endpoint())
        .set("AWS_REGION", "eu-west-3");
    return environment;
  }
  Environment web_identity() {
    Environment environment = env();
    environment.set("AWS_ROLE_ARN", kRole)
        .set("AWS_WEB_IDENTITY_TOKEN_FILE", token_file(kToken))
        .set("AWS_ROLE_SESSION_NAME", "pod-a");
    return environment;
  }

  FakeSts sts_;
};

TEST_F(StsCredentials, WebIdentitySendsTheTokenUnsigned) {
  const auto settings = resolve_s3_settings(web_identity().lookup(), options());
  EXPECT_EQ(settings.credentials->source(),
            std::string("web identity (AWS_ROLE_ARN '") + kRole + "')");
  const auto credentials = settings.credentials->current();
  EXPECT_EQ(credentials->access_key_id, "KEY-1");
  EXPECT_EQ(credentials->secret_access_key.reveal(), kSecret);
  EXPECT_EQ(credentials->session_token.reveal(), "session-1");
  const auto requests = sts_.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].substr(0, requests[0].find("\r\n")), "POST / HTTP/1.1");
  EXPECT_EQ(body_of(requests[0]),
            std::string("Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=") +
                kEncodedRole + "&RoleSessionName=pod-a&WebIdentityToken=" + kToken);
  EXPECT_EQ(header_value(requests[0], "Authorization"), "");
  EXPECT_EQ(header_value(requests[0], "Content-Type"),
            "application/x-www-form-urlencoded; charset=utf-8");
}

TEST_F(StsCredentials, WebIdentityRefreshReadsTheTokenAgain) {
  const auto settings = resolve_s3_settings(web_identity().lookup(), options());
  const auto first = settings.credentials->current();
  clock_.advance(50min);
  EXPECT_EQ(settings.credentials->current(), first);
  token_file("rotated-token");
  clock_.advance(6min);  // within 5 minutes of the expiration
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-2");
  const auto requests = sts_.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(field(requests[1], "WebIdentityToken"), "rotated-token");
  EXPECT_EQ(field(requests[1], "RoleSessionName"), "pod-a");
}

TEST_F(StsCredentials, WebIdentityFromTheProfile) {
  write("config", std::string("[profile eks]\nrole_arn = ") + kRole +
                      "\nweb_identity_token_file = " + token_file(kToken) + "\n");
  const auto settings = resolve_s3_settings(env().set("AWS_PROFILE", "eks").lookup(), options());
  EXPECT_EQ(settings.credentials->source(),
            std::string("web identity (profile 'eks', role '") + kRole + "')");
  const auto requests = sts_.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(field(requests[0], "RoleArn"), kEncodedRole);
  // No session name configured: one of feedrate's own.
  EXPECT_TRUE(field(requests[0], "RoleSessionName").starts_with("feedrate-session-"));
}

TEST_F(StsCredentials, SourcesInBotocoresOrder) {
  write("credentials", std::string("[src]\naws_access_key_id = KEY-SRC\naws_secret_access_key = ") +
                           kSecret +
                           "\n[default]\naws_access_key_id = KEY-PROFILE\n"
                           "aws_secret_access_key = s\n");
  write("config", std::string("[default]\nrole_arn = ") + kRole + "\nsource_profile = src\n");
  Environment all = web_identity();
  all.set("AWS_ACCESS_KEY_ID", "KEY-ENV").set("AWS_SECRET_ACCESS_KEY", kSecret);
  EXPECT_EQ(key(all), "KEY-ENV");
  all.unset("AWS_ACCESS_KEY_ID").unset("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(key(all), "KEY-1");  // assume-role
  EXPECT_EQ(field(sts_.server.requests().back(), "Action"), "AssumeRole");
  write("config", "");
  EXPECT_EQ(key(all), "KEY-2");  // web identity, before the profile's keys
  EXPECT_EQ(field(sts_.server.requests().back(), "Action"), "AssumeRoleWithWebIdentity");
  all.unset("AWS_WEB_IDENTITY_TOKEN_FILE");
  EXPECT_EQ(key(all), "KEY-PROFILE");
  EXPECT_EQ(sts_.server.requests().size(), 2u);
}

TEST_F(StsCredentials, AssumeRoleIsSignedWithTheSourceProfilesKeys) {
  write("credentials", std::string("[src]\naws_access_key_id = KEY-SRC\naws_secret_access_key = ") +
                           kSecret + "\n");
  write("config", std::string("[profile reader]\nrole_arn = ") + kRole +
                      "\nsource_profile = src\nrole_session_name = batch-7\n"
                      "external_id = ext/42\nduration_seconds = 1800\n");
  const auto settings = resolve_s3_settings(env().set("AWS_PROFILE", "reader").lookup(), options());
  EXPECT_EQ(settings.credentials->source(), std::string("assume-role of profile 'reader' (role '") +
                                                kRole + "', source profile 'src')");
  EXPECT_EQ(settings.credentials->current()->session_token.reveal(), "session-1");
  const auto requests = sts_.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(body_of(requests[0]),
            std::string("Action=AssumeRole&Version=2011-06-15&RoleArn=") + kEncodedRole +
                "&RoleSessionName=batch-7&DurationSeconds=1800&ExternalId=ext%2F42");
  const auto authorization = header_value(requests[0], "Authorization");
  EXPECT_TRUE(authorization.starts_with("AWS4-HMAC-SHA256 Credential=KEY-SRC/")) << authorization;
  EXPECT_NE(authorization.find("/eu-west-3/sts/aws4_request"), std::string::npos) << authorization;
  EXPECT_EQ(header_value(requests[0], "x-amz-security-token"), "");
  EXPECT_EQ(authorization.find(kSecret), std::string::npos);
}

TEST_F(StsCredentials, AChainOfSourceProfilesAssumesEachRoleInTurn) {
  write("config", std::string("[profile a]\nrole_arn = ") + kRole +
                      "\nsource_profile = b\n[profile b]\n"
                      "role_arn = arn:aws:iam::123456789012:role/hop\nsource_profile = c\n"
                      "[profile c]\naws_access_key_id = KEY-C\naws_secret_access_key = " +
                      kSecret + "\n");
  EXPECT_EQ(key(env().set("AWS_PROFILE", "a")), "KEY-2");
  const auto requests = sts_.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(field(requests[0], "RoleArn"), "arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fhop");
  EXPECT_TRUE(header_value(requests[0], "Authorization").find("Credential=KEY-C/") !=
              std::string::npos);
  // The second hop is signed with the first role's temporary credentials and their token.
  EXPECT_EQ(field(requests[1], "RoleArn"), kEncodedRole);
  EXPECT_NE(header_value(requests[1], "Authorization").find("Credential=KEY-1/"),
            std::string::npos);
  EXPECT_EQ(header_value(requests[1], "x-amz-security-token"), "session-1");

  write("config",
        "[profile a]\nrole_arn = r\nsource_profile = b\n"
        "[profile b]\nrole_arn = r2\nsource_profile = a\n");
  expect_resolve_error(env().set("AWS_PROFILE", "a").lookup(),
                       "the source_profile chain loops: a -> b -> a", kSecret, options());
}

// credential_source: the credentials of the environment, the container endpoint or the instance
// metadata service sign the AssumeRole, with their session token.
TEST_F(StsCredentials, ACredentialSourceSignsAssumeRole) {
  auto signer = [&](std::size_t request) {
    return header_value(sts_.server.requests().at(request), "Authorization");
  };
  auto token = [&](std::size_t request) {
    return header_value(sts_.server.requests().at(request), "x-amz-security-token");
  };
  FakeImds imds;
  write("config", std::string("[default]\nrole_arn = ") + kRole +
                      "\ncredential_source = Ec2InstanceMetadata\n");
  // Asked although the options leave instance metadata out of the chain: the profile names it.
  auto settings = resolve_s3_settings(
      env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()).lookup(), options());
  EXPECT_EQ(settings.credentials->source(),
            std::string("assume-role of profile 'default' (role '") + kRole +
                "', credential_source Ec2InstanceMetadata)");
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-1");
  EXPECT_NE(signer(0).find("Credential=KEY-IMDS/"), std::string::npos) << signer(0);
  EXPECT_EQ(token(0), "session-KEY-IMDS");
  EXPECT_EQ(imds.server.requests().size(), 3u);

  FakeContainer container;
  write("config",
        std::string("[default]\nrole_arn = ") + kRole + "\ncredential_source = EcsContainer\n");
  settings = resolve_s3_settings(
      env()
          .set("AWS_CONTAINER_CREDENTIALS_FULL_URI", container.server.url("/creds"))
          .set("AWS_CONTAINER_AUTHORIZATION_TOKEN", kContainerToken)
          .lookup(),
      options());
  EXPECT_EQ(settings.credentials->source(),
            std::string("assume-role of profile 'default' (role '") + kRole +
                "', credential_source EcsContainer)");
  EXPECT_NE(signer(1).find("Credential=KEY-CONTAINER/"), std::string::npos) << signer(1);
  EXPECT_EQ(token(1), "session-KEY-CONTAINER");
  // The source's failure names the profile and the source, without the container's token.
  expect_resolve_error(
      env()
          .set("AWS_CONTAINER_CREDENTIALS_FULL_URI", container.server.url("/creds"))
          .set("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong-container-token")
          .lookup(),
      "profile 'default' in " + (home_ / ".aws" / "config").string() +
          ": credential_source EcsContainer: container credentials "
          "(AWS_CONTAINER_CREDENTIALS_FULL_URI): GET " +
          container.server.url("/creds") + ": HTTP 401",
      "wrong-container-token", options());
  EXPECT_EQ(sts_.server.requests().size(), 2u);

  // Environment: in the chain the keys win before any profile is read (as in botocore without
  // an explicit profile), so the role's source is asked directly.
  write("config",
        std::string("[default]\nrole_arn = ") + kRole + "\ncredential_source = Environment\n");
  const Environment keys = env()
                               .set("AWS_ACCESS_KEY_ID", "KEY-ENV")
                               .set("AWS_SECRET_ACCESS_KEY", kSecret)
                               .set("AWS_SESSION_TOKEN", "session-ENV");
  const AwsProfiles files = read_aws_profiles(keys.lookup());
  const auto role = assume_role_source(keys.lookup(), find_profile(files, "default"), "eu-west-3");
  ASSERT_TRUE(role);
  EXPECT_EQ(role->source, std::string("assume-role of profile 'default' (role '") + kRole +
                              "', credential_source Environment)");
  EXPECT_EQ(role->fetch().credentials.access_key_id, "KEY-3");
  EXPECT_NE(signer(2).find("Credential=KEY-ENV/"), std::string::npos) << signer(2);
  EXPECT_EQ(token(2), "session-ENV");
}

// Temporary source credentials that expire before the role's: the role is assumed again (with
// the source asked again) before they do.
TEST_F(StsCredentials, TheRoleIsRefreshedBeforeItsSourceExpires) {
  FakeImds imds;
  imds.expiration = "2026-01-01T00:30:00Z";  // STS's expire at 01:00
  write("config", std::string("[default]\nrole_arn = ") + kRole +
                      "\ncredential_source = Ec2InstanceMetadata\n");
  const auto settings = resolve_s3_settings(
      env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()).lookup(), options());
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-1");
  clock_.advance(24min);
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-1");
  EXPECT_EQ(sts_.server.requests().size(), 1u);
  clock_.advance(2min);  // within 5 minutes of the source's expiry
  imds.expiration = "2026-01-01T06:00:00Z";
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-2");
  EXPECT_EQ(imds.server.requests().size(), 6u);
  EXPECT_NE(
      header_value(sts_.server.requests().at(1), "Authorization").find("Credential=KEY-IMDS/"),
      std::string::npos);
  // Now the role's own expiry comes first.
  clock_.advance(28min);  // 00:54
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-2");
  clock_.advance(2min);  // 01:00 - 4 min
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-3");
}

// The IMDSv1 fallback of an Ec2InstanceMetadata credential_source reached through a
// source_profile follows the active profile's ec2_metadata_v1_disabled, as botocore reads the
// setting from the session's profile, not from the profile that names the source.
TEST_F(StsCredentials, ACredentialSourceFollowsTheActiveProfilesImdsV1Setting) {
  FakeImds imds;
  imds.token_status = 403;  // a service without IMDSv2
  // Profile a, with `setting`, assumes its role with the credentials of b's, whose source is the
  // instance.
  auto write_chain = [&](const std::string& setting) {
    write("config", std::string("[profile a]\nrole_arn = ") + kRole + "\nsource_profile = b\n" +
                        setting +
                        "[profile b]\nrole_arn = arn:aws:iam::123456789012:role/hop\n"
                        "credential_source = Ec2InstanceMetadata\n"
                        "ec2_metadata_v1_disabled = true\n");
  };
  const Environment environment =
      env().set("AWS_PROFILE", "a").set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint());
  write_chain("");
  EXPECT_EQ(key(environment), "KEY-2");  // b's role over IMDSv1, then a's
  write_chain("ec2_metadata_v1_disabled = true\n");
  expect_resolve_error(environment.lookup(),
                       "credential_source Ec2InstanceMetadata: instance metadata: PUT " +
                           imds.endpoint() +
                           "/latest/api/token: HTTP 403, and IMDSv1 is disabled "
                           "(ec2_metadata_v1_disabled of profile 'a' in " +
                           (home_ / ".aws" / "config").string() + ")",
                       kImdsToken, options());
  EXPECT_EQ(sts_.server.requests().size(), 2u);
}

TEST_F(StsCredentials, TheStsEndpointsPrecedence) {
  FakeSts global;
  write("credentials",
        std::string("[src]\naws_access_key_id = K\naws_secret_access_key = ") + kSecret + "\n");
  write("config", std::string("[default]\nrole_arn = ") + kRole +
                      "\nsource_profile = src\nsts =\n  endpoint_url = " + sts_.endpoint() +
                      "\nendpoint_url = http://192.0.2.1:9\n");
  Environment environment = env();
  environment.unset("AWS_ENDPOINT_URL_STS").set("AWS_ENDPOINT_URL", global.endpoint());
  key(environment);
  EXPECT_EQ(global.server.requests().size(), 1u);  // AWS_ENDPOINT_URL before the profile's
  environment.unset("AWS_ENDPOINT_URL");
  key(environment);
  EXPECT_EQ(sts_.server.requests().size(), 1u);  // the profile's sts endpoint_url
  environment.set("AWS_ENDPOINT_URL_STS", "s3://bucket");
  expect_resolve_error(environment.lookup(),
                       "STS endpoint from AWS_ENDPOINT_URL_STS must be http(s)://host[:port]",
                       kSecret, options());
}

TEST_F(StsCredentials, FailuresNameRoleEndpointAndStsErrorWithoutTheToken) {
  sts_.status = 403;
  expect_resolve_error(web_identity().lookup(),
                       std::string("web identity (AWS_ROLE_ARN '") + kRole + "'): POST " +
                           sts_.endpoint() + "/: HTTP 403 AccessDenied: Not authorized for token",
                       kToken, options());
  // The fake quotes the token in its Message: it is taken out.
  expect_resolve_error(web_identity().lookup(), "token <redacted>", kToken, options());
  write("credentials",
        std::string("[src]\naws_access_key_id = K\naws_secret_access_key = ") + kSecret + "\n");
  write("config", std::string("[default]\nrole_arn = ") + kRole + "\nsource_profile = src\n");
  expect_resolve_error(env().lookup(),
                       std::string("assume-role of profile 'default' (role '") + kRole +
                           "', source profile 'src'): POST " + sts_.endpoint() +
                           "/: HTTP 403 AccessDenied",
                       kSecret, options());
  sts_.status = 200;
  sts_.expiration = "soon";
  expect_resolve_error(env().lookup(), "<Expiration> is not an ISO 8601 timestamp", kSecret,
                       options());
  sts_.expiration = "2025-12-31T23:00:00Z";
  expect_resolve_error(env().lookup(), "expired at 2025-12-31T23:00:00Z", kSecret, options());
}

TEST_F(StsCredentials, BadConfigurationsAreNamed) {
  const auto config = home_ / ".aws" / "config";
  auto expect = [&](const std::string& fragment) {
    expect_resolve_error(env().lookup(), "profile 'default' in " + config.string() + fragment,
                         kSecret, options());
  };
  write("config", "[default]\nrole_arn = r\ncredential_source = Ec2Metadata\n");
  expect(
      ": credential_source 'Ec2Metadata' is not one of Environment, Ec2InstanceMetadata, "
      "EcsContainer");
  write("config",
        "[default]\nrole_arn = r\ncredential_source = Environment\nsource_profile = default\n"
        "aws_access_key_id = K\naws_secret_access_key = s\n");
  expect(": role_arn has both a source_profile and a credential_source");
  write("config", "[default]\nrole_arn = r\ncredential_source = Environment\n");
  expect(
      ": credential_source Environment, but neither AWS_ACCESS_KEY_ID nor "
      "AWS_SECRET_ACCESS_KEY is set");
  write("config", "[default]\nrole_arn = r\ncredential_source = EcsContainer\n");
  expect(
      ": credential_source EcsContainer, but neither AWS_CONTAINER_CREDENTIALS_RELATIVE_URI "
      "nor AWS_CONTAINER_CREDENTIALS_FULL_URI is set");
  write("config", "[default]\nrole_arn = r\ncredential_source = Ec2InstanceMetadata\n");
  expect_resolve_error(env().set("AWS_EC2_METADATA_DISABLED", "true").lookup(),
                       "profile 'default' in " + config.string() +
                           ": credential_source Ec2InstanceMetadata, but AWS_EC2_METADATA_DISABLED "
                           "is true",
                       kSecret, options());
  {
    FakeImds imds;
    imds.role.clear();
    expect_resolve_error(env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()).lookup(),
                         "profile 'default' in " + config.string() +
                             ": credential_source Ec2InstanceMetadata: instance metadata: no IAM "
                             "role attached to the instance",
                         kImdsToken, options());
  }
  write("config", "[default]\nrole_arn = r\n");
  expect(": role_arn needs a source_profile or a credential_source");
  write("config", "[default]\nrole_arn = r\nsource_profile = gone\n");
  expect(": source_profile 'gone' is in neither");
  write("config", "[default]\nrole_arn = r\nsource_profile = empty\n[profile empty]\nregion = x\n");
  expect(": source profile 'empty' has no aws_access_key_id and aws_secret_access_key");
  write("config",
        "[default]\nrole_arn = r\nsource_profile = default\nduration_seconds = 60\n"
        "aws_access_key_id = K\naws_secret_access_key = s\n");
  expect(
      ": duration_seconds must be a whole number of seconds from 900 to 43200, "
      "got '60'");
  write("config", "");
  Environment token_only = web_identity();
  token_only.unset("AWS_ROLE_ARN");
  expect_resolve_error(token_only.lookup(),
                       "web identity: AWS_WEB_IDENTITY_TOKEN_FILE is set, but neither AWS_ROLE_ARN "
                       "nor the role_arn of profile 'default'",
                       kToken, options());
  Environment missing = web_identity();
  missing.set("AWS_WEB_IDENTITY_TOKEN_FILE", (home_ / "absent").string());
  expect_resolve_error(missing.lookup(),
                       "cannot read AWS_WEB_IDENTITY_TOKEN_FILE " + (home_ / "absent").string(),
                       kToken, options());
  token_file("");
  expect_resolve_error(web_identity().set("AWS_WEB_IDENTITY_TOKEN_FILE", token_file("")).lookup(),
                       "AWS_WEB_IDENTITY_TOKEN_FILE " + (home_ / "token").string() + " is empty",
                       kToken, options());
  EXPECT_TRUE(sts_.server.requests().empty());
}

}  // namespace
}  // namespace feedrate::io
