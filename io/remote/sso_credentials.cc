#include "io/remote/sso_credentials.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "io/remote/credential_http.h"
#include "io/remote/credentials_json.h"
#include "io/remote/url.h"
#include "io/remote/utc_time.h"

namespace feedrate::io {
namespace {

std::string login_advice(const SsoConfig& config) {
  return "run `aws sso login --profile " + config.profile + "`";
}

// The access token `aws sso login` cached, while it has not expired at `now`.
Secret cached_token(const SsoConfig& config, WallTime now, const std::string& origin) {
  const std::string path = config.token_cache.string();
  const std::string advice = "; " + login_advice(config);
  std::error_code missing;
  if (!std::filesystem::exists(config.token_cache, missing)) {
    throw std::runtime_error(origin + ": no SSO token is cached in " + path + advice);
  }
  std::ifstream in(config.token_cache);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error(origin + ": cannot read the SSO token cache " + path);
  // No exceptions from the parser: its messages may quote the text, which holds the token.
  const auto cache = nlohmann::json::parse(text.str(), nullptr, false);
  const auto token = cache.is_object() ? cache.find("accessToken") : cache.end();
  const auto expires = cache.is_object() ? cache.find("expiresAt") : cache.end();
  if (!cache.is_object() || token == cache.end() || !token->is_string() ||
      token->get_ref<const std::string&>().empty() || expires == cache.end() ||
      !expires->is_string()) {
    throw std::runtime_error(origin + ": the SSO token cache " + path +
                             " is not JSON with a string \"accessToken\" and \"expiresAt\"" +
                             advice);
  }
  WallTime expiry;
  try {
    expiry = parse_utc_time(expires->get<std::string>());
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(origin + ": \"expiresAt\" in the SSO token cache " + path + " is " +
                             error.what() + advice);
  }
  if (expiry <= now) {
    throw std::runtime_error(origin + ": the SSO token cached in " + path + " expired at " +
                             format_utc_time(expiry) + advice);
  }
  return Secret(token->get<std::string>());
}

}  // namespace

TimedCredentials fetch_sso_credentials(const SsoConfig& config, WallTime now) {
  const std::string origin = sso_source_text(config);
  const Secret token = cached_token(config, now, origin);
  CredentialRequest get = public_request("GET",
                                         config.endpoint + "/federation/credentials?account_id=" +
                                             encode_query_value(config.account_id) +
                                             "&role_name=" + encode_query_value(config.role_name),
                                         config.ca_file);
  get.headers = {"Accept: application/json", "x-amz-sso_bearer_token: " + token.reveal()};
  const CredentialAnswer answer = ask(get);
  if (answer.status != 200) {
    std::string what = origin + ": " + failure(get, answer);
    if (answer.status == 401) {
      what += ": the portal refused the SSO token cached in " + config.token_cache.string() + "; " +
              login_advice(config);
    }
    throw std::runtime_error(what);
  }
  return parse_credentials_json(answer.body, CredentialsJson::kSso, origin + ": GET " + get.url);
}

std::optional<SourceFetch> sso_source(const EnvLookup& env, const AwsProfile& profile,
                                      WallClock clock) {
  auto config = read_sso_config(env, profile);
  if (!config) return std::nullopt;
  SourceFetch made;
  made.source = sso_source_text(*config);
  made.key = "sso\n" + config->profile + "\n" + config->account_id + "\n" + config->role_name +
             "\n" + config->start_url + "\n" + config->session + "\n" + config->endpoint + "\n" +
             config->token_cache.string();
  if (!clock) clock = std::chrono::system_clock::now;
  made.fetch = [config = std::move(*config), clock = std::move(clock)] {
    return fetch_sso_credentials(config, clock());
  };
  return made;
}

}  // namespace feedrate::io
