#include "io/remote/credentials.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "io/remote/aws_config_file.h"
#include "io/remote/credential_cache.h"
#include "io/remote/credential_process.h"
#include "io/remote/metadata_credentials.h"
#include "io/remote/url.h"

namespace feedrate::io {
namespace {

// A set, non-empty variable.
std::optional<std::string> variable(const EnvLookup& env, const std::string& name) {
  auto value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

bool is_true(const std::optional<std::string>& value) {
  if (!value) return false;
  std::string lower = *value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "true" || lower == "1";
}

std::filesystem::path shared_file(const EnvLookup& env, const std::string& override_variable,
                                  const char* file_name) {
  if (auto path = variable(env, override_variable)) return *path;
  const auto home = variable(env, "HOME");
  if (!home) return {};
  return std::filesystem::path(*home) / ".aws" / file_name;
}

const AwsConfigSection* find_section(const AwsConfigFile& file, const std::string& name) {
  const auto it = file.sections.find(name);
  return it == file.sections.end() ? nullptr : &it->second;
}

std::string setting(const AwsConfigSection* section, const std::string& key) {
  if (section == nullptr) return {};
  const auto it = section->find(key);
  return it == section->end() ? std::string() : it->second;
}

// Credentials from one section, empty when it has none; throws for a key without its secret.
AwsCredentials section_credentials(const AwsConfigSection* section, const std::string& profile,
                                   const std::filesystem::path& path) {
  AwsCredentials credentials;
  const auto key = setting(section, "aws_access_key_id");
  const auto secret = setting(section, "aws_secret_access_key");
  if (key.empty() && secret.empty()) return credentials;
  if (key.empty() || secret.empty()) {
    throw std::runtime_error("AWS profile '" + profile + "' in " + path.string() + " has " +
                             (key.empty() ? "aws_secret_access_key without aws_access_key_id"
                                          : "aws_access_key_id without aws_secret_access_key"));
  }
  credentials.access_key_id = key;
  credentials.secret_access_key = Secret(secret);
  credentials.session_token = Secret(setting(section, "aws_session_token"));
  return credentials;
}

std::string normalized_endpoint(const std::string& endpoint, const std::string& origin) {
  std::string trimmed = endpoint;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
  const auto parsed = parse_url(trimmed);
  if (parsed.scheme == UrlScheme::kS3 || parsed.path != "/") {
    throw std::invalid_argument("S3 endpoint from " + origin +
                                " must be http(s)://host[:port], got '" + endpoint + "'");
  }
  return trimmed;
}

struct Profile {
  std::string name;
  std::filesystem::path credentials_path;
  std::filesystem::path config_path;
  const AwsConfigSection* credentials;  // its section in each file, null when absent
  const AwsConfigSection* config;
};

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
  if (auto relative = variable(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    source.url = "http://169.254.170.2" + *relative;
    source.variable = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI";
  } else if (auto full = variable(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    source.url = *full;
    source.variable = "AWS_CONTAINER_CREDENTIALS_FULL_URI";
  } else {
    return std::nullopt;
  }
  source.token = Secret(variable(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN").value_or(""));
  source.token_file = variable(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").value_or("");
  return source;
}

// The credentials of the chain after AWS_NO_SIGN_REQUEST, in botocore's order.
std::shared_ptr<CredentialProvider> chain_credentials(const EnvLookup& env, const Profile& profile,
                                                      const CredentialChainOptions& options) {
  if (is_true(env("AWS_NO_SIGN_REQUEST"))) {
    return CredentialProvider::fixed({}, "none: unsigned requests (AWS_NO_SIGN_REQUEST)");
  }
  const auto env_key = variable(env, "AWS_ACCESS_KEY_ID");
  const auto env_secret = variable(env, "AWS_SECRET_ACCESS_KEY");
  if (env_key || env_secret) {
    if (!env_key || !env_secret) {
      throw std::runtime_error(env_key
                                   ? "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"
                                   : "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
    }
    AwsCredentials credentials{*env_key, Secret(*env_secret),
                               Secret(variable(env, "AWS_SESSION_TOKEN").value_or(""))};
    return CredentialProvider::fixed(std::move(credentials), "environment (AWS_ACCESS_KEY_ID)");
  }
  const std::string in = "profile '" + profile.name + "' in ";
  if (auto keys = section_credentials(profile.credentials, profile.name, profile.credentials_path);
      keys.signs()) {
    return CredentialProvider::fixed(std::move(keys), in + profile.credentials_path.string());
  }
  std::string command = setting(profile.credentials, "credential_process");
  if (command.empty()) command = setting(profile.config, "credential_process");
  if (!command.empty()) {
    std::string source = "credential_process of profile '" + profile.name + "'";
    return reused(options, source + "\n" + command, [&] {
      return temporary(
          source, [command, source] { return run_credential_process(command, source); }, options);
    });
  }
  if (auto keys = section_credentials(profile.config, profile.name, profile.config_path);
      keys.signs()) {
    return CredentialProvider::fixed(std::move(keys), in + profile.config_path.string());
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
        variable(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT").value_or(kDefaultMetadataEndpoint);
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
  const auto explicit_profile = variable(env, "AWS_PROFILE");
  const std::string profile = explicit_profile.value_or("default");
  const auto credentials_path = shared_file(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const auto config_path = shared_file(env, "AWS_CONFIG_FILE", "config");
  const auto credentials_file =
      credentials_path.empty() ? AwsConfigFile{} : read_aws_config_file(credentials_path);
  const auto config_file =
      config_path.empty() ? AwsConfigFile{} : read_aws_config_file(config_path);
  Profile found{profile, credentials_path, config_path, find_section(credentials_file, profile),
                find_section(config_file, profile == "default" ? "default" : "profile " + profile)};
  if (found.config == nullptr && profile == "default") {
    found.config = find_section(config_file, "profile default");
  }
  if (explicit_profile && found.credentials == nullptr && found.config == nullptr) {
    throw std::runtime_error(
        "AWS_PROFILE names profile '" + profile + "', which is in neither " +
        (credentials_path.empty() ? "(no credentials file)" : credentials_path.string()) + " nor " +
        (config_path.empty() ? "(no config file)" : config_path.string()));
  }
  if (auto region = variable(env, "AWS_REGION")) {
    settings.region = *region;
  } else if (auto default_region = variable(env, "AWS_DEFAULT_REGION")) {
    settings.region = *default_region;
  } else if (auto configured = setting(found.config, "region"); !configured.empty()) {
    settings.region = configured;
  }

  const std::string profile_origin = "profile '" + profile + "' in " + config_path.string();
  if (auto endpoint = variable(env, "AWS_ENDPOINT_URL_S3")) {
    settings.endpoint = normalized_endpoint(*endpoint, "AWS_ENDPOINT_URL_S3");
  } else if (auto global = variable(env, "AWS_ENDPOINT_URL")) {
    settings.endpoint = normalized_endpoint(*global, "AWS_ENDPOINT_URL");
  } else if (auto s3 = setting(found.config, "s3.endpoint_url"); !s3.empty()) {
    settings.endpoint = normalized_endpoint(s3, profile_origin);
  } else if (auto any = setting(found.config, "endpoint_url"); !any.empty()) {
    settings.endpoint = normalized_endpoint(any, profile_origin);
  }
  settings.path_style = !settings.endpoint.empty();
  // Last: the settings above are checked before any command runs or any endpoint is asked.
  settings.credentials = chain_credentials(env, found, options);
  return settings;
}

}  // namespace feedrate::io
