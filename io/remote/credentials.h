// Where S3 requests go and how they are signed, resolved in the order of botocore's chain:
//   credentials: AWS_NO_SIGN_REQUEST=true forces unsigned requests; else AWS_ACCESS_KEY_ID +
//     AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); else, for the profile AWS_DEFAULT_PROFILE, else
//     AWS_PROFILE (botocore's order), else "default", the role its role_arn names, assumed (STS
//     AssumeRole) with the keys of its source_profile or the credentials of its credential_source
//     (Environment, EcsContainer, Ec2InstanceMetadata; io/remote/credential_source.h); else web
//     identity (STS AssumeRoleWithWebIdentity) with the token of AWS_WEB_IDENTITY_TOKEN_FILE or the
//     profile's web_identity_token_file for AWS_ROLE_ARN or the profile's role_arn
//     (io/remote/role_credentials.h); else the role of the profile's AWS IAM Identity Center
//     (SSO) settings, with the token `aws sso login` cached (io/remote/sso_credentials.h); else
//     the profile's keys in the credentials file, its credential_process (credentials file, then
//     config file "[profile NAME]"), its keys in the config file; else container credentials
//     (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI / _FULL_URI); else, when the options ask for it
//     and AWS_EC2_METADATA_DISABLED is not true, the instance metadata service
//     (AWS_EC2_METADATA_SERVICE_ENDPOINT, default http://169.254.169.254), IMDSv2, falling back
//     to IMDSv1 as botocore does unless AWS_EC2_METADATA_V1_DISABLED (else the profile's
//     ec2_metadata_v1_disabled) is true; else none, and requests go unsigned (public buckets).
//     The STS sources, SSO, the credential_process, container and instance metadata give
//     temporary credentials, which the provider fetches again before they expire
//     (io/remote/credential_provider.h).
//   files: AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, else ~/.aws/credentials and
//     ~/.aws/config under HOME.
//   region: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, then us-east-1: where a
//     bucket's requests go until S3 answers that the bucket is in another region, which is then
//     kept for the bucket (bucket_regions; io/remote/region_redirect.h).
//   endpoint: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's s3 endpoint_url, then its
//     endpoint_url; a custom endpoint is addressed path-style (endpoint/bucket/key), AWS
//     itself virtual-hosted style (bucket.s3.region.amazonaws.com/key).
// The environment comes through an EnvLookup, so tests give a fake one (a credential_process
// runs with the real process environment, as the AWS CLI runs it).
//
// Texts for errors and reports use the provider's source(); a secret never reaches a message
// (Secret, io/remote/aws_credentials.h). Thread-safety: S3Settings is a value whose provider and
// bucket regions are shared by its copies and are themselves thread-safe; resolve_s3_settings() may
// be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "io/remote/aws_credentials.h"
#include "io/remote/bucket_regions.h"
#include "io/remote/credential_provider.h"

namespace feedrate::io {

// The value of an environment variable, nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process environment (getenv).
EnvLookup process_environment();

struct S3Settings {
  // Never null; source() says where the credentials came from: "environment
  // (AWS_ACCESS_KEY_ID)", "assume-role of profile 'x' (role 'arn:...', source profile 'y')",
  // "assume-role of profile 'x' (role 'arn:...', credential_source Ec2InstanceMetadata)",
  // "web identity (AWS_ROLE_ARN 'arn:...')", "sso of profile 'x' (account '1', role 'r')",
  // "profile 'x' in /root/.aws/credentials", "credential_process of profile 'x'", "container
  // credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI)", "instance metadata (IMDSv2, role 'r')",
  // "instance metadata (IMDSv1, role 'r')", "none: unsigned requests", ...
  std::shared_ptr<CredentialProvider> credentials =
      CredentialProvider::fixed({}, "none: unsigned requests");
  std::string region = "us-east-1";
  // The regions S3 named for buckets that are not in `region`; never null.
  std::shared_ptr<BucketRegions> bucket_regions = std::make_shared<BucketRegions>();
  std::string endpoint;  // "scheme://host[:port]" without a trailing '/'; empty: AWS
  bool path_style = false;
};

struct CredentialChainOptions {
  // Ask the instance metadata service when nothing before it gave credentials: for s3://
  // sources only, since a machine without one pays its connect timeout (about a second).
  bool instance_metadata = false;
  WallClock clock;  // what expirations are compared with; empty: the system clock
  // Share the providers of temporary credentials process-wide (io/remote/credential_cache.h):
  // a Loader's resolutions run a credential_process, ask an endpoint, once. And share the
  // endpoint's bucket regions process-wide (shared_bucket_regions): a bucket's region, once S3
  // named it, holds for every later resolution.
  bool reuse = false;
};

// Throws std::runtime_error when the environment or a file is inconsistent (a key without its
// secret, an AWS_DEFAULT_PROFILE or AWS_PROFILE found in neither file, an unreadable file) or a
// source of temporary credentials fails (a credential_process's exit status or output, a container
// endpoint's, an instance role's, STS's or the SSO portal's answer, an SSO token cache that is
// missing or expired, a role or SSO configuration that is incomplete or inconsistent),
// std::invalid_argument for an endpoint that is not an http(s) URL; the messages never contain a
// secret.
S3Settings resolve_s3_settings(const EnvLookup& env, const CredentialChainOptions& options = {});

}  // namespace feedrate::io
