// The chain's sources of temporary credentials against fakes on this machine: a
// credential_process script in a temporary folder, and scripted servers on 127.0.0.1 playing the
// container endpoint (checking the Authorization header) and IMDSv2 (a GET without the session
// token gets 401) or an IMDSv1-only service. The order env > profile keys > credential_process >
// config keys > container > instance metadata, AWS_EC2_METADATA_DISABLED, the IMDSv1 fallback and
// AWS_EC2_METADATA_V1_DISABLED or the profile's ec2_metadata_v1_disabled, the source texts, the
// errors (exit status, bad JSON, a role's 404) without the secret, and a refresh through the server
// under a moved clock.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "io/remote/credential_process.h"
#include "io/remote/credentials.h"
#include "tests/io/remote/credential_test_util.h"
#include "tests/io/remote/fake_metadata_servers.h"
#include "tests/io/remote/scripted_server.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

using namespace std::chrono_literals;
using test_support::closed_port;
using test_support::Environment;
using test_support::expect_resolve_error;
using test_support::header_value;
using test_support::http;
using test_support::ScriptedServer;

using test_support::FakeContainer;
using test_support::FakeImds;
using test_support::kContainerToken;
using test_support::kImdsToken;
using test_support::request_line;

constexpr const char* kSecret = test_support::kMetadataSecret;
constexpr const char* kExpiration = test_support::kMetadataExpiration;

class CredentialChain : public test_support::CredentialTest {
 protected:
  // An executable script printing `json` and exiting with `status`; each run appends a line to
  // runs.log.
  std::string script(const std::string& json, int status = 0, const std::string& err = "") {
    const auto path = home_ / ("process-" + std::to_string(++scripts_) + ".sh");
    std::ofstream(path) << "#!/bin/sh\necho run >> '" << (home_ / "runs.log").string()
                        << "'\nprintf '%s' '" << json << "'\n"
                        << (err.empty() ? "" : "echo '" + err + "' >&2\n") << "exit " << status
                        << "\n";
    ::chmod(path.c_str(), 0755);
    return path.string();
  }
  std::size_t runs() const {
    std::ifstream in(home_ / "runs.log");
    std::size_t lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }
  Environment env() const {
    Environment environment;
    environment.set("HOME", home_.path().string());
    return environment;
  }
  CredentialChainOptions with_imds() { return options(true); }

  int scripts_ = 0;
};

TEST_F(CredentialChain, CredentialProcessGivesTemporaryCredentials) {
  const std::string json =
      "{\"Version\": 1, \"AccessKeyId\": \"KEY-PROC\", \"SecretAccessKey\": \"" +
      std::string(kSecret) + "\", \"SessionToken\": \"session-KEY-PROC\", \"Expiration\": \"" +
      kExpiration + "\"}";
  write("config", "[profile p]\ncredential_process = " + script(json) + " --flag\n");
  const auto settings = resolve_s3_settings(env().set("AWS_PROFILE", "p").lookup(), options());
  EXPECT_EQ(settings.credentials->source(), "credential_process of profile 'p'");
  const auto credentials = settings.credentials->current();
  EXPECT_EQ(credentials->access_key_id, "KEY-PROC");
  EXPECT_EQ(credentials->secret_access_key.reveal(), kSecret);
  EXPECT_EQ(credentials->session_token.reveal(), "session-KEY-PROC");
  EXPECT_EQ(runs(), 1u);
}

