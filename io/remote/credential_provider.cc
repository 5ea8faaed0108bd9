#include "io/remote/credential_provider.h"

#include "io/remote/utc_time.h"

namespace feedrate::io {

std::shared_ptr<CredentialProvider> CredentialProvider::fixed(AwsCredentials credentials,
                                                              std::string source) {
  return std::make_shared<CredentialProvider>(
      std::move(source), TimedCredentials{std::move(credentials), {}}, Fetch(), WallClock());
}

CredentialProvider::CredentialProvider(std::string source, TimedCredentials first, Fetch fetch,
                                       WallClock clock)
    : source_(std::move(source)),
      signs_(first.credentials.signs()),
      fetch_(std::move(fetch)),
      clock_(clock ? std::move(clock) : WallClock(std::chrono::system_clock::now)),
      snapshot_{std::make_shared<const AwsCredentials>(std::move(first.credentials)),
                first.expiration} {
  if (snapshot_.expiration && (!fetch_ || !signs_)) {
    throw std::invalid_argument(source_ + ": expiring credentials need a key and a way to renew");
  }
  if (snapshot_.expiration && *snapshot_.expiration <= clock_()) {
    throw std::runtime_error(source_ + ": the answer's credentials expired at " +
                             format_utc_time(*snapshot_.expiration));
  }
}

CredentialProvider::Snapshot CredentialProvider::snapshot() const {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

std::shared_ptr<const AwsCredentials> CredentialProvider::current() {
  const Snapshot old = snapshot();
  const WallTime now = clock_();
  if (!old.expiration || now < *old.expiration - kRefreshAhead) return old.credentials;
  std::unique_lock lock(refresh_mutex_, std::defer_lock);
  if (now < *old.expiration) {
    // Still valid: a caller that finds another one fetching signs with what there is.
    if (!lock.try_lock()) return old.credentials;
  } else {
    lock.lock();
  }
  return refresh(snapshot(), clock_());
}

std::shared_ptr<const AwsCredentials> CredentialProvider::refresh(const Snapshot& old,
                                                                  WallTime now) {
  if (!old.expiration || now < *old.expiration - kRefreshAhead) return old.credentials;
  // Expired after a fetch that succeeded: asking again cannot wait for kRetryAfter.
  if (now >= next_attempt_ || (now >= *old.expiration && last_failure_.empty())) {
    next_attempt_ = now + kRetryAfter;
    try {
      TimedCredentials fresh = fetch_();
      if (!fresh.credentials.signs()) throw std::runtime_error("the answer has no access key");
      if (fresh.expiration && *fresh.expiration <= now) {
        throw std::runtime_error("the answer's credentials expired at " +
                                 format_utc_time(*fresh.expiration));
      }
      Snapshot next{std::make_shared<const AwsCredentials>(std::move(fresh.credentials)),
                    fresh.expiration};
      {
        std::lock_guard lock(snapshot_mutex_);
        snapshot_ = next;
      }
      last_failure_.clear();
      return next.credentials;
    } catch (const std::exception& error) {
      last_failure_ = error.what();
    }
  }
  if (now < *old.expiration) return old.credentials;
  throw CredentialsUnavailable(source_ + ": the credentials expired at " +
                               format_utc_time(*old.expiration) +
                               " and fetching new ones failed: " + last_failure_);
}

}  // namespace feedrate::io
