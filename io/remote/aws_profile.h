// The AWS profile the chain reads, from both shared files as the AWS CLI finds them:
// AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, else ~/.aws/credentials and ~/.aws/config
// under HOME; a profile is "[NAME]" in the credentials file and "[profile NAME]" in the config
// file ("[default]" or "[profile default]" for the default one). Also what several sources of
// the chain read alike: a set variable, a profile's static keys, a service's endpoint.
// Thread-safety: AwsProfiles is an immutable value once read; AwsProfile points into one and
// lives no longer than it; the functions are pure.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "io/remote/aws_config_file.h"
#include "io/remote/aws_credentials.h"
#include "io/remote/credentials.h"

namespace feedrate::io {

// The variable's value when it is set and not empty.
std::optional<std::string> set_variable(const EnvLookup& env, const std::string& name);
// ~/.aws: HOME/.aws; nullopt when HOME is not set.
std::optional<std::filesystem::path> aws_directory(const EnvLookup& env);
// Whether `value` is "true" or "1" (any case), as botocore reads its switches.
bool true_value(std::string value);
// Whether the variable is set to true_value().
bool true_variable(const EnvLookup& env, const std::string& name);

struct AwsProfiles {
  std::filesystem::path credentials_path;  // empty: no variable and no HOME
  std::filesystem::path config_path;
  AwsConfigFile credentials;
  AwsConfigFile config;
};
// Throws what read_aws_config_file throws.
AwsProfiles read_aws_profiles(const EnvLookup& env);

struct AwsProfile {
  std::string name;
  const AwsProfiles* files = nullptr;
  const AwsConfigSection* credentials = nullptr;  // its section in each file, null when absent
  const AwsConfigSection* config = nullptr;

  bool found() const { return credentials != nullptr || config != nullptr; }
  // The value in the config file's section; empty when absent.
  std::string config_setting(const std::string& key) const;
  // The value in the credentials file's section, else in the config file's; empty when absent.
  std::string setting(const std::string& key) const;
  // "profile 'x' in PATH": the file whose section holds `key`, the config file when neither does.
  std::string origin(const std::string& key) const;
};
AwsProfile find_profile(const AwsProfiles& files, const std::string& name);

// The static keys (aws_access_key_id, aws_secret_access_key, aws_session_token) of one of the
// profile's sections, empty when it has none. Throws std::runtime_error naming the profile and
// the file for a key without its secret or a secret without its key.
AwsCredentials section_keys(const AwsProfile& profile, bool credentials_file);

// The endpoint of service `service` ("s3", "sts"): AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL,
// the profile's "<service>.endpoint_url" (an indented setting under "<service> ="), its
// endpoint_url; without a trailing '/'; empty when none is set. Throws std::invalid_argument
// naming the variable or profile for one that is not http(s)://host[:port].
std::string configured_endpoint(const EnvLookup& env, const AwsProfile& profile,
                                const std::string& service);

}  // namespace feedrate::io