TEST_F(CredentialChain, SourcesInBotocoresOrder) {
  FakeImds imds;
  FakeContainer container;
  const std::string process =
      script("{\"Version\": 1, \"AccessKeyId\": \"KEY-PROC\", \"SecretAccessKey\": \"" +
             std::string(kSecret) + "\"}");
  Environment all = env();
  all.set("AWS_ACCESS_KEY_ID", "KEY-ENV")
      .set("AWS_SECRET_ACCESS_KEY", kSecret)
      .set("AWS_CONTAINER_CREDENTIALS_FULL_URI", container.server.url("/creds"))
      .set("AWS_CONTAINER_AUTHORIZATION_TOKEN", kContainerToken)
      .set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint() + "/");
  write("credentials", "[default]\naws_access_key_id = KEY-CRED\naws_secret_access_key = s\n");
  write("config", "[default]\ncredential_process = " + process +
                      "\naws_access_key_id = KEY-CONF\naws_secret_access_key = s\n");
  auto key = [&] {
    const auto settings = resolve_s3_settings(all.lookup(), with_imds());
    return settings.credentials->signs() ? settings.credentials->current()->access_key_id
                                         : settings.credentials->source();
  };
  EXPECT_EQ(key(), "KEY-ENV");
  all.unset("AWS_ACCESS_KEY_ID").unset("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(key(), "KEY-CRED");
  write("credentials", "");
  EXPECT_EQ(key(), "KEY-PROC");
  write("config", "[default]\naws_access_key_id = KEY-CONF\naws_secret_access_key = s\n");
  EXPECT_EQ(key(), "KEY-CONF");
  write("config", "");
  EXPECT_EQ(key(), "KEY-CONTAINER");
  all.unset("AWS_CONTAINER_CREDENTIALS_FULL_URI");
  EXPECT_EQ(key(), "KEY-IMDS");
  EXPECT_EQ(imds.server.requests().size(), 3u);
  all.set("AWS_EC2_METADATA_DISABLED", "true");
  EXPECT_EQ(key(), "none: unsigned requests");
  all.unset("AWS_EC2_METADATA_DISABLED");
  // Without instance_metadata (an https:// source) the service is not asked.
  EXPECT_FALSE(resolve_s3_settings(all.lookup()).credentials->signs());
  EXPECT_EQ(imds.server.requests().size(), 3u);
  // The credential_process of the credentials file counts too, before the config file's keys.
  write("credentials", "[default]\ncredential_process = " + process + "\n");
  write("config", "[default]\naws_access_key_id = KEY-CONF\naws_secret_access_key = s\n");
  EXPECT_EQ(key(), "KEY-PROC");
}

TEST_F(CredentialChain, InstanceMetadataNeedsTheSessionToken) {
  FakeImds imds;
  const auto settings = resolve_s3_settings(
      env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()).lookup(), with_imds());
  EXPECT_EQ(settings.credentials->source(), "instance metadata (IMDSv2, role 'role-a')");
  EXPECT_EQ(settings.credentials->current()->session_token.reveal(), "session-KEY-IMDS");
  const auto requests = imds.server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(request_line(requests[0]), "PUT /latest/api/token HTTP/1.1");
  EXPECT_EQ(request_line(requests[2]),
            "GET /latest/meta-data/iam/security-credentials/role-a HTTP/1.1");
  EXPECT_EQ(header_value(requests[0], "X-aws-ec2-metadata-token-ttl-seconds"), "21600");
  EXPECT_EQ(header_value(requests[0], "Content-Length"), "0");
  // Both GETs carry the session token (the fake answers 401 without it, as IMDSv2 does).
  EXPECT_EQ(header_value(requests[1], "X-aws-ec2-metadata-token"), kImdsToken);
  EXPECT_EQ(header_value(requests[2], "X-aws-ec2-metadata-token"), kImdsToken);
}

