#include "io/remote/aws_profile.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "io/remote/url.h"

namespace feedrate::io {
namespace {

std::filesystem::path shared_file(const EnvLookup& env, const std::string& override_variable,
                                  const char* file_name) {
  if (auto path = set_variable(env, override_variable)) return *path;
  const auto directory = aws_directory(env);
  if (!directory) return {};
  return *directory / file_name;
}

const AwsConfigSection* find_section(const AwsConfigFile& file, const std::string& name) {
  const auto it = file.sections.find(name);
  return it == file.sections.end() ? nullptr : &it->second;
}

std::string section_setting(const AwsConfigSection* section, const std::string& key) {
  if (section == nullptr) return {};
  const auto it = section->find(key);
  return it == section->end() ? std::string() : it->second;
}

std::string normalized_endpoint(const std::string& endpoint, const std::string& service,
                                const std::string& origin) {
  std::string trimmed = endpoint;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
  const auto parsed = parse_url(trimmed);
  if (parsed.scheme == UrlScheme::kS3 || parsed.path != "/") {
    throw std::invalid_argument(service + " endpoint from " + origin +
                                " must be http(s)://host[:port], got '" + endpoint + "'");
  }
  return trimmed;
}

}  // namespace

std::optional<std::string> set_variable(const EnvLookup& env, const std::string& name) {
  auto value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::optional<std::filesystem::path> aws_directory(const EnvLookup& env) {
  const auto home = set_variable(env, "HOME");
  if (!home) return std::nullopt;
  return std::filesystem::path(*home) / ".aws";
}

bool true_value(std::string value) {
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return value == "true" || value == "1";
}

bool true_variable(const EnvLookup& env, const std::string& name) {
  return true_value(env(name).value_or(""));
}

AwsProfiles read_aws_profiles(const EnvLookup& env) {
  AwsProfiles files;
  files.credentials_path = shared_file(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
  files.config_path = shared_file(env, "AWS_CONFIG_FILE", "config");
  if (!files.credentials_path.empty()) {
    files.credentials = read_aws_config_file(files.credentials_path);
  }
  if (!files.config_path.empty()) files.config = read_aws_config_file(files.config_path);
  return files;
}

AwsProfile find_profile(const AwsProfiles& files, const std::string& name) {
  AwsProfile profile{name, &files, find_section(files.credentials, name),
                     find_section(files.config, name == "default" ? "default" : "profile " + name)};
  if (profile.config == nullptr && name == "default") {
    profile.config = find_section(files.config, "profile default");
  }
  return profile;
}

std::string AwsProfile::config_setting(const std::string& key) const {
  return section_setting(config, key);
}

std::string AwsProfile::setting(const std::string& key) const {
  auto value = section_setting(credentials, key);
  return value.empty() ? config_setting(key) : value;
}

std::string AwsProfile::origin(const std::string& key) const {
  const bool in_credentials = !section_setting(credentials, key).empty();
  return "profile '" + name + "' in " +
         (in_credentials ? files->credentials_path : files->config_path).string();
}

AwsCredentials section_keys(const AwsProfile& profile, bool credentials_file) {
  const AwsConfigSection* section = credentials_file ? profile.credentials : profile.config;
  const auto& path =
      credentials_file ? profile.files->credentials_path : profile.files->config_path;
  AwsCredentials credentials;
  const auto key = section_setting(section, "aws_access_key_id");
  const auto secret = section_setting(section, "aws_secret_access_key");
  if (key.empty() && secret.empty()) return credentials;
  if (key.empty() || secret.empty()) {
    throw std::runtime_error("AWS profile '" + profile.name + "' in " + path.string() + " has " +
                             (key.empty() ? "aws_secret_access_key without aws_access_key_id"
                                          : "aws_access_key_id without aws_secret_access_key"));
  }
  credentials.access_key_id = key;
  credentials.secret_access_key = Secret(secret);
  credentials.session_token = Secret(section_setting(section, "aws_session_token"));
  return credentials;
}

std::string configured_endpoint(const EnvLookup& env, const AwsProfile& profile,
                                const std::string& service) {
  std::string upper = service;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const std::string own_variable = "AWS_ENDPOINT_URL_" + upper;
  const std::string origin =
      "profile '" + profile.name + "' in " + profile.files->config_path.string();
  if (auto own = set_variable(env, own_variable)) {
    return normalized_endpoint(*own, upper, own_variable);
  }
  if (auto global = set_variable(env, "AWS_ENDPOINT_URL")) {
    return normalized_endpoint(*global, upper, "AWS_ENDPOINT_URL");
  }
  if (auto nested = profile.config_setting(service + ".endpoint_url"); !nested.empty()) {
    return normalized_endpoint(nested, upper, origin);
  }
  if (auto any = profile.config_setting("endpoint_url"); !any.empty()) {
    return normalized_endpoint(any, upper, origin);
  }
  return {};
}

}  // namespace feedrate::io
