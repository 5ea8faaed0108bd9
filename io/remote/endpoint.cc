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
    : settings_(std::move(settings)), options_(std::move(options)) {
  validate(options_);
}

std::string RemoteEndpoint::bucket_base(const std::string& bucket,
                                        const std::string& region) const {
  if (settings_.path_style) return settings_.endpoint + "/" + bucket;
  const std::string host = "s3." + region + ".amazonaws.com";
  // A bucket with a dot would not match the wildcard certificate as a host name part.
  if (bucket.find('.') != std::string::npos) return "https://" + host + "/" + bucket;
  return "https://" + bucket + "." + host;
}

std::string RemoteEndpoint::region_of(const std::string& bucket) const {
  return settings_.bucket_regions->find(bucket).value_or(settings_.region);
}

void RemoteEndpoint::move_to(RequestTarget& target, const std::string& region) const {
  target.region = region;
  target.http_url = bucket_base(target.bucket, region) + target.path;
}

RequestTarget RemoteEndpoint::s3_target(const std::string& bucket, std::string path) const {
  RequestTarget target;
  target.sign = settings_.credentials->signs();
  target.bucket = bucket;
  target.path = std::move(path);
  move_to(target, region_of(bucket));
  return target;
}

RequestTarget RemoteEndpoint::object_target(const RemoteUrl& url) const {
  if (url.scheme != UrlScheme::kS3) {
    RequestTarget target;
    target.http_url = url.text;
    return target;
  }
  if (url.key.empty()) {
    throw std::invalid_argument("'" + url.text + "' names a bucket, not an object");
  }
  std::string path = "/";
  path += encode_path(url.key);
  return s3_target(url.bucket, std::move(path));
}

RequestTarget RemoteEndpoint::bucket_target(
    const std::string& bucket, std::vector<std::pair<std::string, std::string>> query) const {
  // SigV4's canonical query is sorted by name; libcurl 7.88 signs the query as written.
  std::sort(query.begin(), query.end());
  std::string path = "/";
  char separator = '?';
  for (const auto& [name, value] : query) {
    path += separator + encode_query_value(name) + "=" + encode_query_value(value);
    separator = '&';
  }
  return s3_target(bucket, std::move(path));
}

RequestTarget RemoteEndpoint::in_region(const RequestTarget& target,
                                        const std::string& region) const {
  RequestTarget moved = target;
  moved.redirected_from = target.region;
  move_to(moved, region);
  return moved;
}

RequestTarget RemoteEndpoint::refreshed(const RequestTarget& target) const {
  if (target.bucket.empty() || !target.redirected_from.empty()) return target;
  const std::string region = region_of(target.bucket);
  if (region == target.region) return target;
  RequestTarget moved = target;
  move_to(moved, region);
  return moved;
}

void RemoteEndpoint::learn_region(const std::string& bucket, const std::string& region) const {
  settings_.bucket_regions->learn(bucket, region);
}

void RemoteEndpoint::configure(CURL* easy, const RequestTarget& target, CurlList& headers,
                               const std::vector<std::string>& extra_headers) const {
  curl_easy_setopt(easy, CURLOPT_URL, target.http_url.c_str());
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
  if (target.sign) {
    // libcurl copies the strings, so the snapshot may be replaced once this returns.
    const auto credentials = settings_.credentials->current();
    sign_sigv4(easy, "aws:amz:" + target.region + ":s3", *credentials, headers);
    // Every request here is a GET or HEAD without a body: S3 accepts UNSIGNED-PAYLOAD for it.
    append_header(headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
  }
  for (const auto& line : extra_headers) append_header(headers, line.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
}

}  // namespace feedrate::io
