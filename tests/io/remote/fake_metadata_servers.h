// Fakes on 127.0.0.1 of the two metadata endpoints of the credential chain, for its tests: the
// instance metadata service (IMDSv2, or an IMDSv1-only one that answers the token's PUT with
// another status) and the container credentials endpoint (checking the Authorization header).
// Both answer credentials whose secret is kMetadataSecret and whose session token is
// "session-KEY". Thread-safety: test code; the handlers run on the servers' threads.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "tests/io/remote/credential_test_util.h"
#include "tests/io/remote/scripted_server.h"

namespace feedrate::io::test_support {

inline constexpr const char* kMetadataSecret = "cHaInSeCrEt/0123456789+TemporaryKeyMaterial";
inline constexpr const char* kImdsToken = "imds-session-token-AQAEAFake==";
inline constexpr const char* kContainerToken = "container-authorization-token";
// An hour after ManualWallClock's start.
inline constexpr const char* kMetadataExpiration = "2026-01-01T01:00:00Z";

inline std::string credentials_json(const std::string& key, const std::string& token_field,
                                    const std::string& expiration = kMetadataExpiration) {
  return "{\"Code\": \"Success\", \"AccessKeyId\": \"" + key + "\", \"SecretAccessKey\": \"" +
         kMetadataSecret + "\", \"" + token_field + "\": \"session-" + key +
         "\", \"Expiration\": \"" + expiration + "\"}";
}

inline std::string request_line(const std::string& request) {
  return request.substr(0, request.find("\r\n"));
}

// The instance metadata service with the role `role`: `role_status` answers the role's
// credentials (200: KEY-IMDS, expiring at `expiration`). It answers the token's PUT after
// `token_delay_ms` with `token_status` (200: the token). With the token in time it is IMDSv2 (a
// GET without the session token gets 401); else it answers the GETs without a token (IMDSv1).
struct FakeImds {
  std::string role = "role-a";
  std::string expiration = kMetadataExpiration;
  std::atomic<int> role_status{200};
  std::atomic<int> token_status{200};
  std::atomic<int> token_delay_ms{0};
  ScriptedServer server{[this](const std::string& request, std::size_t) {
    const std::string line = request_line(request);
    if (line.rfind("PUT /latest/api/token ", 0) == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(token_delay_ms));
      if (header_value(request, "X-aws-ec2-metadata-token-ttl-seconds") != "21600") {
        return http(400);
      }
      return token_status == 200 ? http(200, kImdsToken) : http(token_status);
    }
    const std::string token = header_value(request, "X-aws-ec2-metadata-token");
    const bool v2 = token_status == 200 && token_delay_ms == 0;
    if (token != (v2 ? kImdsToken : "")) return http(401);
    const std::string base = "GET /latest/meta-data/iam/security-credentials/";
    if (line == base + " HTTP/1.1") return role.empty() ? http(404) : http(200, role + "\n");
    if (line == base + role + " HTTP/1.1") {
      return role_status == 200 ? http(200, credentials_json("KEY-IMDS", "Token", expiration))
                                : http(role_status);
    }
    return http(404);
  }};
  std::string endpoint() const { return server.url(""); }
};

// The container endpoint at /creds, answering only with the right Authorization header.
struct FakeContainer {
  ScriptedServer server{[](const std::string& request, std::size_t) {
    if (header_value(request, "Authorization") != kContainerToken) return http(401);
    return http(200, credentials_json("KEY-CONTAINER", "Token"));
  }};
};

}  // namespace feedrate::io::test_support
