#include "io/remote/sso_config.h"

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace feedrate::io {
namespace {

// botocore's _SSO_CONFIG_VARS: any of them makes the profile an SSO profile.
constexpr std::array<const char*, 4> kSettings = {"sso_start_url", "sso_region", "sso_account_id",
                                                  "sso_role_name"};

// The profile's values of kSettings, those of its sso-session's section filled in.
std::array<std::string, kSettings.size()> settings(const AwsProfile& profile,
                                                   const std::string& session,
                                                   const std::string& origin) {
  std::array<std::string, kSettings.size()> values;
  for (std::size_t i = 0; i < kSettings.size(); ++i) values[i] = profile.setting(kSettings[i]);
  if (session.empty()) return values;
  const std::string name = "sso-session " + session;
  const auto& sections = profile.files->config.sections;
  const auto section = sections.find(name);
  if (section == sections.end()) {
    throw std::runtime_error(origin + ": sso_session '" + session + "' has no [" + name +
                             "] section in " + profile.files->config_path.string());
  }
  for (std::size_t i = 0; i < kSettings.size(); ++i) {
    const auto it = section->second.find(kSettings[i]);
    if (it == section->second.end() || it->second.empty()) continue;
    if (!values[i].empty() && values[i] != it->second) {
      throw std::runtime_error(origin + ": " + kSettings[i] + " is '" + values[i] +
                               "' in the profile but '" + it->second + "' in its [" + name + "]");
    }
    values[i] = it->second;
  }
  return values;
}

}  // namespace

std::string sso_source_text(const SsoConfig& config) {
  return "sso of profile '" + config.profile + "' (account '" + config.account_id + "', role '" +
         config.role_name + "')";
}

std::optional<SsoConfig> read_sso_config(const EnvLookup& env, const AwsProfile& profile) {
  bool uses_sso = false;
  for (const char* key : kSettings) uses_sso = uses_sso || !profile.setting(key).empty();
  if (!uses_sso) return std::nullopt;
  SsoConfig config;
  config.profile = profile.name;
  config.origin = profile.origin("sso_account_id");
  config.session = profile.setting("sso_session");
  const auto values = settings(profile, config.session, config.origin);
  std::string missing;
  for (std::size_t i = 0; i < kSettings.size(); ++i) {
    if (values[i].empty()) missing += std::string(missing.empty() ? "" : ", ") + kSettings[i];
  }
  if (!missing.empty()) {
    throw std::runtime_error(
        config.origin + " is configured for SSO but is missing " + missing +
        (config.session.empty() ? ""
                                : " (in the profile or its [sso-session " + config.session + "])"));
  }
  config.start_url = values[0];
  config.region = values[1];
  config.account_id = values[2];
  config.role_name = values[3];
  const auto aws = aws_directory(env);
  if (!aws) {
    throw std::runtime_error(config.origin +
                             " is configured for SSO, but HOME is not set: no ~/.aws/sso/cache");
  }
  config.token_cache =
      *aws / "sso" / "cache" /
      (sha1_hex(config.session.empty() ? config.start_url : config.session) + ".json");
  config.endpoint = configured_endpoint(env, profile, "sso");
  if (config.endpoint.empty()) {
    config.endpoint = "https://portal.sso." + config.region + ".amazonaws.com";
  }
  config.ca_file = set_variable(env, "AWS_CA_BUNDLE").value_or("");
  return config;
}

std::string sha1_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha1(), nullptr) != 1) {
    throw std::runtime_error("SHA-1 is not available from OpenSSL");
  }
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    char pair[3];
    std::snprintf(pair, sizeof(pair), "%02x", digest[i]);
    hex += pair;
  }
  return hex;
}

}  // namespace feedrate::io
