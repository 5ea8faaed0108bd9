// The sources feedrate reads remotely, as parsed URLs: s3://bucket/key and http(s)://host[:port]
// /path. is_url() tells a URL from a local path; parse_url() checks the URL and splits it, and
// throws std::invalid_argument (naming the URL and what is wrong) for one it cannot read. An S3
// key is kept as written (the AWS tools do not percent-decode s3:// URLs); encode_path() gives
// its form on the wire. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace feedrate::io {

enum class UrlScheme { kS3, kHttp, kHttps };

struct RemoteUrl {
  UrlScheme scheme = UrlScheme::kS3;
  std::string bucket;  // s3: the bucket
  std::string key;     // s3: the key or prefix, without the leading '/' (may be empty)
  std::string host;    // http(s): the host, an IPv6 literal with its brackets
  unsigned port = 0;   // http(s): the port, 0 when the URL gives none
  std::string path;    // http(s): the path and query as written, "/" at least
  std::string text;    // the URL as given
};

// Whether `source` names a URL (scheme "://"), as opposed to a local path.
bool is_url(std::string_view source);

// Throws std::invalid_argument for an unsupported scheme, an empty or invalid bucket or host, or
// a bad port.
RemoteUrl parse_url(std::string_view url);

// `key` percent-encoded for a URL path: every byte except A-Z a-z 0-9 - . _ ~ and '/'.
std::string encode_path(std::string_view key);
// `value` percent-encoded for a query parameter: as encode_path(), '/' encoded too.
std::string encode_query_value(std::string_view value);

}  // namespace feedrate::io
