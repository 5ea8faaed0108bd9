// The object-level operations a dataset needs before it reads ranges: stat() an object (HEAD:
// its size and ETag), list() the objects under an s3:// prefix (ListObjectsV2, every page), and
// get() a whole small object (a file list, an index). Each call is one synchronous request on a
// kept-alive connection, retried like a RangeFetcher's requests (io/remote/retry_policy.h). A
// request that S3 answers is for a bucket in another region is sent again at once to that region,
// kept for the bucket from then on (io/remote/region_redirect.h); the resend is an attempt.
// https:// servers have no listing: list() on one fails with kNotSupported and says what to use.
// Failures are data (RemoteResult::error, RemoteErrc, and a message naming the URL, the HTTP
// status, S3's error Code and, for denied access, where the credentials came from). The retries'
// delays and their budget are on the options' clock (io/clock.h).
// Thread-safety: an ObjectStore is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "io/clock.h"
#include "io/remote/credentials.h"
#include "io/remote/curl_handle.h"
#include "io/remote/endpoint.h"
#include "io/remote/http_response.h"
#include "io/remote/retry_policy.h"

namespace feedrate::io {

struct ObjectInfo {
  std::string url;  // s3://bucket/key, or the http(s) URL
  std::uint64_t size = 0;
  std::string etag;  // with its quotes, for FetchRequest::if_match; empty when the server has none
};

template <typename T>
struct RemoteResult {
  T value{};
  std::error_code error;  // RemoteErrc
  std::string message;    // empty when !error
  bool ok() const { return !error; }
};

struct ObjectStoreOptions {
  RetryOptions retry;
  TransferOptions transfer;
  unsigned max_keys = 1000;               // per ListObjectsV2 page, 1..1000
  std::size_t max_get_bytes = 256 << 20;  // get() refuses larger objects (kTooLarge)
  std::uint64_t jitter_seed = 0x5eed;
  // What the retries wait on and their budget is measured by; outlives the store; null:
  // Clock::real().
  Clock* clock = nullptr;
};
// Throws std::invalid_argument for a bound out of range.
void validate(const ObjectStoreOptions& options);

class ObjectStore {
 public:
  ObjectStore(S3Settings settings, const ObjectStoreOptions& options);

  RemoteResult<ObjectInfo> stat(const std::string& url);
  // The objects whose keys start with the prefix of `prefix_url` (s3://bucket/prefix), in key
  // order.
  RemoteResult<std::vector<ObjectInfo>> list(const std::string& prefix_url);
  // The whole object's bytes.
  RemoteResult<std::string> get(const std::string& url);

 private:
  struct Response {
    ResponseHead head;
    std::string body;
    RemoteFailure failure;                // empty code: a 2xx answer
    std::optional<RequestTarget> resend;  // S3 named the bucket's region: the request for it
  };
  // One request with its retries and its redirect to the bucket's region. `nobody`: HEAD.
  Response perform(const std::string& what, RequestTarget target, bool nobody);
  Response attempt(const std::string& what, const RequestTarget& target, bool nobody,
                   std::optional<RetryCause>& retry);

  ObjectStoreOptions options_;
  Clock& clock_;
  RemoteEndpoint endpoint_;
  Backoff backoff_;
  CurlEasy easy_;
};

}  // namespace feedrate::io