// As botocore: a PUT answered 403, 404, 405 (no IMDSv2 there), a 5xx or not in time falls back
// to IMDSv1's GETs without a token; 400 does not, nor anything with AWS_EC2_METADATA_V1_DISABLED.
TEST_F(CredentialChain, InstanceMetadataFallsBackToImdsV1) {
  FakeImds imds;
  const std::string put = "instance metadata: PUT " + imds.endpoint() + "/latest/api/token: ";
  Environment environment = env();
  environment.set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint());
  for (const int status : {403, 404, 405, 503}) {
    imds.token_status = status;
    const auto before = imds.server.requests().size();
    const auto settings = resolve_s3_settings(environment.lookup(), with_imds());
    EXPECT_EQ(settings.credentials->source(), "instance metadata (IMDSv1, role 'role-a')")
        << status;
    EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-IMDS");
    const auto requests = imds.server.requests();
    ASSERT_GE(requests.size(), before + 3u);
    EXPECT_EQ(request_line(requests.back()),
              "GET /latest/meta-data/iam/security-credentials/role-a HTTP/1.1");
    EXPECT_EQ(requests.back().find("X-aws-ec2-metadata-token:"), std::string::npos);
  }
  // The provider refreshes over IMDSv1 too.
  imds.token_status = 404;
  const auto settings = resolve_s3_settings(environment.lookup(), with_imds());
  const auto asked = imds.server.requests().size();
  clock_.advance(56min);
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-IMDS");
  EXPECT_EQ(imds.server.requests().size(), asked + 3u);

  imds.token_status = 400;
  EXPECT_EQ(resolve_s3_settings(environment.lookup(), with_imds()).credentials->source(),
            "none: unsigned requests (" + put + "HTTP 400)");
  imds.token_status = 403;
  environment.set("AWS_EC2_METADATA_V1_DISABLED", "true");
  const auto before = imds.server.requests().size();
  EXPECT_EQ(resolve_s3_settings(environment.lookup(), with_imds()).credentials->source(),
            "none: unsigned requests (" + put +
                "HTTP 403, and IMDSv1 is disabled (AWS_EC2_METADATA_V1_DISABLED))");
  EXPECT_EQ(imds.server.requests().size(), before + 1u);  // the PUT only

  // A PUT that times out (2 s, asked twice) falls back too.
  environment.unset("AWS_EC2_METADATA_V1_DISABLED");
  imds.token_status = 200;
  imds.token_delay_ms = 2'500;
  EXPECT_EQ(resolve_s3_settings(environment.lookup(), with_imds()).credentials->source(),
            "instance metadata (IMDSv1, role 'role-a')");
}

// The active profile's ec2_metadata_v1_disabled in the config file turns the fallback off as the
// variable does; the variable, when set, wins (even set to false), as in botocore.
TEST_F(CredentialChain, TheProfilesEc2MetadataV1DisabledTurnsTheFallbackOff) {
  FakeImds imds;
  imds.token_status = 403;  // a service without IMDSv2
  const std::string none = "none: unsigned requests (instance metadata: PUT " + imds.endpoint() +
                           "/latest/api/token: HTTP 403, and IMDSv1 is disabled (";
  const std::string config = (home_ / ".aws" / "config").string();
  Environment environment = env();
  environment.set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint());
  auto source = [&] {
    return resolve_s3_settings(environment.lookup(), with_imds()).credentials->source();
  };
  write("config", "[default]\nec2_metadata_v1_disabled = true\n");
  auto before = imds.server.requests().size();
  EXPECT_EQ(source(), none + "ec2_metadata_v1_disabled of profile 'default' in " + config + "))");
  EXPECT_EQ(imds.server.requests().size(), before + 1u);  // the PUT only
  environment.set("AWS_EC2_METADATA_V1_DISABLED", "false");
  EXPECT_EQ(source(), "instance metadata (IMDSv1, role 'role-a')");
  environment.set("AWS_EC2_METADATA_V1_DISABLED", "true");
  EXPECT_EQ(source(), none + "AWS_EC2_METADATA_V1_DISABLED))");
  environment.unset("AWS_EC2_METADATA_V1_DISABLED");
  // The active profile's setting, not another's.
  write("config",
        "[default]\nec2_metadata_v1_disabled = true\n[profile p]\nec2_metadata_v1_disabled = "
        "false\n[profile q]\nec2_metadata_v1_disabled = TRUE\n");
  environment.set("AWS_PROFILE", "p");
  EXPECT_EQ(source(), "instance metadata (IMDSv1, role 'role-a')");
  environment.set("AWS_PROFILE", "q");
  before = imds.server.requests().size();
  EXPECT_EQ(source(), none + "ec2_metadata_v1_disabled of profile 'q' in " + config + "))");
  EXPECT_EQ(imds.server.requests().size(), before + 1u);
}

