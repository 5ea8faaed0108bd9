#include "io/remote/credentials.h"

#include <cstdlib>
#include <stdexcept>

#include "io/remote/aws_profile.h"
#include "io/remote/credential_cache.h"
#include "io/remote/credential_process.h"
#include "io/remote/credential_source.h"
#include "io/remote/role_credentials.h"
#include "io/remote/sso_credentials.h"

namespace feedrate::io {
namespace {

// A provider whose first credentials `fetch` gives now, and that asks it again to refresh.
std::shared_ptr<CredentialProvider> temporary(std::string source, CredentialProvider::Fetch fetch,
                                              const CredentialChainOptions& options) {
  TimedCredentials first = fetch();
  return std::make_shared<CredentialProvider>(std::move(source), std::move(first), std::move(fetch),
                                              options.clock);
}

// The process-wide provider of `key` when the options ask for reuse, else a new one.
std::shared_ptr<CredentialProvider> reused(const CredentialChainOptions& options,
                                           const std::string& key, const ProviderFactory& make) {
  return options.reuse ? shared_provider(key, make) : make();
}

// The instance's role credentials, else unsigned requests saying why there are none.
std::shared_ptr<CredentialProvider> instance_provider(const InstanceMetadata& service,
                                                      const CredentialChainOptions& options) {
  auto instance = fetch_instance_credentials(service);
  if (instance.role.empty()) {
    return CredentialProvider::fixed({}, "none: unsigned requests (" + instance.why_none + ")");
  }
  return std::make_shared<CredentialProvider>(
      instance_source_text(instance.role, instance.v1), std::move(instance.credentials),
      [service] { return fetch_instance_role_credentials(service); }, options.clock);
}

// The process-wide provider of `source` when the options ask for reuse, else a new one.
std::shared_ptr<CredentialProvider> reused_temporary(const CredentialChainOptions& options,
                                                     SourceFetch& source) {
  return reused(options, source.key,
                [&] { return temporary(source.source, std::move(source.fetch), options); });
}

// The credentials of the chain after AWS_NO_SIGN_REQUEST, in botocore's order.
std::shared_ptr<CredentialProvider> chain_credentials(const EnvLookup& env,
                                                      const AwsProfile& profile,
                                                      const std::string& region,
                                                      const CredentialChainOptions& options) {
  if (true_variable(env, "AWS_NO_SIGN_REQUEST")) {
    return CredentialProvider::fixed({}, "none: unsigned requests (AWS_NO_SIGN_REQUEST)");
  }
  if (auto keys = environment_keys(env)) {
    return CredentialProvider::fixed(std::move(*keys), "environment (AWS_ACCESS_KEY_ID)");
  }
  auto role = assume_role_source(env, profile, region);
  if (!role) role = web_identity_source(env, profile, region);
  if (!role) role = sso_source(env, profile, options.clock);
  if (role) return reused_temporary(options, *role);
  const std::string in = "profile '" + profile.name + "' in ";
  if (auto keys = section_keys(profile, true); keys.signs()) {
    return CredentialProvider::fixed(std::move(keys),
                                     in + profile.files->credentials_path.string());
  }
  const std::string command = profile.setting("credential_process");
  if (!command.empty()) {
    SourceFetch process;
    process.source = "credential_process of profile '" + profile.name + "'";
    process.key = process.source + "\n" + command;
    process.fetch = [command, text = process.source] {
      return run_credential_process(command, text);
    };
    return reused_temporary(options, process);
  }
  if (auto keys = section_keys(profile, false); keys.signs()) {
    return CredentialProvider::fixed(std::move(keys), in + profile.files->config_path.string());
  }
  if (auto container = container_credentials(env)) return reused_temporary(options, *container);
  if (options.instance_metadata && !true_variable(env, "AWS_EC2_METADATA_DISABLED")) {
    const InstanceMetadata service = instance_metadata(env, profile);
    return reused(options, instance_metadata_key(service),
                  [&] { return instance_provider(service, options); });
  }
  return CredentialProvider::fixed({}, "none: unsigned requests");
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

S3Settings resolve_s3_settings(const EnvLookup& env, const CredentialChainOptions& options) {
  S3Settings settings;
  // botocore's session variable 'profile' reads AWS_DEFAULT_PROFILE first, then AWS_PROFILE.
  const char* profile_variable = "AWS_DEFAULT_PROFILE";
  auto explicit_profile = set_variable(env, profile_variable);
  if (!explicit_profile) {
    profile_variable = "AWS_PROFILE";
    explicit_profile = set_variable(env, profile_variable);
  }
  const AwsProfiles files = read_aws_profiles(env);
  const AwsProfile profile = find_profile(files, explicit_profile.value_or("default"));
  if (explicit_profile && !profile.found()) {
    throw std::runtime_error(
        std::string(profile_variable) + " names profile '" + profile.name +
        "', which is in neither " +
        (files.credentials_path.empty() ? "(no credentials file)"
                                        : files.credentials_path.string()) +
        " nor " + (files.config_path.empty() ? "(no config file)" : files.config_path.string()));
  }
  if (auto region = set_variable(env, "AWS_REGION")) {
    settings.region = *region;
  } else if (auto default_region = set_variable(env, "AWS_DEFAULT_REGION")) {
    settings.region = *default_region;
  } else if (auto configured = profile.config_setting("region"); !configured.empty()) {
    settings.region = configured;
  }
  settings.endpoint = configured_endpoint(env, profile, "s3");
  settings.path_style = !settings.endpoint.empty();
  if (options.reuse) settings.bucket_regions = shared_bucket_regions(settings.endpoint);
  // Last: the settings above are checked before any command runs or any endpoint is asked.
  settings.credentials = chain_credentials(env, profile, settings.region, options);
  return settings;
}

}  // namespace feedrate::io
