// Temporary credentials from AWS STS (https://sts.REGION.amazonaws.com or the configured
// endpoint), as botocore asks for them: a POST of the form-encoded query (Version 2011-06-15)
// whose XML answer holds <Credentials> (AccessKeyId, SecretAccessKey, SessionToken,
// Expiration). Two actions:
//   AssumeRoleWithWebIdentity (EKS IRSA): unsigned, with the token of a file that is read again
//     at every call (the cluster rotates it);
//   AssumeRole: signed by libcurl (CURLOPT_AWS_SIGV4, "aws:amz:REGION:sts") with the source
//     credentials.
// Each request has 5 s to connect and 30 s in all, with one retry after a 5xx or a transfer
// cut on a connection that was made. A failure throws std::runtime_error "ORIGIN: POST URL:
// HTTP 403 AccessDenied: <STS's Message>"; neither the token nor a secret reaches a message
// (the token is taken out of STS's Message too, were it quoted there).
// Thread-safety: pure functions of their arguments, the token file and the network.
#pragma once

#include <optional>
#include <string>

#include "io/remote/aws_credentials.h"

namespace feedrate::io {

struct StsRole {
  std::string role_arn;
  std::string session_name;
  std::string endpoint;  // "scheme://host[:port]", without a trailing '/'
  std::string ca_file;   // a CA bundle for TLS (AWS_CA_BUNDLE); empty: the system's
};

struct WebIdentityRequest {
  StsRole role;
  std::string token_file;
  std::string token_setting;  // what named the file, for messages: AWS_WEB_IDENTITY_TOKEN_FILE
};
// `origin` names the source in messages. Throws for an unreadable or empty token file too.
TimedCredentials assume_role_with_web_identity(const WebIdentityRequest& request,
                                               const std::string& origin);

struct AssumeRoleRequest {
  StsRole role;
  std::string region;                   // the signature's scope
  std::string external_id;              // sent when not empty
  std::optional<int> duration_seconds;  // sent when set
};
TimedCredentials assume_role(const AssumeRoleRequest& request, const AwsCredentials& source,
                             const std::string& origin);

}  // namespace feedrate::io
