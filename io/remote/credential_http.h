// The small HTTP requests of the credential sources (container credentials, instance metadata,
// AWS STS, the SSO portal) through libcurl's easy interface: a bounded answer (64 KiB), timeouts,
// one retry after a 5xx or a transfer that failed on a connection that was made (none when nothing
// answered), and the text that names a failed request; plus the token files these sources read
// again at each fetch. Messages name the method, the URL and the status, never a header or a
// body (they hold tokens and secrets). Thread-safety: pure functions of their arguments and
// the network; any thread.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "io/remote/aws_credentials.h"
#include "io/remote/curl_handle.h"

namespace feedrate::io {

struct CredentialRequest {
  const char* method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value" lines
  std::string body;                  // sent when not empty
  std::chrono::milliseconds connect_timeout{1'000};
  std::chrono::milliseconds timeout{2'000};
  bool no_proxy = true;  // the link-local services are never asked through a proxy
  std::string ca_file;   // CURLOPT_CAINFO when not empty
  // Called on each attempt's handle before the headers are set (SigV4 signing), may add lines.
  std::function<void(CURL* easy, CurlList& headers)> prepare;
};

struct CredentialAnswer {
  bool reached = false;  // a connection was made
  long status = 0;       // 0: no HTTP answer
  std::string body;
  std::string error;  // the transfer's error when status is 0
};

// A request to a public AWS endpoint (STS, the SSO portal): 5 s to connect, 30 s in all, through
// the environment's proxy as S3's requests go, with the CA bundle `ca_file` (empty: the system's).
CredentialRequest public_request(const char* method, std::string url, std::string ca_file);

// The request, retried once after a 5xx or a failed transfer on a connection that was made.
CredentialAnswer ask(const CredentialRequest& request);

// "METHOD URL: HTTP 403" or "METHOD URL: <libcurl's error>", for an answer other than 200.
std::string failure(const CredentialRequest& request, const CredentialAnswer& answer);

// The file's text without its trailing line breaks. Throws std::runtime_error
// "ORIGIN: cannot read WHAT PATH" (WHAT: the variable or setting that named the file).
Secret read_token_file(const std::string& path, const std::string& what, const std::string& origin);

}  // namespace feedrate::io
