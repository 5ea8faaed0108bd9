#include "io/remote/object_store.h"

#include <stdexcept>

#include "io/remote/region_redirect.h"
#include "io/remote/remote_error.h"
#include "io/remote/s3_xml.h"
#include "io/remote/url.h"

namespace feedrate::io {
namespace {

template <typename T>
RemoteResult<T> failed(RemoteFailure failure) {
  RemoteResult<T> result;
  result.error = failure.code;
  result.message = std::move(failure.message);
  return result;
}

}  // namespace

void validate(const ObjectStoreOptions& options) {
  if (options.max_keys < 1 || options.max_keys > 1000) {
    throw std::invalid_argument("remote: max_keys must be 1..1000");
  }
  validate(options.retry);
  validate(options.transfer);
}

ObjectStore::ObjectStore(S3Settings settings, const ObjectStoreOptions& options)
    : options_(options),
      clock_(options.clock != nullptr ? *options.clock : Clock::real()),
      endpoint_(std::move(settings), options.transfer),
      backoff_(options.retry, options.jitter_seed),
      easy_(new_easy()) {
  validate(options_);
}

ObjectStore::Response ObjectStore::attempt(const std::string& what, const RequestTarget& target,
                                           bool nobody, std::optional<RetryCause>& retry) {
  Response response;
  CURL* easy = easy_.get();
  curl_easy_reset(easy);
  CurlList headers;
  try {
    endpoint_.configure(easy, target, headers, {});
  } catch (const CredentialsUnavailable& error) {
    response.failure = {RemoteErrc::kAccessDenied, what + ": " + error.what()};
    return response;
  }
  if (nobody) curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  BoundedBody sink{&response.body, options_.max_get_bytes};
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, read_header_line);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &response.head);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, collect_bounded);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
  const CURLcode result = curl_easy_perform(easy);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, nullptr);
  const long status = response.head.status;
  if (sink.too_large) {
    response.failure = {RemoteErrc::kTooLarge, what + ": the object is larger than the limit of " +
                                                   std::to_string(options_.max_get_bytes) +
                                                   " bytes"};
    return response;
  }
  if (result != CURLE_OK) {
    std::string reason = curl_easy_strerror(result);
    if (error_buffer[0] != '\0') reason += " (" + std::string(error_buffer) + ")";
    retry = retry_cause_of_curl(result);
    response.failure = {
        retry == RetryCause::kShortBody ? RemoteErrc::kShortBody : RemoteErrc::kTransfer,
        what + ": " + reason};
    return response;
  }
  if (status >= 200 && status <= 299) return response;
  const auto body = parse_s3_error(response.body);
  retry = retry_cause_of_status(status, body.code);
  if (retry) {
    response.failure = {RemoteErrc::kHttpStatus, what + ": " + describe_status(status, body)};
    return response;
  }
  auto redirect = follow_region(endpoint_, target, response.head, body, nobody);
  response.resend = std::move(redirect.resend);
  response.failure = status_failure(what, status, body, endpoint_.credentials_source());
  response.failure.message += redirect.note;
  return response;
}

ObjectStore::Response ObjectStore::perform(const std::string& what, RequestTarget target,
                                           bool nobody) {
  const auto first = clock_.now();
  for (unsigned attempts = 1;; ++attempts) {
    std::optional<RetryCause> retry;
    target = endpoint_.refreshed(target);
    auto response = attempt(what, target, nobody, retry);
    if (response.resend) {
      target = std::move(*response.resend);
      continue;
    }
    if (!retry) return response;
    const auto delay = backoff_.delay(attempts, server_retry_delay(response.head));
    if (!backoff_.allows(attempts, clock_.now() + delay - first)) {
      response.failure.message += " (after " + std::to_string(attempts) + " attempts, the last " +
                                  retry_cause_name(*retry) + ")";
      return response;
    }
    clock_.sleep_for(delay);
  }
}

RemoteResult<ObjectInfo> ObjectStore::stat(const std::string& url) {
  RequestTarget target;
  try {
    target = endpoint_.object_target(parse_url(url));
  } catch (const std::invalid_argument& error) {
    return failed<ObjectInfo>({RemoteErrc::kInvalidUrl, error.what()});
  }
  const std::string what = "HEAD " + url;
  auto response = perform(what, std::move(target), true);
  if (response.failure.code) return failed<ObjectInfo>(std::move(response.failure));
  if (!response.head.content_length) {
    return failed<ObjectInfo>({RemoteErrc::kBadResponse, what + ": no Content-Length"});
  }
  RemoteResult<ObjectInfo> result;
  result.value = {url, *response.head.content_length, response.head.etag};
  return result;
}

RemoteResult<std::vector<ObjectInfo>> ObjectStore::list(const std::string& prefix_url) {
  using Objects = std::vector<ObjectInfo>;
  RemoteUrl parsed;
  try {
    parsed = parse_url(prefix_url);
  } catch (const std::invalid_argument& error) {
    return failed<Objects>({RemoteErrc::kInvalidUrl, error.what()});
  }
  if (parsed.scheme != UrlScheme::kS3) {
    return failed<Objects>({RemoteErrc::kNotSupported,
                            "cannot list " + prefix_url +
                                ": an http(s) server has no listing; name the shards with a "
                                "brace pattern (shard-{000000..000099}.tar) or a file list"});
  }
  RemoteResult<Objects> result;
  std::string token;
  for (unsigned page = 1;; ++page) {
    std::vector<std::pair<std::string, std::string>> query{
        {"list-type", "2"},
        {"prefix", parsed.key},
        {"max-keys", std::to_string(options_.max_keys)}};
    if (!token.empty()) query.emplace_back("continuation-token", token);
    const std::string what = "LIST " + prefix_url + " (page " + std::to_string(page) + ")";
    auto response = perform(what, endpoint_.bucket_target(parsed.bucket, std::move(query)), false);
    if (response.failure.code) return failed<Objects>(std::move(response.failure));
    ListPage listed;
    try {
      listed = parse_list_page(response.body);
    } catch (const std::runtime_error& error) {
      return failed<Objects>({RemoteErrc::kBadResponse, what + ": " + error.what()});
    }
    for (auto& object : listed.objects) {
      result.value.push_back(
          {"s3://" + parsed.bucket + "/" + object.key, object.size, std::move(object.etag)});
    }
    if (!listed.truncated) return result;
    token = std::move(listed.next_token);
  }
}

RemoteResult<std::string> ObjectStore::get(const std::string& url) {
  RequestTarget target;
  try {
    target = endpoint_.object_target(parse_url(url));
  } catch (const std::invalid_argument& error) {
    return failed<std::string>({RemoteErrc::kInvalidUrl, error.what()});
  }
  auto response = perform("GET " + url, std::move(target), false);
  if (response.failure.code) return failed<std::string>(std::move(response.failure));
  RemoteResult<std::string> result;
  result.value = std::move(response.body);
  return result;
}

}  // namespace feedrate::io
