// How to reach and authenticate to the objects of a URL: maps s3://bucket/key to the HTTP URL of
// the store (path-style under a custom endpoint, virtual-hosted on AWS, path-style there too for a
// bucket with a dot, which the wildcard certificate cannot match), and sets up a libcurl easy
// handle for one request: SigV4 signing by libcurl (CURLOPT_AWS_SIGV4) when there are credentials,
// TLS, timeouts, HTTP/1.1 keep-alive. http(s):// URLs go as they are, unsigned.
//
// The region of an s3:// request is its bucket's: the one S3 named for it (S3Settings::
// bucket_regions, learned by io/remote/region_redirect.h), else the configured one. On AWS the
// region picks the host (bucket.s3.REGION.amazonaws.com) and the signature's scope; under a
// custom endpoint (AWS_ENDPOINT_URL..., moto, MinIO) only the scope: a request never leaves the
// endpoint it was configured with, whatever region its server names, as botocore's endpoint
// rules keep a custom endpoint_url and sign for the redirected region.
//
// libcurl 7.88 (Debian 12) signs what it is given and no more, so this class adds what S3 needs:
// the x-amz-content-sha256 header (libcurl sends none; S3 and moto reject the signature without
// it), x-amz-security-token for temporary credentials, and a query string already sorted and
// percent-encoded, since 7.88 signs the query exactly as written. Signed requests take the
// provider's current credentials (io/remote/credential_provider.h), refreshed there before they
// expire. Thread-safety: immutable after construction but for the provider and the bucket
// regions, which are thread-safe; configure() writes only the handle it is given.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/remote/credentials.h"
#include "io/remote/curl_handle.h"
#include "io/remote/url.h"

namespace feedrate::io {

struct TransferOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  // A transfer slower than low_speed_limit bytes/s for low_speed_time fails (a timeout, retried):
  // this is what catches a connection that went silent, without capping a long transfer.
  long low_speed_limit = 1'024;
  std::chrono::seconds low_speed_time{20};
  std::string ca_file;  // CURLOPT_CAINFO: a CA bundle (tests' self-signed servers); empty: system
};
// Throws std::invalid_argument for a non-positive timeout or a negative limit.
void validate(const TransferOptions& options);

// Where one request goes and how it is signed.
struct RequestTarget {
  std::string http_url;
  bool sign = false;  // an s3:// request with credentials: SigV4 for `region`
  // s3:// only (empty for http(s)://): the bucket, the region the URL and signature are for, and
  // what follows the bucket's base in http_url ("/key", "/?list-type=2&...").
  std::string bucket;
  std::string region;
  std::string path;
  // The region the request was first sent to when S3 redirected it here; empty: not redirected.
  std::string redirected_from;
};

class RemoteEndpoint {
 public:
  RemoteEndpoint(S3Settings settings, TransferOptions options);

  // The GET or HEAD of an object. Throws std::invalid_argument for an s3:// URL without a key.
  RequestTarget object_target(const RemoteUrl& url) const;
  // The ListObjectsV2 of a bucket: `query` holds (name, value) pairs, unencoded, in any order.
  RequestTarget bucket_target(const std::string& bucket,
                              std::vector<std::pair<std::string, std::string>> query) const;
  // The same request for its bucket in `region` (an s3:// target), redirected_from set.
  RequestTarget in_region(const RequestTarget& target, const std::string& region) const;
  // `target` for the region now kept for its bucket, when it was made before S3 named that and
  // is no redirect (a request queued or retried meanwhile); else `target` as it is.
  RequestTarget refreshed(const RequestTarget& target) const;
  // Keeps `region` as `bucket`'s for every later request of these settings' copies.
  void learn_region(const std::string& bucket, const std::string& region) const;

  // Sets the URL, signing, TLS and timeout options of `easy` and fills `headers` (which must
  // outlive the transfer) with the signing headers plus `extra_headers`. Throws
  // CredentialsUnavailable when the target is signed and the credentials have expired without a
  // refresh (the message names their source).
  void configure(CURL* easy, const RequestTarget& target, CurlList& headers,
                 const std::vector<std::string>& extra_headers) const;

  // Where the credentials came from (the provider's source()), for messages about denied access.
  const std::string& credentials_source() const { return settings_.credentials->source(); }

 private:
  std::string bucket_base(const std::string& bucket, const std::string& region) const;
  RequestTarget s3_target(const std::string& bucket, std::string path) const;
  std::string region_of(const std::string& bucket) const;
  void move_to(RequestTarget& target, const std::string& region) const;

  S3Settings settings_;
  TransferOptions options_;
};

}  // namespace feedrate::io
