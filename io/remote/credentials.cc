#include "io/remote/credentials.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "io/remote/aws_profile.h"
#include "io/remote/credential_cache.h"
#include "io/remote/credential_process.h"
#include "io/remote/metadata_credentials.h"
#include "io/remote/role_credentials.h"

namespace feedrate::io {
namespace {

bool is_true(const std::optional<std::string>& value) {
  if (!value) return false;
  std::string lower = *value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "true" || lower == "1";
}

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
std::shared_ptr<CredentialProvider> instance_provider(const std::string& endpoint,
                                                      const CredentialChainOptions& options) {
  auto instance = fetch_instance_credentials(endpoint);
  if (instance.role.empty()) {
    return CredentialProvider::fixed({}, "none: unsigned requests (" + instance.why_none + ")");
  }
  auto fetch = [endpoint] {
    auto again = fetch_instance_credentials(endpoint);
    if (again.role.empty()) throw std::runtime_error(again.why_none);
    return std::move(again.credentials);
  };
  return std::make_shared<CredentialProvider>(instance_source_text(instance.role),
                                              std::move(instance.credentials), std::move(fetch),
                                              options.clock);
}

std::optional<ContainerSource> container_source(const EnvLookup& env) {
  ContainerSource source;
  if (auto relative = set_variable(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    source.url = "http://169.254.170.2" + *relative;
    source.variable = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI";
  } else if (auto full = set_variable(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    source.url = *full;
    source.variable = "AWS_CONTAINER_CREDENTIALS_FULL_URI";
  } else {
    return std::nullopt;
  }
  source.token = Secret(set_variable(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN").value_or(""));
  source.token_file = set_variable(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").value_or("");
  return source;
}

// The credentials of the chain after AWS_NO_SIGN_REQUEST, in botocore's order.
std::shared_ptr<CredentialProvider> chain_credentials(const EnvLookup& env,
                                                      const AwsProfile& profile,
                                                      const std::string& region,
                                                      const CredentialChainOptions& options) {
  if (is_true(env("AWS_NO_SIGN_REQUEST"))) {
    return CredentialProvider::fixed({}, "none: unsigned requests (AWS_NO_SIGN_REQUEST)");
  }
  const auto env_key = set_variable(env, "AWS_ACCESS_KEY_ID");
  const auto env_secret = set_variable(env, "AWS_SECRET_ACCESS_KEY");
  if (env_key || env_secret) {
    if (!env_key || !env_secret) {
      throw std::runtime_error(env_key
                                   ? "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"
                                   : "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
    }
    AwsCredentials credentials{*env_key, Secret(*env_secret),
                               Secret(set_variable(env, "AWS_SESSION_TOKEN").value_or(""))};
    return CredentialProvider::fixed(std::move(credentials), "environment (AWS_ACCESS_KEY_ID)");
  }
  auto sts = assume_role_source(env, profile, region);
  if (!sts) sts = web_identity_source(env, profile, region);
  if (sts) {
    return reused(options, sts->key,
                  [&] { return temporary(sts->source, std::move(sts->fetch), options); });
  }
  const std::string in = "profile '" + profile.name + "' in ";
  if (auto keys = section_keys(profile, true); keys.signs()) {
    return CredentialProvider::fixed(std::move(keys),
                                     in + profile.files->credentials_path.string());
  }
  const std::string command = profile.setting("credential_process");
  if (!command.empty()) {
    std::string source = "credential_process of profile '" + profile.name + "'";
    return reused(options, source + "\n" + command, [&] {
      return temporary(
          source, [command, source] { return run_credential_process(command, source); }, options);
    });
  }
  if (auto keys = section_keys(profile, false); keys.signs()) {
    return CredentialProvider::fixed(std::move(keys), in + profile.files->config_path.string());
  }
  if (auto container = container_source(env)) {
    const std::string key = "container\n" + container->url + "\n" + container->token_file + "\n" +
                            container->token.reveal();
    return reused(options, key, [&] {
      return temporary(
          source_text(*container), [container] { return fetch_container_credentials(*container); },
          options);
    });
  }
  if (options.instance_metadata && !is_true(env("AWS_EC2_METADATA_DISABLED"))) {
    std::string endpoint =
        set_variable(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT").value_or(kDefaultMetadataEndpoint);
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    return reused(options, "imds\n" + endpoint,
                  [&] { return instance_provider(endpoint, options); });
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
  const auto explicit_profile = set_variable(env, "AWS_PROFILE");
  const AwsProfiles files = read_aws_profiles(env);
  const AwsProfile profile = find_profile(files, explicit_profile.value_or("default"));
  if (explicit_profile && !profile.found()) {
    throw std::runtime_error(
        "AWS_PROFILE names profile '" + profile.name + "', which is in neither " +
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
  // Last: the settings above are checked before any command runs or any endpoint is asked.
  settings.credentials = chain_credentials(env, profile, settings.region, options);
  return settings;
}

}  // namespace feedrate::io
