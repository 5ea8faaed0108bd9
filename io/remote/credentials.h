// Where S3 requests go and how they are signed, resolved in the order the AWS tools use:
//   credentials: AWS_NO_SIGN_REQUEST=true forces unsigned requests; else AWS_ACCESS_KEY_ID +
//     AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); else the profile AWS_PROFILE (default
//     "default") from the credentials file, then from the config file ("[profile NAME]");
//     else none, and requests go unsigned (public buckets).
//   files: AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, else ~/.aws/credentials and
//     ~/.aws/config under HOME.
//   region: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, then us-east-1.
//   endpoint: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's s3 endpoint_url, then its
//     endpoint_url; a custom endpoint is addressed path-style (endpoint/bucket/key), AWS
//     itself virtual-hosted style (bucket.s3.region.amazonaws.com/key).
// The environment comes through an EnvLookup, so tests give a fake one.
//
// A secret never reaches a message: Secret has no conversion, no stream operator and no
// formatter, only reveal(), which the code handing it to libcurl calls. Texts for errors and
// reports use S3Settings::source. Thread-safety: values; resolve_s3_settings() is a pure function
// of the environment it is given and the files it reads.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace feedrate::io {

// The value of an environment variable, nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process environment (getenv).
EnvLookup process_environment();

class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}
  bool empty() const { return value_.empty(); }
  // The text itself, for libcurl only; never for a message.
  const std::string& reveal() const { return value_; }

 private:
  std::string value_;
};

struct AwsCredentials {
  std::string access_key_id;  // empty: unsigned requests
  Secret secret_access_key;
  Secret session_token;  // temporary credentials only
  bool signs() const { return !access_key_id.empty(); }
};

struct S3Settings {
  AwsCredentials credentials;
  std::string region = "us-east-1";
  std::string endpoint;  // "scheme://host[:port]" without a trailing '/'; empty: AWS
  bool path_style = false;
  // Where the credentials came from, for messages: "environment (AWS_ACCESS_KEY_ID)",
  // "profile 'x' in /root/.aws/credentials", "none: unsigned requests", ...
  std::string source = "none: unsigned requests";
};

// Throws std::runtime_error when the environment or a file is inconsistent (a key without its
// secret, an AWS_PROFILE found in neither file, an unreadable file), std::invalid_argument for an
// endpoint that is not an http(s) URL; the messages never contain a secret.
S3Settings resolve_s3_settings(const EnvLookup& env);

}  // namespace feedrate::io
