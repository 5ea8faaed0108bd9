// Helpers of the credential tests: a fake environment (the variables the test sets, nothing
// else: the machine's AWS variables never leak in), a wall clock that moves only when the test
// says so (expirations and refreshes without sleeping), a scripted server's answer, the check
// that a resolution fails with a message that names the problem and never holds the secret, and
// a fixture with a temporary HOME for the shared files and the chain under that clock.
// Thread-safety: test code; ManualWallClock may be read from any thread.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "io/remote/credentials.h"
#include "tests/support/test_data.h"

namespace feedrate::io::test_support {

class Environment {
 public:
  Environment& set(const std::string& name, const std::string& value) {
    values_[name] = value;
    return *this;
  }
  Environment& unset(const std::string& name) {
    values_.erase(name);
    return *this;
  }
  EnvLookup lookup() const {
    return [values = values_](const std::string& name) -> std::optional<std::string> {
      const auto it = values.find(name);
      if (it == values.end()) return std::nullopt;
      return it->second;
    };
  }

 private:
  std::map<std::string, std::string> values_;
};

// Starts at 2026-01-01T00:00:00Z, whatever the machine's clock says.
class ManualWallClock {
 public:
  ManualWallClock() : now_(1'767'225'600'000'000'000LL) {}
  WallClock clock() {
    return [this] { return now(); };
  }
  WallTime now() const {
    return WallTime(
        std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(now_.load())));
  }
  void advance(std::chrono::nanoseconds by) { now_ += by.count(); }

 private:
  std::atomic<long long> now_;  // nanoseconds since the epoch
};

// A whole HTTP/1.1 answer for a ScriptedServer: status, body, and the connection closed.
inline std::string http(int status, const std::string& body = "") {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

// resolve_s3_settings(env, options) throws, with `fragment` and without `secret` in the message.
inline void expect_resolve_error(const EnvLookup& env, const std::string& fragment,
                                 const std::string& secret,
                                 const CredentialChainOptions& options = {}) {
  try {
    resolve_s3_settings(env, options);
    ADD_FAILURE() << "resolved";
  } catch (const std::exception& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
    EXPECT_EQ(what.find(secret), std::string::npos) << what;
  }
}

// A temporary HOME whose ~/.aws files the test writes, and the chain under a ManualWallClock.
class CredentialTest : public ::testing::Test {
 protected:
  // Writes ~/.aws/NAME ("config", "credentials").
  void write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(home_.path() / ".aws");
    std::ofstream(home_.path() / ".aws" / name) << text;
  }
  // The chain under the test's clock, asking instance metadata when `imds`.
  CredentialChainOptions options(bool imds = false) {
    CredentialChainOptions chain;
    chain.instance_metadata = imds;
    chain.clock = clock_.clock();
    return chain;
  }
  // The access key the chain resolves for `environment` now.
  std::string key(const Environment& environment) {
    return resolve_s3_settings(environment.lookup(), options())
        .credentials->current()
        ->access_key_id;
  }

  testing::TempDir home_;
  ManualWallClock clock_;
};

}  // namespace feedrate::io::test_support
