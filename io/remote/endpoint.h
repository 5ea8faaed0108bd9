// How to reach and authenticate to the objects of a URL: maps s3://bucket/key to the HTTP URL of
// the store (path-style under a custom endpoint, virtual-hosted on AWS, path-style there too for a
// bucket with a dot, which the wildcard certificate cannot match), and sets up a libcurl easy
// handle for one request: SigV4 signing by libcurl (CURLOPT_AWS_SIGV4) when there are credentials,
// TLS, timeouts, HTTP/1.1 keep-alive. http(s):// URLs go as they are, unsigned.
//
// libcurl 7.88 (Debian 12) signs what it is given and no more, so this class adds what S3 needs:
// the x-amz-content-sha256 header (libcurl sends none; S3 and moto reject the signature without
// it), x-amz-security-token for temporary credentials, and a query string already sorted and
// percent-encoded, since 7.88 signs the query exactly as written. Signed requests take the
// provider's current credentials (io/remote/credential_provider.h), refreshed there before they
// expire. Thread-safety: immutable after construction but for the provider, which is
// thread-safe; configure() writes only the handle it is given.
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

class RemoteEndpoint {
 public:
  RemoteEndpoint(S3Settings settings, TransferOptions options);

  // The HTTP(S) URL of an object. Throws std::invalid_argument for an s3:// URL without a key.
  std::string object_url(const RemoteUrl& url) const;
  // The ListObjectsV2 URL of a bucket: `query` holds (name, value) pairs, unencoded, in any order.
  std::string bucket_url(const std::string& bucket,
                         std::vector<std::pair<std::string, std::string>> query) const;

  // Sets the URL, signing, TLS and timeout options of `easy` and fills `headers` (which must
  // outlive the transfer) with the signing headers plus `extra_headers`. `sign`: the URL is an
  // s3:// one and there are credentials. Throws CredentialsUnavailable when `sign` and the
  // credentials have expired without a refresh (the message names their source).
  void configure(CURL* easy, const std::string& http_url, bool sign, CurlList& headers,
                 const std::vector<std::string>& extra_headers) const;

  // Whether requests for `url` are signed.
  bool signs(const RemoteUrl& url) const;
  // Where the credentials came from (the provider's source()), for messages about denied access.
  const std::string& credentials_source() const { return settings_.credentials->source(); }

 private:
  std::string bucket_base(const std::string& bucket) const;

  S3Settings settings_;
  TransferOptions options_;
  std::string sigv4_;  // "aws:amz:REGION:s3"
};

}  // namespace feedrate::io
