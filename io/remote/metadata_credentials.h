// Temporary credentials from the two HTTP endpoints of the AWS chain, both answering the same
// JSON (io/remote/credentials_json.h) and both asked through libcurl with short timeouts (1 s to
// connect, 2 s in all, one retry after a 5xx or a broken answer, none when nothing answers):
//   container credentials (ECS, EKS Pod Identity): GET the URL of
//     AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (under http://169.254.170.2) or
//     AWS_CONTAINER_CREDENTIALS_FULL_URI (https anywhere; http only to a loopback address,
//     169.254.170.2, 169.254.170.23 or fd00:ec2::23, as the SDKs allow), with the token of
//     AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read again at every fetch) or
//     AWS_CONTAINER_AUTHORIZATION_TOKEN as the Authorization header;
//   EC2 instance metadata, IMDSv2: PUT /latest/api/token (a session token for 6 hours), GET
//     /latest/meta-data/iam/security-credentials/ (the role's name), GET .../ROLE. As botocore's
//     InstanceMetadataFetcher does, a PUT answered other than 200 or 400 (403, 404, 405 from a
//     service that has no IMDSv2, a 5xx, an answer that times out, an empty token) falls back to
//     IMDSv1: the same GETs without a token, unless v1 is disabled
//     (AWS_EC2_METADATA_V1_DISABLED, or the profile's ec2_metadata_v1_disabled). A PUT that reached
//     nothing (refused, no connection within the timeout) ends there, without paying the connect
//     timeout again for the GETs.
// Tokens are Secrets: they never reach a message. No proxy is used for either.
// Thread-safety: pure functions of their arguments and the network; any thread.
#pragma once

#include <string>

#include "io/remote/aws_credentials.h"

namespace feedrate::io {

struct ContainerSource {
  std::string url;         // the URL asked
  std::string variable;    // the variable that named it, for the source text
  Secret token;            // AWS_CONTAINER_AUTHORIZATION_TOKEN
  std::string token_file;  // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE; wins over `token`
};
// "container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI)"
std::string source_text(const ContainerSource& source);
// Throws std::runtime_error naming the source and the URL: a URL the SDKs would not ask over
// http, an unreadable token file, no answer, a status other than 200, or a JSON problem.
TimedCredentials fetch_container_credentials(const ContainerSource& source);

inline constexpr const char* kDefaultMetadataEndpoint = "http://169.254.169.254";

struct InstanceMetadata {
  std::string endpoint = kDefaultMetadataEndpoint;  // "scheme://host[:port]", no trailing '/'
  // What turned the fallback to IMDSv1 off, for messages ("AWS_EC2_METADATA_V1_DISABLED",
  // "ec2_metadata_v1_disabled of profile 'x' in PATH"); empty: the fallback is on.
  std::string v1_disabled_by;
};

struct InstanceCredentials {
  std::string role;  // the instance's IAM role; empty when there are no credentials
  bool v1 = false;   // asked without a session token (IMDSv1)
  TimedCredentials credentials;
  std::string why_none;  // when `role` is empty: "no answer from http://...", "no IAM role ..."
};
// "instance metadata (IMDSv2, role 'r')", "instance metadata (IMDSv1, role 'r')"
std::string instance_source_text(const std::string& role, bool v1);
// Asks the instance metadata service. A service that does not answer, answers the token's PUT
// with 400, gives no token while v1 is disabled, or names no role gives no credentials (why_none
// says why): the chain ends there. Throws std::runtime_error naming the source for a role whose
// credentials cannot be read (a status other than 200, a JSON problem, a "Code" other than
// "Success").
InstanceCredentials fetch_instance_credentials(const InstanceMetadata& service);
// The credentials of fetch_instance_credentials(); where there are none, throws
// std::runtime_error with why_none.
TimedCredentials fetch_instance_role_credentials(const InstanceMetadata& service);

}  // namespace feedrate::io
