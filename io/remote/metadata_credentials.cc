#include "io/remote/metadata_credentials.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "io/remote/credential_http.h"
#include "io/remote/credentials_json.h"
#include "io/remote/url.h"

namespace feedrate::io {
namespace {

// A request with the 1 s / 2 s timeouts of these link-local services, never through a proxy.
CredentialRequest request(const char* method, std::string url, std::vector<std::string> headers) {
  CredentialRequest made;
  made.method = method;
  made.url = std::move(url);
  made.headers = std::move(headers);
  return made;
}

// The GETs' headers: IMDSv2's session token, revealed here for libcurl; none for IMDSv1.
std::vector<std::string> session_headers(const Secret& session) {
  if (session.empty()) return {};
  return {"X-aws-ec2-metadata-token: " + session.reveal()};
}

bool allowed_over_http(const std::string& host) {
  return host.rfind("127.", 0) == 0 || host == "localhost" || host == "[::1]" ||
         host == "169.254.170.2" || host == "169.254.170.23" || host == "[fd00:ec2::23]";
}

}  // namespace

std::string source_text(const ContainerSource& source) {
  return "container credentials (" + source.variable + ")";
}

TimedCredentials fetch_container_credentials(const ContainerSource& source) {
  const std::string origin = source_text(source);
  RemoteUrl url;
  try {
    url = parse_url(source.url);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(origin + ": " + error.what());
  }
  if (url.scheme == UrlScheme::kS3 ||
      (url.scheme == UrlScheme::kHttp && !allowed_over_http(url.host))) {
    throw std::runtime_error(origin + ": " + source.url +
                             " must be https://, or http:// to a loopback address, "
                             "169.254.170.2, 169.254.170.23 or fd00:ec2::23");
  }
  auto get = request("GET", source.url, {"Accept: application/json"});
  const Secret token =
      source.token_file.empty()
          ? source.token
          : read_token_file(source.token_file, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", origin);
  if (!token.empty()) get.headers.push_back("Authorization: " + token.reveal());
  const CredentialAnswer answer = ask(get);
  if (answer.status != 200) throw std::runtime_error(origin + ": " + failure(get, answer));
  return parse_credentials_json(answer.body, CredentialsJson::kMetadata, origin);
}

std::string instance_source_text(const std::string& role, bool v1) {
  return std::string("instance metadata (IMDSv") + (v1 ? "1" : "2") + ", role '" + role + "')";
}

InstanceCredentials fetch_instance_credentials(const InstanceMetadata& service) {
  InstanceCredentials found;
  // A PUT without a body, as the SDKs send it (Content-Length 0).
  const auto put = request("PUT", service.endpoint + "/latest/api/token",
                           {"X-aws-ec2-metadata-token-ttl-seconds: 21600", "Content-Length: 0"});
  const CredentialAnswer token = ask(put);
  Secret session;  // empty: IMDSv1
  if (token.status == 200 && !token.body.empty()) {
    session = Secret(token.body);
  } else if (!token.reached || token.status == 400 || !service.v1_disabled_by.empty()) {
    found.why_none = "instance metadata: " + failure(put, token);
    if (token.reached && token.status != 400) {
      found.why_none += ", and IMDSv1 is disabled (" + service.v1_disabled_by + ")";
    }
    return found;
  } else {
    found.v1 = true;
  }
  const std::string roles_url = service.endpoint + "/latest/meta-data/iam/security-credentials/";
  const auto list = request("GET", roles_url, session_headers(session));
  const CredentialAnswer roles = ask(list);
  const std::string role = roles.body.substr(0, roles.body.find_first_of("\r\n"));
  if (roles.status != 200 || role.empty()) {
    found.why_none =
        "instance metadata: " + (roles.status == 404 || roles.status == 200
                                     ? std::string("no IAM role attached to the instance")
                                     : failure(list, roles));
    return found;
  }
  const std::string origin = instance_source_text(role, found.v1);
  const auto get = request("GET", roles_url + encode_path(role), session_headers(session));
  const CredentialAnswer answer = ask(get);
  if (answer.status != 200) throw std::runtime_error(origin + ": " + failure(get, answer));
  const auto object = nlohmann::json::parse(answer.body, nullptr, false);
  if (object.is_object() && object.contains("Code") && object["Code"] != "Success") {
    throw std::runtime_error(origin + ": GET " + get.url + ": the answer's Code is not Success");
  }
  found.credentials = parse_credentials_json(answer.body, CredentialsJson::kMetadata, origin);
  found.role = role;
  return found;
}

TimedCredentials fetch_instance_role_credentials(const InstanceMetadata& service) {
  InstanceCredentials instance = fetch_instance_credentials(service);
  if (instance.role.empty()) throw std::runtime_error(instance.why_none);
  return std::move(instance.credentials);
}

}  // namespace feedrate::io
