#include "io/remote/sts_credentials.h"

#include <pugixml.hpp>
#include <stdexcept>
#include <utility>
#include <vector>

#include "io/remote/credential_http.h"
#include "io/remote/s3_xml.h"
#include "io/remote/sigv4.h"
#include "io/remote/url.h"
#include "io/remote/utc_time.h"

namespace feedrate::io {
namespace {

using Parameters = std::vector<std::pair<std::string, std::string>>;

CredentialRequest post(const StsRole& role, const std::string& action, Parameters parameters) {
  CredentialRequest request = public_request("POST", role.endpoint + "/", role.ca_file);
  // No "Expect:" line to suppress 100-continue: libcurl 7.88 would sign that header without
  // sending it (moto answers SignatureDoesNotMatch); a body this small gets no Expect anyway.
  request.headers = {"Content-Type: application/x-www-form-urlencoded; charset=utf-8",
                     "Accept: text/xml"};
  parameters.insert(parameters.begin(), {{"Action", action},
                                         {"Version", "2011-06-15"},
                                         {"RoleArn", role.role_arn},
                                         {"RoleSessionName", role.session_name}});
  for (const auto& [name, value] : parameters) {
    if (!request.body.empty()) request.body += '&';
    request.body += name + "=" + encode_query_value(value);
  }
  return request;
}

// `text` with every occurrence of `secret` replaced by "<redacted>".
std::string without(std::string text, const Secret& secret) {
  if (secret.empty()) return text;
  for (auto at = text.find(secret.reveal()); at != std::string::npos;
       at = text.find(secret.reveal(), at)) {
    text.replace(at, secret.reveal().size(), "<redacted>");
  }
  return text;
}

// The credentials of a 200 answer to `action`, else throws naming the status and STS's error.
TimedCredentials call(const CredentialRequest& request, const std::string& action,
                      const Secret& token, const std::string& origin) {
  const CredentialAnswer answer = ask(request);
  const std::string where = origin + ": " + failure(request, answer);
  if (answer.status != 200) {
    const auto error = parse_s3_error(answer.body);
    std::string what = where;
    if (!error.code.empty()) what += " " + error.code;
    if (!error.message.empty()) what += ": " + error.message;
    throw std::runtime_error(without(std::move(what), token));
  }
  pugi::xml_document document;
  const auto& body = answer.body;
  const pugi::xml_node credentials = document.load_buffer(body.data(), body.size())
                                         ? document.child((action + "Response").c_str())
                                               .child((action + "Result").c_str())
                                               .child("Credentials")
                                         : pugi::xml_node();
  if (!credentials) {
    throw std::runtime_error(where + ": the answer has no <" + action + "Result><Credentials>");
  }
  TimedCredentials timed;
  timed.credentials.access_key_id = credentials.child_value("AccessKeyId");
  timed.credentials.secret_access_key = Secret(credentials.child_value("SecretAccessKey"));
  timed.credentials.session_token = Secret(credentials.child_value("SessionToken"));
  if (!timed.credentials.signs() || timed.credentials.secret_access_key.empty()) {
    throw std::runtime_error(where + ": <AccessKeyId> or <SecretAccessKey> is empty");
  }
  try {
    timed.expiration = parse_utc_time(credentials.child_value("Expiration"));
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(where + ": <Expiration> is " + error.what());
  }
  return timed;
}

}  // namespace

TimedCredentials assume_role_with_web_identity(const WebIdentityRequest& request,
                                               const std::string& origin) {
  const Secret token = read_token_file(request.token_file, request.token_setting, origin);
  if (token.empty()) {
    throw std::runtime_error(origin + ": " + request.token_setting + " " + request.token_file +
                             " is empty");
  }
  const std::string action = "AssumeRoleWithWebIdentity";
  return call(post(request.role, action, {{"WebIdentityToken", token.reveal()}}), action, token,
              origin);
}

TimedCredentials assume_role(const AssumeRoleRequest& request, const AwsCredentials& source,
                             const std::string& origin) {
  Parameters parameters;
  if (request.duration_seconds) {
    parameters.emplace_back("DurationSeconds", std::to_string(*request.duration_seconds));
  }
  if (!request.external_id.empty()) parameters.emplace_back("ExternalId", request.external_id);
  const std::string action = "AssumeRole";
  CredentialRequest signed_post = post(request.role, action, std::move(parameters));
  const std::string scope = "aws:amz:" + request.region + ":sts";
  signed_post.prepare = [&scope, &source](CURL* easy, CurlList& headers) {
    sign_sigv4(easy, scope, source, headers);
  };
  return call(signed_post, action, {}, origin);
}

}  // namespace feedrate::io
