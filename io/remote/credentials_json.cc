#include "io/remote/credentials_json.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/remote/utc_time.h"

namespace feedrate::io {
namespace {

// The string field `name`, empty when absent and not `required`.
std::string text_field(const nlohmann::json& object, const char* name, bool required,
                       const std::string& origin) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) {
    if (required) throw std::runtime_error(origin + ": the JSON has no \"" + name + "\"");
    return {};
  }
  if (!it->is_string()) {
    throw std::runtime_error(origin + ": \"" + name + "\" in the JSON is not a string");
  }
  return it->get<std::string>();
}

}  // namespace

TimedCredentials parse_credentials_json(const std::string& text, CredentialsJson kind,
                                        const std::string& origin) {
  // No exceptions from the parser: its messages may quote the text.
  const auto object = nlohmann::json::parse(text, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    throw std::runtime_error(origin + ": the answer is not a JSON object");
  }
  if (kind == CredentialsJson::kProcess) {
    const auto version = object.find("Version");
    if (version == object.end() || !version->is_number_integer() || *version != 1) {
      throw std::runtime_error(origin + ": the JSON needs \"Version\": 1");
    }
  }
  TimedCredentials timed;
  timed.credentials.access_key_id = text_field(object, "AccessKeyId", true, origin);
  timed.credentials.secret_access_key = Secret(text_field(object, "SecretAccessKey", true, origin));
  timed.credentials.session_token = Secret(text_field(
      object, kind == CredentialsJson::kProcess ? "SessionToken" : "Token", false, origin));
  if (timed.credentials.access_key_id.empty() || timed.credentials.secret_access_key.empty()) {
    throw std::runtime_error(origin + ": \"AccessKeyId\" or \"SecretAccessKey\" is empty");
  }
  const std::string expiration = text_field(object, "Expiration", false, origin);
  if (!expiration.empty()) {
    try {
      timed.expiration = parse_utc_time(expiration);
    } catch (const std::invalid_argument& error) {
      throw std::runtime_error(origin + ": \"Expiration\" is " + error.what());
    }
  }
  return timed;
}

}  // namespace feedrate::io