TEST_F(CredentialChain, ContainerCredentialsSendTheAuthorization) {
  FakeContainer container;
  const auto path = home_ / "token";
  std::ofstream(path) << kContainerToken << "\n";
  Environment environment = env();
  environment.set("AWS_CONTAINER_CREDENTIALS_FULL_URI", container.server.url("/creds"))
      .set("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong")
      .set("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", path.string());
  const auto settings = resolve_s3_settings(environment.lookup(), options());
  EXPECT_EQ(settings.credentials->source(),
            "container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI)");
  EXPECT_EQ(settings.credentials->current()->access_key_id, "KEY-CONTAINER");
  environment.unset("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  expect_resolve_error(environment.lookup(),
                       "container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI): GET " +
                           container.server.url("/creds") + ": HTTP 401",
                       "wrong");
  const auto requests = container.server.requests();
  EXPECT_EQ(header_value(requests.back(), "Authorization"), "wrong");
  // Plain http to a host that is not a container agent is refused before anything is sent.
  environment.set("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://192.0.2.1/creds");
  expect_resolve_error(environment.lookup(), "must be https://, or http:// to a loopback address",
                       kContainerToken);
  EXPECT_EQ(container.server.requests().size(), requests.size());
}

TEST_F(CredentialChain, FailuresNameTheSourceWithoutTheSecret) {
  const std::string secret_json =
      "{\"Version\": 1, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" + std::string(kSecret) +
      "\"}";
  write("config",
        "[default]\ncredential_process = " + script(secret_json, 3, "token expired") + "\n");
  expect_resolve_error(env().lookup(),
                       "credential_process of profile 'default': the command exited with status "
                       "3 (stderr: token expired)",
                       kSecret);
  write("config", "[default]\ncredential_process = " +
                      script("{\"Version\": 1, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" +
                             std::string(kSecret)) +
                      "\n");
  expect_resolve_error(env().lookup(),
                       "credential_process of profile 'default': the answer is not a JSON object",
                       kSecret);
  write("config", "[default]\ncredential_process = " +
                      script("{\"Version\": 2, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" +
                             std::string(kSecret) + "\"}") +
                      "\n");
  expect_resolve_error(env().lookup(), "the JSON needs \"Version\": 1", kSecret);
  write("config", "[default]\ncredential_process = " +
                      script("{\"Version\": 1, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" +
                             std::string(kSecret) + "\", \"Expiration\": \"tomorrow\"}") +
                      "\n");
  expect_resolve_error(env().lookup(), "\"Expiration\" is not an ISO 8601 timestamp", kSecret);
  write("config",
        "[default]\ncredential_process = " +
            script("{\"Version\": 1, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" +
                   std::string(kSecret) + "\", \"Expiration\": \"" + kExpiration + "\"}") +
            "\n");
  clock_.advance(2h);
  expect_resolve_error(env().lookup(),
                       "credential_process of profile 'default': the answer's credentials expired "
                       "at 2026-01-01T01:00:00Z",
                       kSecret, options());
  write("config", "");

  FakeImds imds;
  imds.role_status = 404;
  const auto lookup = env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()).lookup();
  expect_resolve_error(lookup,
                       "instance metadata (IMDSv2, role 'role-a'): GET " + imds.endpoint() +
                           "/latest/meta-data/iam/security-credentials/role-a: HTTP 404",
                       kImdsToken, with_imds());
  // No role attached: no credentials, and the unsigned source says why.
  imds.role.clear();
  EXPECT_EQ(resolve_s3_settings(lookup, with_imds()).credentials->source(),
            "none: unsigned requests (instance metadata: no IAM role attached to the instance)");
}

TEST_F(CredentialChain, InstanceCredentialsAreRefreshedBeforeTheyExpire) {
  FakeImds imds;
  const auto settings = resolve_s3_settings(
      env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()).lookup(), with_imds());
  const auto first = settings.credentials->current();
  EXPECT_EQ(imds.server.requests().size(), 3u);
  clock_.advance(30min);
  EXPECT_EQ(settings.credentials->current(), first);  // still far from the expiration
  EXPECT_EQ(imds.server.requests().size(), 3u);
  // The service fails while the credentials are still valid: they stay.
  imds.role_status = 500;
  clock_.advance(26min);
  EXPECT_EQ(settings.credentials->current(), first);
  const auto after_failure = imds.server.requests().size();
  EXPECT_EQ(after_failure, 3u + 4u);  // token, role, and the credentials GET with its retry
  // Back again: the next try, kRetryAfter later, gets new ones.
  imds.role_status = 200;
  clock_.advance(CredentialProvider::kRetryAfter);
  EXPECT_NE(settings.credentials->current(), first);
  EXPECT_EQ(imds.server.requests().size(), after_failure + 3u);
}

