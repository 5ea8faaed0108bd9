// Errors a remote operation (a ranged GET, a HEAD, a listing) can end with, as std::error_code
// values of one category. The code says what kind of failure it was, so callers can decide
// (skip a missing object, stop on denied access); the accompanying message (FetchResult::message,
// RemoteResult::message) says which URL, which status and why. Thread-safety: immutable.
#pragma once

#include <system_error>

namespace feedrate::io {

enum class RemoteErrc {
  kInvalidUrl = 1,       // not an s3:// or http(s):// URL, or no key where one is needed
  kNotFound,             // HTTP 404 (S3: NoSuchKey, NoSuchBucket)
  kAccessDenied,         // HTTP 401 or 403
  kObjectChanged,        // HTTP 412 to If-Match: the object's ETag is no longer the one given
  kRangeNotSatisfiable,  // HTTP 416, or an object shorter than the range asked
  kHttpStatus,           // any other status that is not success, or a retryable one retried out
  kTransfer,             // no usable answer: connection, TLS, timeout (after the retries)
  kShortBody,            // the body ended before the bytes asked, retried out
  kBadResponse,          // an answer that contradicts the request (a Content-Range for other bytes)
  kNotSupported,         // an operation the URL's scheme has no way to do (listing https://)
  kTooLarge,             // get(): the object is larger than the caller's limit
};

const std::error_category& remote_category();
std::error_code make_error_code(RemoteErrc code);

}  // namespace feedrate::io

template <>
struct std::is_error_code_enum<feedrate::io::RemoteErrc> : std::true_type {};
