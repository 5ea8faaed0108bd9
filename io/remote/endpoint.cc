#include "io/remote/endpoint.h"

#include <algorithm>
#include <stdexcept>

#include "io/remote/sigv4.h"

namespace feedrate::io {

void validate(const TransferOptions& options) {
  if (options.connect_timeout.count() <= 0 || options.low_speed_time.count() <= 0) {
    throw std::invalid_argument("remote: connect_timeout and low_speed_time must be positive");
  }
  if (options.low_speed_limit < 0) {
    throw std::invalid_argument("remote: low_speed_limit must not be negative");
  }
}

RemoteEndpoint::RemoteEndpoint(S3Settings settings, TransferOptions options)
    : settings_(std::move(settings)),
      options_(std::move(options)),
      sigv4_("aws:amz:" + settings_.region + ":s3") {
  validate(options_);
}

std::string RemoteEndpoint::bucket_base(const std::string& bucket) const {
  if (settings_.path_style) return settings_.endpoint + "/" + bucket;
  const std::string host = "s3." + settings_.region + ".amazonaws.com";
  // A bucket with a dot would not match the wildcard certificate as a host name part.
  if (bucket.find('.') != std::string::npos) return "https://" + host + "/" + bucket;
  return "https://" + bucket + "." + host;
}

std::string RemoteEndpoint::object_url(const RemoteUrl& url) const {
  if (url.scheme != UrlScheme::kS3) return url.text;
  if (url.key.empty()) {
    throw std::invalid_argument("'" + url.text + "' names a bucket, not an object");
  }
  return bucket_base(url.bucket) + "/" + encode_path(url.key);
}

std::string RemoteEndpoint::bucket_url(
    const std::string& bucket, std::vector<std::pair<std::string, std::string>> query) const {
  // SigV4's canonical query is sorted by name; libcurl 7.88 signs the query as written.
  std::sort(query.begin(), query.end());
  std::string url = bucket_base(bucket) + "/";
  char separator = '?';
  for (const auto& [name, value] : query) {
    url += separator + encode_query_value(name) + "=" + encode_query_value(value);
    separator = '&';
  }
  return url;
}

bool RemoteEndpoint::signs(const RemoteUrl& url) const {
  return url.scheme == UrlScheme::kS3 && settings_.credentials->signs();
}

void RemoteEndpoint::configure(CURL* easy, const std::string& http_url, bool sign,
                               CurlList& headers,
                               const std::vector<std::string>& extra_headers) const {
  curl_easy_setopt(easy, CURLOPT_URL, http_url.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, options_.low_speed_limit);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(options_.low_speed_time.count()));
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!options_.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (sign) {
    // libcurl copies the strings, so the snapshot may be replaced once this returns.
    const auto credentials = settings_.credentials->current();
    sign_sigv4(easy, sigv4_, *credentials, headers);
    // Every request here is a GET or HEAD without a body: S3 accepts UNSIGNED-PAYLOAD for it.
    append_header(headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
  }
  for (const auto& line : extra_headers) append_header(headers, line.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
}

}  // namespace feedrate::io