TEST_F(CredentialChain, ProcessCredentialsAreRefreshedByRunningItAgain) {
  write("config",
        "[default]\ncredential_process = " +
            script("{\"Version\": 1, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" +
                   std::string(kSecret) + "\", \"Expiration\": \"" + kExpiration + "\"}") +
            "\n");
  const auto settings = resolve_s3_settings(env().lookup(), options());
  EXPECT_EQ(runs(), 1u);
  clock_.advance(50min);
  settings.credentials->current();
  EXPECT_EQ(runs(), 1u);
  clock_.advance(6min);
  settings.credentials->current();
  EXPECT_EQ(runs(), 2u);
}

TEST_F(CredentialChain, AHangingOrKilledProcessFails) {
  try {
    run_credential_process("sleep 30", "credential_process of profile 'slow'", 200ms);
    ADD_FAILURE() << "a hanging command gave credentials";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(),
                 "credential_process of profile 'slow': the command did not finish within 200 ms "
                 "and was killed");
  }
  try {
    run_credential_process("kill -TERM $$", "origin");
    ADD_FAILURE() << "a killed command gave credentials";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "origin: the command was killed by signal 15");
  }
}

// Whether a process is gone: no /proc entry, or a zombie that only waits to be reaped by
// whichever process adopted it.
bool process_ended(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto state = line.rfind(") ");
  return state != std::string::npos && line.compare(state + 2, 1, "Z") == 0;
}

TEST_F(CredentialChain, ATimeoutKillsWhatTheCommandStarted) {
  const std::string pid_file = (home_ / "child.pid").string();
  EXPECT_THROW(run_credential_process("sleep 30 & echo $! > " + pid_file + "; wait",
                                      "credential_process of profile 'slow'", 300ms),
               std::runtime_error);
  std::ifstream in(pid_file);
  std::string pid;
  ASSERT_TRUE(std::getline(in, pid)) << "the command wrote no pid to " << pid_file;
  // SIGKILL is delivered before kill() returns; the /proc entry may take a moment to change.
  for (int i = 0; i < 100 && !process_ended(pid); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(process_ended(pid)) << "the command's child " << pid << " still runs";
}

TEST_F(CredentialChain, NoMetadataServiceMeansUnsignedRequests) {
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(closed_port());
  const auto settings = resolve_s3_settings(
      env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", endpoint).lookup(), with_imds());
  EXPECT_FALSE(settings.credentials->signs());
  EXPECT_NE(settings.credentials->source().find("none: unsigned requests (instance metadata: PUT " +
                                                endpoint + "/latest/api/token: "),
            std::string::npos)
      << settings.credentials->source();
}

TEST_F(CredentialChain, ReuseRunsEachSourceOncePerProcess) {
  write("config", "[default]\ncredential_process = " +
                      script("{\"Version\": 1, \"AccessKeyId\": \"K\", \"SecretAccessKey\": \"" +
                             std::string(kSecret) + "\"}") +
                      "\n");
  auto reuse = options();
  reuse.reuse = true;
  const auto first = resolve_s3_settings(env().lookup(), reuse);
  const auto second = resolve_s3_settings(env().lookup(), reuse);
  EXPECT_EQ(first.credentials, second.credentials);
  EXPECT_EQ(runs(), 1u);
  resolve_s3_settings(env().lookup(), options());
  EXPECT_EQ(runs(), 2u);  // without reuse, the command runs again

  // An instance metadata service that gives nothing is asked once too (the PUT's 403, then the
  // IMDSv1 GET's).
  write("config", "");
  ScriptedServer refusing([](const std::string&, std::size_t) { return http(403); });
  reuse.instance_metadata = true;
  const auto lookup = env().set("AWS_EC2_METADATA_SERVICE_ENDPOINT", refusing.url("")).lookup();
  EXPECT_EQ(resolve_s3_settings(lookup, reuse).credentials->source(),
            "none: unsigned requests (instance metadata: GET " + refusing.url("") +
                "/latest/meta-data/iam/security-credentials/: HTTP 403)");
  resolve_s3_settings(lookup, reuse);
  EXPECT_EQ(refusing.requests().size(), 2u);
}

}  // namespace
}  // namespace feedrate::io
