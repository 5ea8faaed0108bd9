// The chain's AWS IAM Identity Center (SSO) source, as botocore's SSOProvider: the access token
// that `aws sso login` cached (the file io/remote/sso_config.h names: JSON with "accessToken"
// and "expiresAt", ISO 8601 such as "2026-12-03T15:00:00Z", or "2026-12-03T15:00:00UTC" as older
// AWS CLIs wrote it) asks the portal for the role's temporary credentials: a GET of
// /federation/credentials?account_id=ACCOUNT&role_name=ROLE with the header
// x-amz-sso_bearer_token, answered in JSON (io/remote/credentials_json.h, kSso). The token file
// is read again at every fetch, so the provider's refresh before the credentials expire
// (io/remote/credential_provider.h) picks up a new `aws sso login`. The token itself is not
// refreshed here (no SSO-OIDC CreateToken): a missing or expired one fails, saying to run
// `aws sso login --profile NAME`. Each request has 5 s to connect and 30 s in all, with one retry
// after a 5xx. Messages name the profile, the token cache file, the account, the role and the
// portal, never the token or a secret.
// Thread-safety: pure functions of their arguments, the token file and the network.
#pragma once

#include <optional>

#include "io/remote/aws_credentials.h"
#include "io/remote/aws_profile.h"
#include "io/remote/credential_source.h"
#include "io/remote/sso_config.h"

namespace feedrate::io {

// The role's credentials; `now` says whether the cached token has expired. Throws
// std::runtime_error "SOURCE: ..." (sso_source_text()) for a token cache that is missing,
// unreadable, not JSON with a string "accessToken" and "expiresAt", or expired; a portal that
// does not answer 200 (401: the token was refused, with the `aws sso login` advice); or an answer
// that is not GetRoleCredentials' JSON.
TimedCredentials fetch_sso_credentials(const SsoConfig& config, WallTime now);

// nullopt when the profile does not use SSO; its fetch compares the token's expiry with `clock`.
// Throws what read_sso_config() throws.
std::optional<SourceFetch> sso_source(const EnvLookup& env, const AwsProfile& profile,
                                      WallClock clock);

}  // namespace feedrate::io
