// The JSON that temporary AWS credentials come in, from a credential_process ("Version": 1,
// "SessionToken") and from the container and instance metadata endpoints ("Token"):
//   {"AccessKeyId": "...", "SecretAccessKey": "...", "SessionToken"|"Token": "...",
//    "Expiration": "2026-12-02T15:04:05Z"}
// The token and the expiration are optional; a Version other than 1 is refused. The SSO portal's
// GetRoleCredentials answer names them otherwise, and its expiration is required:
//   {"roleCredentials": {"accessKeyId": "...", "secretAccessKey": "...", "sessionToken": "...",
//    "expiration": <milliseconds since the epoch>}}
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "io/remote/aws_credentials.h"

namespace feedrate::io {

enum class CredentialsJson {
  kProcess,   // credential_process output: "Version" must be 1, the token is "SessionToken"
  kMetadata,  // container and IMDS answers: the token is "Token"
  kSso,       // the SSO portal's answer: "roleCredentials", camelCase, "expiration" in ms
};

// Throws std::runtime_error "ORIGIN: ..." when the text is not a JSON object, a field is
// missing or not a string, or the expiration is not a timestamp. The message names the field,
// never the text (which holds the secret).
TimedCredentials parse_credentials_json(const std::string& text, CredentialsJson kind,
                                        const std::string& origin);

}  // namespace feedrate::io
