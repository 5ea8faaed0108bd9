// The AWS IAM Identity Center (SSO) settings of a profile, read as botocore's SSOProvider reads
// them, in one of two forms:
//   sso_session = NAME: a "[sso-session NAME]" section of the config file holds sso_start_url and
//     sso_region, the profile sso_account_id and sso_role_name (a setting in both must have one
//     value); the token cache is ~/.aws/sso/cache/<hex SHA-1 of NAME>.json;
//   legacy: the profile holds sso_start_url, sso_region, sso_account_id and sso_role_name; the
//     token cache is ~/.aws/sso/cache/<hex SHA-1 of the start URL>.json.
// A profile with none of those four settings does not use SSO (as in botocore); one with any of
// them needs all four. The portal is AWS_ENDPOINT_URL_SSO, AWS_ENDPOINT_URL, the profile's sso
// endpoint_url or endpoint_url (configured_endpoint(), io/remote/aws_profile.h), else
// https://portal.sso.REGION.amazonaws.com; AWS_CA_BUNDLE names a CA bundle for it.
// Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "io/remote/aws_profile.h"
#include "io/remote/credentials.h"

namespace feedrate::io {

struct SsoConfig {
  std::string profile;  // the profile's name, for `aws sso login --profile NAME`
  std::string origin;   // "profile 'x' in PATH", for messages
  std::string session;  // the sso-session's name; empty in the legacy form
  std::string start_url;
  std::string region;
  std::string account_id;
  std::string role_name;
  std::filesystem::path token_cache;  // ~/.aws/sso/cache/<hex SHA-1>.json
  std::string endpoint;               // "scheme://host[:port]", without a trailing '/'
  std::string ca_file;                // AWS_CA_BUNDLE; empty: the system's
};

// "sso of profile 'x' (account '123456789012', role 'reader')"
std::string sso_source_text(const SsoConfig& config);

// nullopt when the profile does not use SSO. Throws std::runtime_error naming the profile for a
// missing setting (each one named), an sso_session whose section is not in the config file, a
// setting whose values differ between the profile and its sso-session, or no HOME (no token
// cache); std::invalid_argument for a portal endpoint that is not http(s)://host[:port].
std::optional<SsoConfig> read_sso_config(const EnvLookup& env, const AwsProfile& profile);

// The SHA-1 of `text` in lowercase hex (40 digits), as the token cache names its files.
std::string sha1_hex(const std::string& text);

}  // namespace feedrate::io
