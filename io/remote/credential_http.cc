#include "io/remote/credential_http.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace feedrate::io {
namespace {

constexpr unsigned kAttempts = 2;
constexpr std::size_t kMaxBody = 64 << 10;

CredentialAnswer attempt(const CredentialRequest& request) {
  CredentialAnswer answer;
  CurlEasy easy = new_easy();
  CurlList headers;
  BoundedBody sink{&answer.body, kMaxBody};  // a longer answer is not credentials
  char error[CURL_ERROR_SIZE] = {};
  CURL* handle = easy.get();
  curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method);
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  if (request.no_proxy) curl_easy_setopt(handle, CURLOPT_PROXY, "");
  if (!request.ca_file.empty()) curl_easy_setopt(handle, CURLOPT_CAINFO, request.ca_file.c_str());
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  if (!request.body.empty()) {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, request.body.c_str());
  }
  if (request.prepare) request.prepare(handle, headers);
  for (const auto& line : request.headers) append_header(headers, line.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect_bounded);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error);
  const CURLcode result = curl_easy_perform(handle);
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_off_t connected = 0;
  curl_easy_getinfo(handle, CURLINFO_CONNECT_TIME_T, &connected);
  answer.reached = answer.status != 0 || connected > 0;
  if (result != CURLE_OK) {
    answer.status = 0;
    answer.error = curl_easy_strerror(result);
    if (error[0] != '\0') answer.error += " (" + std::string(error) + ")";
  }
  return answer;
}

}  // namespace

CredentialRequest public_request(const char* method, std::string url, std::string ca_file) {
  CredentialRequest request;
  request.method = method;
  request.url = std::move(url);
  request.connect_timeout = std::chrono::seconds(5);
  request.timeout = std::chrono::seconds(30);
  request.no_proxy = false;
  request.ca_file = std::move(ca_file);
  return request;
}

CredentialAnswer ask(const CredentialRequest& request) {
  CredentialAnswer answer;
  for (unsigned attempts = 0; attempts < kAttempts; ++attempts) {
    answer = attempt(request);
    if (!answer.reached || (answer.status != 0 && answer.status < 500)) break;
  }
  return answer;
}

std::string failure(const CredentialRequest& request, const CredentialAnswer& answer) {
  const std::string what = std::string(request.method) + " " + request.url + ": ";
  if (answer.status == 0) return what + answer.error;
  return what + "HTTP " + std::to_string(answer.status);
}

Secret read_token_file(const std::string& path, const std::string& what,
                       const std::string& origin) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error(origin + ": cannot read " + what + " " + path);
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return Secret(std::move(token));
}

}  // namespace feedrate::io
