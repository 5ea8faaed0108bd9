// The sources of credentials that the environment configures rather than a profile, read alike
// by the chain's own steps (io/remote/credentials.h) and by a role's credential_source
// (io/remote/role_credentials.h), as botocore's CanonicalNameCredentialSourcer names them:
//   Environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
//   EcsContainer: container credentials, AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI
//     with AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE) (io/remote/metadata_credentials.h);
//   Ec2InstanceMetadata: the instance metadata service at AWS_EC2_METADATA_SERVICE_ENDPOINT
//     (default http://169.254.169.254), not asked when AWS_EC2_METADATA_DISABLED is true, without
//     the IMDSv1 fallback when AWS_EC2_METADATA_V1_DISABLED is true or, that variable unset, the
//     active profile's ec2_metadata_v1_disabled is (as botocore reads the setting: from the
//     profile the chain resolves, not from a source_profile it reaches).
// Thread-safety: pure functions of the environment; the fetches they give may run on any thread.
#pragma once

#include <optional>
#include <string>

#include "io/remote/aws_credentials.h"
#include "io/remote/aws_profile.h"
#include "io/remote/credential_provider.h"
#include "io/remote/credentials.h"
#include "io/remote/metadata_credentials.h"

namespace feedrate::io {

// A source of credentials, ready to be fetched (again).
struct SourceFetch {
  std::string source;  // for messages: "environment (AWS_ACCESS_KEY_ID)", ...
  std::string key;     // names the source for the process-wide cache; holds secrets, never shown
  CredentialProvider::Fetch fetch;
};

// Keys that never expire, named by themselves in `key`.
SourceFetch static_keys(AwsCredentials keys, std::string source);

// The keys of the environment; nullopt when neither AWS_ACCESS_KEY_ID nor AWS_SECRET_ACCESS_KEY is
// set. Throws std::runtime_error when only one of them is.
std::optional<AwsCredentials> environment_keys(const EnvLookup& env);

// nullopt when neither container variable is set.
std::optional<SourceFetch> container_credentials(const EnvLookup& env);

// The instance metadata service the environment and the active profile name.
InstanceMetadata instance_metadata(const EnvLookup& env, const AwsProfile& active);
// "imds\nENDPOINT..." for the process-wide cache.
std::string instance_metadata_key(const InstanceMetadata& service);

// The credentials of credential_source `name` of the profile that `origin` names ("profile 'x'
// in PATH"), under the active profile `active` (the one the chain resolves); their fetch's
// errors start with "ORIGIN: credential_source NAME: ". Throws
// std::runtime_error naming the origin, the setting and the allowed values for an unknown name,
// and for a source that the environment does not configure (no keys, no container variable,
// AWS_EC2_METADATA_DISABLED).
SourceFetch named_credential_source(const EnvLookup& env, const std::string& name,
                                    const std::string& origin, const AwsProfile& active);

}  // namespace feedrate::io
