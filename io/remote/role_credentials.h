// The two sources of the chain that ask AWS STS for a role's credentials (io/remote/
// sts_credentials.h), configured as botocore configures them:
//   assume-role: the profile has role_arn and either source_profile or credential_source (and
//     no web_identity_token_file); the source profile's static keys sign AssumeRole, or, when it
//     has none but a role_arn of its own, the credentials of that role, assumed first (a chain of
//     any length without a loop, whose last role may name a credential_source). A
//     credential_source is Environment, EcsContainer or Ec2InstanceMetadata
//     (io/remote/credential_source.h), fetched again at each refresh; both settings at once is
//     an error, as in botocore. The assumed credentials expire when STS says, or earlier when the
//     source's credentials do: the provider refreshes them before either expires. Optional:
//     role_session_name, external_id, duration_seconds (900 to 43200).
//   web identity: AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN (optional AWS_ROLE_SESSION_NAME),
//     each variable in place of the profile's web_identity_token_file, role_arn,
//     role_session_name.
// A session name not configured is "feedrate-session-<unix seconds>", fixed for the source's
// lifetime. STS is AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, the profile's sts endpoint_url or
// endpoint_url (io/remote/aws_profile.h), else https://sts.REGION.amazonaws.com;
// AWS_CA_BUNDLE names a CA bundle for it. Thread-safety: pure functions; the fetches they give
// may run on any thread.
#pragma once

#include <optional>
#include <string>

#include "io/remote/aws_profile.h"
#include "io/remote/credential_source.h"

namespace feedrate::io {

// source: "assume-role of profile 'x' (role 'arn:...', source profile 'y')", "assume-role of
// profile 'x' (role 'arn:...', credential_source Ec2InstanceMetadata)", "web identity
// (AWS_ROLE_ARN 'arn:...')", "web identity (profile 'x', role 'arn:...')"; fetch asks STS (again).
using StsSource = SourceFetch;

// nullopt when the profile is not configured to assume a role. Throws std::runtime_error
// naming the profile and its file for an incomplete or inconsistent configuration (neither or
// both of source_profile and credential_source, an unknown credential_source or one the
// environment does not configure, a source profile that is missing, has no keys or loops, a bad
// duration_seconds), std::invalid_argument for a bad STS endpoint.
std::optional<StsSource> assume_role_source(const EnvLookup& env, const AwsProfile& profile,
                                            const std::string& region);

// nullopt without a token file. Throws std::runtime_error for a token file without a role ARN,
// std::invalid_argument for a bad STS endpoint.
std::optional<StsSource> web_identity_source(const EnvLookup& env, const AwsProfile& profile,
                                             const std::string& region);

}  // namespace feedrate::io
