#include "io/remote/http_response.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "io/remote/remote_error.h"

namespace feedrate::io {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Parses a whole unsigned number; false when `text` is not one.
bool parse_number(std::string_view text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

void parse_content_range(std::string_view value, ResponseHead& head) {
  if (value.substr(0, 6) != "bytes ") return;
  value.remove_prefix(6);
  const auto dash = value.find('-');
  const auto slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) return;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (!parse_number(value.substr(0, dash), first) ||
      !parse_number(value.substr(dash + 1, slash - dash - 1), last) || last < first) {
    return;
  }
  head.has_range = true;
  head.range_first = first;
  head.range_last = last;
  std::uint64_t total = 0;
  if (parse_number(value.substr(slash + 1), total)) head.range_total = total;
}

}  // namespace

void ResponseHead::parse_line(std::string_view line) {
  line = trim(line);
  if (line.substr(0, 5) == "HTTP/") {
    *this = ResponseHead();
    const auto space = line.find(' ');
    if (space != std::string_view::npos) {
      std::uint64_t code = 0;
      if (parse_number(line.substr(space + 1, 3), code)) status = static_cast<long>(code);
    }
    return;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const auto name = trim(line.substr(0, colon));
  const auto value = trim(line.substr(colon + 1));
  if (iequals(name, "Content-Length")) {
    std::uint64_t length = 0;
    if (parse_number(value, length)) content_length = length;
  } else if (iequals(name, "Content-Range")) {
    parse_content_range(value, *this);
  } else if (iequals(name, "ETag") && !value.empty() && value.front() == '"') {
    etag = std::string(value);
  } else if (iequals(name, "Retry-After")) {
    retry_after = parse_retry_after(value, std::time(nullptr));
  } else if (iequals(name, "x-amz-bucket-region")) {
    bucket_region = std::string(value);
  }
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, std::time_t now) {
  value = trim(value);
  std::uint64_t seconds = 0;
  if (parse_number(value, seconds)) {
    // Far beyond any cap a caller applies, and no overflow of the duration.
    constexpr std::uint64_t kLongest = std::uint64_t{1} << 32;
    return std::chrono::seconds(static_cast<std::int64_t>(std::min(seconds, kLongest)));
  }
  if (value.empty() || !std::isalpha(static_cast<unsigned char>(value.front())))
    return std::nullopt;
  const std::time_t when = curl_getdate(std::string(value).c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::chrono::seconds(when > now ? when - now : 0);
}

std::chrono::seconds server_retry_delay(const ResponseHead& head) {
  if ((head.status != 429 && head.status != 503) || !head.retry_after) {
    return std::chrono::seconds(0);
  }
  return *head.retry_after;
}

std::size_t read_header_line(char* data, std::size_t size, std::size_t count, void* head) {
  static_cast<ResponseHead*>(head)->parse_line(std::string_view(data, size * count));
  return size * count;
}

std::string describe_status(long status, const S3ErrorBody& body) {
  std::string text = "HTTP " + std::to_string(status);
  if (!body.code.empty()) text += " " + body.code;
  if (!body.message.empty()) text += ": " + body.message;
  return text;
}

RemoteFailure status_failure(std::string_view what, long status, const S3ErrorBody& body,
                             const std::string& credentials_source) {
  RemoteFailure failure;
  failure.message = std::string(what) + ": " + describe_status(status, body);
  switch (status) {
    case 401:
    case 403:
      failure.code = RemoteErrc::kAccessDenied;
      failure.message += " (credentials: " + credentials_source + ")";
      break;
    case 404:
      failure.code = RemoteErrc::kNotFound;
      break;
    case 412:
      failure.code = RemoteErrc::kObjectChanged;
      failure.message += " (the object changed: its ETag is no longer the one it was read with)";
      break;
    case 416:
      failure.code = RemoteErrc::kRangeNotSatisfiable;
      break;
    default:
      failure.code = RemoteErrc::kHttpStatus;
  }
  return failure;
}

std::optional<RetryCause> retry_cause_of_curl(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return RetryCause::kTimeout;
    case CURLE_PARTIAL_FILE:
      return RetryCause::kShortBody;
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return RetryCause::kConnection;
    default:
      return std::nullopt;
  }
}

}  // namespace feedrate::io
