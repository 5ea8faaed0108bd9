#include "io/remote/role_credentials.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "io/remote/sts_credentials.h"

namespace feedrate::io {
namespace {

StsRole sts_role(const EnvLookup& env, const AwsProfile& profile, const std::string& region,
                 std::string role_arn, std::string session_name) {
  StsRole role;
  role.role_arn = std::move(role_arn);
  role.session_name =
      session_name.empty()
          ? "feedrate-session-" +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count())
          : std::move(session_name);
  role.endpoint = configured_endpoint(env, profile, "sts");
  if (role.endpoint.empty()) role.endpoint = "https://sts." + region + ".amazonaws.com";
  role.ca_file = set_variable(env, "AWS_CA_BUNDLE").value_or("");
  return role;
}

std::optional<int> duration_seconds(const AwsProfile& profile) {
  const std::string text = profile.setting("duration_seconds");
  if (text.empty()) return std::nullopt;
  int seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end != text.data() + text.size() || seconds < 900 ||
      seconds > 43'200) {
    throw std::runtime_error(profile.origin("duration_seconds") +
                             ": duration_seconds must be a whole number of seconds from 900 to "
                             "43200, got '" +
                             text + "'");
  }
  return seconds;
}

// The credentials that sign the AssumeRole of `source`: its static keys, else its own role's.
// `active` is the profile the chain resolves (whose settings a credential_source reads).
StsSource source_credentials(const EnvLookup& env, const AwsProfile& active,
                             const AwsProfile& source, const std::string& region,
                             const std::string& origin, std::vector<std::string> chain);

// The earlier of two expirations; nullopt when neither expires.
std::optional<WallTime> earlier(std::optional<WallTime> a, std::optional<WallTime> b) {
  if (!a || !b) return a ? a : b;
  return std::min(*a, *b);
}

StsSource assumed(const EnvLookup& env, const AwsProfile& active, const AwsProfile& profile,
                  const std::string& region, std::vector<std::string> chain) {
  const std::string origin = profile.origin("role_arn");
  const std::string source_name = profile.setting("source_profile");
  const std::string named_source = profile.setting("credential_source");
  if (!source_name.empty() && !named_source.empty()) {
    throw std::runtime_error(origin +
                             ": role_arn has both a source_profile and a "
                             "credential_source; name one of them");
  }
  if (source_name.empty() && named_source.empty()) {
    throw std::runtime_error(origin + ": role_arn needs a source_profile or a credential_source");
  }
  AssumeRoleRequest request;
  request.role = sts_role(env, profile, region, profile.setting("role_arn"),
                          profile.setting("role_session_name"));
  request.region = region;
  request.external_id = profile.setting("external_id");
  request.duration_seconds = duration_seconds(profile);
  StsSource from;
  if (!named_source.empty()) {
    from = named_credential_source(env, named_source, profile.origin("credential_source"), active);
  } else {
    const AwsProfile source = find_profile(*profile.files, source_name);
    if (!source.found()) {
      throw std::runtime_error(origin + ": source_profile '" + source_name + "' is in neither " +
                               profile.files->credentials_path.string() + " nor " +
                               profile.files->config_path.string());
    }
    chain.push_back(profile.name);
    from = source_credentials(env, active, source, region, origin, std::move(chain));
  }
  StsSource made;
  made.source = "assume-role of profile '" + profile.name + "' (role '" + request.role.role_arn +
                "', " +
                (named_source.empty() ? "source profile '" + source_name + "'"
                                      : "credential_source " + named_source) +
                ")";
  made.key = "assume-role\n" + profile.name + "\n" + request.role.role_arn + "\n" +
             profile.setting("role_session_name") + "\n" + request.role.endpoint + "\n" +
             request.external_id + "\n" + std::to_string(request.duration_seconds.value_or(0)) +
             "\n" + from.key;
  made.fetch = [request, fetch = std::move(from.fetch), text = made.source] {
    const TimedCredentials source = fetch();
    TimedCredentials role = assume_role(request, source.credentials, text);
    role.expiration = earlier(role.expiration, source.expiration);
    return role;
  };
  return made;
}

StsSource source_credentials(const EnvLookup& env, const AwsProfile& active,
                             const AwsProfile& source, const std::string& region,
                             const std::string& origin, std::vector<std::string> chain) {
  AwsCredentials keys = section_keys(source, true);
  if (!keys.signs()) keys = section_keys(source, false);
  if (keys.signs()) return static_keys(std::move(keys), "profile '" + source.name + "'");
  if (source.setting("role_arn").empty()) {
    throw std::runtime_error(origin + ": source profile '" + source.name +
                             "' has no aws_access_key_id and aws_secret_access_key, nor a "
                             "role_arn of its own");
  }
  for (const auto& name : chain) {
    if (name != source.name) continue;
    std::string loop;
    for (const auto& link : chain) loop += link + " -> ";
    throw std::runtime_error(origin + ": the source_profile chain loops: " + loop + source.name);
  }
  return assumed(env, active, source, region, std::move(chain));
}

}  // namespace

std::optional<StsSource> assume_role_source(const EnvLookup& env, const AwsProfile& profile,
                                            const std::string& region) {
  if (profile.setting("role_arn").empty() || !profile.setting("web_identity_token_file").empty()) {
    return std::nullopt;
  }
  return assumed(env, profile, profile, region, {});
}

std::optional<StsSource> web_identity_source(const EnvLookup& env, const AwsProfile& profile,
                                             const std::string& region) {
  WebIdentityRequest request;
  if (auto file = set_variable(env, "AWS_WEB_IDENTITY_TOKEN_FILE")) {
    request.token_file = *file;
    request.token_setting = "AWS_WEB_IDENTITY_TOKEN_FILE";
  } else if (auto setting = profile.setting("web_identity_token_file"); !setting.empty()) {
    request.token_file = setting;
    request.token_setting =
        "web_identity_token_file of " + profile.origin("web_identity_token_file");
  } else {
    return std::nullopt;
  }
  const auto env_role = set_variable(env, "AWS_ROLE_ARN");
  const std::string role_arn = env_role.value_or(profile.setting("role_arn"));
  if (role_arn.empty()) {
    throw std::runtime_error("web identity: " + request.token_setting +
                             " is set, but neither AWS_ROLE_ARN nor the role_arn of profile '" +
                             profile.name + "'");
  }
  const std::string session =
      set_variable(env, "AWS_ROLE_SESSION_NAME").value_or(profile.setting("role_session_name"));
  request.role = sts_role(env, profile, region, role_arn, session);
  StsSource made;
  made.source = env_role ? "web identity (AWS_ROLE_ARN '" + role_arn + "')"
                         : "web identity (profile '" + profile.name + "', role '" + role_arn + "')";
  made.key = "web-identity\n" + role_arn + "\n" + session + "\n" + request.role.endpoint + "\n" +
             request.token_file;
  made.fetch = [request, text = made.source] {
    return assume_role_with_web_identity(request, text);
  };
  return made;
}

}  // namespace feedrate::io
