#include "io/remote/credentials_json.h"

#include <chrono>
#include <cstdint>
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

// The field names of each kind.
struct Fields {
  const char* key;
  const char* secret;
  const char* token;
};

Fields fields(CredentialsJson kind) {
  switch (kind) {
    case CredentialsJson::kProcess:
      return {"AccessKeyId", "SecretAccessKey", "SessionToken"};
    case CredentialsJson::kMetadata:
      return {"AccessKeyId", "SecretAccessKey", "Token"};
    case CredentialsJson::kSso:
      break;
  }
  return {"accessKeyId", "secretAccessKey", "sessionToken"};
}

// The expiration of an SSO answer: milliseconds since the epoch, required.
WallTime milliseconds_field(const nlohmann::json& object, const char* name,
                            const std::string& origin) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_number_integer()) {
    throw std::runtime_error(origin + ": \"" + name +
                             "\" in the JSON is not a number of milliseconds since the epoch");
  }
  return WallTime(std::chrono::milliseconds(it->get<std::int64_t>()));
}

}  // namespace

TimedCredentials parse_credentials_json(const std::string& text, CredentialsJson kind,
                                        const std::string& origin) {
  // No exceptions from the parser: its messages may quote the text.
  const auto document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    throw std::runtime_error(origin + ": the answer is not a JSON object");
  }
  if (kind == CredentialsJson::kProcess) {
    const auto version = document.find("Version");
    if (version == document.end() || !version->is_number_integer() || *version != 1) {
      throw std::runtime_error(origin + ": the JSON needs \"Version\": 1");
    }
  }
  const nlohmann::json* object = &document;
  if (kind == CredentialsJson::kSso) {
    const auto role = document.find("roleCredentials");
    if (role == document.end() || !role->is_object()) {
      throw std::runtime_error(origin + ": the JSON has no \"roleCredentials\" object");
    }
    object = &*role;
  }
  const Fields names = fields(kind);
  TimedCredentials timed;
  timed.credentials.access_key_id = text_field(*object, names.key, true, origin);
  timed.credentials.secret_access_key = Secret(text_field(*object, names.secret, true, origin));
  timed.credentials.session_token = Secret(text_field(*object, names.token, false, origin));
  if (timed.credentials.access_key_id.empty() || timed.credentials.secret_access_key.empty()) {
    throw std::runtime_error(origin + ": \"" + names.key + "\" or \"" + names.secret +
                             "\" is empty");
  }
  if (kind == CredentialsJson::kSso) {
    timed.expiration = milliseconds_field(*object, "expiration", origin);
    return timed;
  }
  const std::string expiration = text_field(*object, "Expiration", false, origin);
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
