// The values of AWS credentials: the key, the secret and the session token, and, for temporary
// credentials, when they expire (wall-clock time, as the sources state it).
//
// A secret never reaches a message: Secret has no conversion, no stream operator and no
// formatter, only reveal(), which the code handing it to libcurl calls. Thread-safety: values.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace feedrate::io {

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

using WallTime = std::chrono::system_clock::time_point;
// The wall clock the expirations are compared with (std::chrono::system_clock::now by default;
// tests give one they move).
using WallClock = std::function<WallTime()>;

struct TimedCredentials {
  AwsCredentials credentials;
  std::optional<WallTime> expiration;  // nullopt: they do not expire
};

}  // namespace feedrate::io
