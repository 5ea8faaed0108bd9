#include "io/remote/url.h"

#include <cctype>
#include <charconv>
#include <stdexcept>

namespace feedrate::io {
namespace {

[[noreturn]] void fail(std::string_view url, const std::string& why) {
  throw std::invalid_argument("invalid URL '" + std::string(url) + "': " + why);
}

bool is_scheme_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

bool is_unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c) || (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// S3's bucket naming rules, the part that matters for building a URL: 3 to 63 characters of
// lower-case letters, digits, '.', '-' and '_' (the last for old buckets and other stores).
void check_bucket(std::string_view url, std::string_view bucket) {
  if (bucket.empty()) fail(url, "no bucket (expected s3://bucket/key)");
  if (bucket.size() < 3 || bucket.size() > 63) fail(url, "a bucket name has 3 to 63 characters");
  for (const char c : bucket) {
    const bool ok = std::islower(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    if (!ok) fail(url, "bucket '" + std::string(bucket) + "' has a character S3 does not allow");
  }
}

RemoteUrl parse_s3(std::string_view url, std::string_view rest) {
  RemoteUrl parsed;
  parsed.scheme = UrlScheme::kS3;
  const auto slash = rest.find('/');
  parsed.bucket = std::string(rest.substr(0, slash));
  check_bucket(url, parsed.bucket);
  if (slash != std::string_view::npos) parsed.key = std::string(rest.substr(slash + 1));
  return parsed;
}

RemoteUrl parse_http(std::string_view url, std::string_view rest, UrlScheme scheme) {
  RemoteUrl parsed;
  parsed.scheme = scheme;
  const auto path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  parsed.path = path_start == std::string_view::npos ? "/" : std::string(rest.substr(path_start));
  if (parsed.path.front() != '/') parsed.path = "/" + parsed.path;
  if (authority.find('@') != std::string_view::npos) {
    fail(url, "credentials in the URL are not supported (they would end up in logs)");
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) fail(url, "unterminated IPv6 address");
    parsed.host = std::string(authority.substr(0, close + 1));
    const auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') fail(url, "unexpected text after the IPv6 address");
      port_text = after.substr(1);
    }
  } else {
    const auto colon = authority.rfind(':');
    parsed.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (parsed.host.empty()) fail(url, "no host");
  const bool has_port = authority.size() > parsed.host.size();
  if (has_port) {
    const char* end = port_text.data() + port_text.size();
    const auto [ptr, error] = std::from_chars(port_text.data(), end, parsed.port);
    if (port_text.empty() || error != std::errc() || ptr != end || parsed.port == 0 ||
        parsed.port > 65535) {
      fail(url, "port '" + std::string(port_text) + "' is not a number from 1 to 65535");
    }
  }
  return parsed;
}

}  // namespace

bool is_url(std::string_view source) {
  const auto sep = source.find("://");
  if (sep == std::string_view::npos || sep == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(source.front()))) return false;
  for (const char c : source.substr(0, sep)) {
    if (!is_scheme_char(c)) return false;
  }
  return true;
}

RemoteUrl parse_url(std::string_view url) {
  if (!is_url(url)) fail(url, "expected s3://bucket/key, http://host/path or https://host/path");
  const auto sep = url.find("://");
  std::string scheme(url.substr(0, sep));
  for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto rest = url.substr(sep + 3);
  RemoteUrl parsed;
  if (scheme == "s3") {
    parsed = parse_s3(url, rest);
  } else if (scheme == "http") {
    parsed = parse_http(url, rest, UrlScheme::kHttp);
  } else if (scheme == "https") {
    parsed = parse_http(url, rest, UrlScheme::kHttps);
  } else {
    fail(url, "scheme '" + scheme + "' is not supported (s3, http and https are)");
  }
  parsed.text = std::string(url);
  return parsed;
}

std::string encode_path(std::string_view key) {
  return percent_encode(key, true);
}

std::string encode_query_value(std::string_view value) {
  return percent_encode(value, false);
}

}  // namespace feedrate::io
