// The credentials that sign S3 requests, as a provider that the requests ask for the current
// snapshot: fixed credentials (environment, profile keys, none) never change; temporary ones (a
// credential_process, container credentials, instance metadata) are fetched again before they
// expire, kRefreshAhead before their Expiration, as the AWS SDKs do.
//
// Refresh: one caller at a time fetches; meanwhile the others keep the current snapshot while it
// is still valid. A refresh that fails while the credentials are still valid keeps them and is
// tried again kRetryAfter later; once they have expired, current() throws CredentialsUnavailable
// naming the source and the fetch's error (never a secret). A fetch that answers credentials
// already within kRefreshAhead of their expiry is not repeated before kRetryAfter either.
//
// Thread-safety: every method may be called from any number of threads at once; a snapshot is
// immutable and stays valid for as long as its holder keeps it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "io/remote/aws_credentials.h"

namespace feedrate::io {

// current() found no valid credentials. what(): the source and why, never a secret.
class CredentialsUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CredentialProvider {
 public:
  static constexpr std::chrono::minutes kRefreshAhead{5};
  static constexpr std::chrono::seconds kRetryAfter{30};

  // Fetches fresh credentials; throws (std::exception, a message without a secret) on failure.
  using Fetch = std::function<TimedCredentials()>;

  // Credentials that never change; an empty key means unsigned requests.
  static std::shared_ptr<CredentialProvider> fixed(AwsCredentials credentials, std::string source);
  // Starts from `first` (what the chain fetched already) and refreshes with `fetch`. Throws
  // std::invalid_argument when `first` expires but cannot sign or `fetch` is empty,
  // std::runtime_error naming the source when it has expired already.
  CredentialProvider(std::string source, TimedCredentials first, Fetch fetch, WallClock clock);

  // The credentials to sign a request with now. Throws CredentialsUnavailable once they have
  // expired and no fetch gave new ones.
  std::shared_ptr<const AwsCredentials> current();
  // Whether requests are signed (an access key was found); fixed for the provider's lifetime.
  bool signs() const { return signs_; }
  // Where the credentials come from, for messages: "environment (AWS_ACCESS_KEY_ID)",
  // "credential_process of profile 'x'", "none: unsigned requests", ...
  const std::string& source() const { return source_; }

 private:
  struct Snapshot {
    std::shared_ptr<const AwsCredentials> credentials;
    std::optional<WallTime> expiration;
  };
  Snapshot snapshot() const;
  // Called with refresh_mutex_ held.
  std::shared_ptr<const AwsCredentials> refresh(const Snapshot& old, WallTime now);

  const std::string source_;
  const bool signs_;
  const Fetch fetch_;
  const WallClock clock_;
  mutable std::mutex snapshot_mutex_;  // guards snapshot_
  Snapshot snapshot_;
  std::mutex refresh_mutex_;  // one fetch at a time; guards the two below
  WallTime next_attempt_{};
  std::string last_failure_;  // the last fetch's error, empty after a success
};

}  // namespace feedrate::io
