#include "io/remote/credential_source.h"

#include <exception>
#include <stdexcept>
#include <utility>

#include "io/remote/aws_profile.h"

namespace feedrate::io {

SourceFetch static_keys(AwsCredentials keys, std::string source) {
  SourceFetch made;
  made.source = std::move(source);
  made.key = keys.access_key_id + "\n" + keys.secret_access_key.reveal() + "\n" +
             keys.session_token.reveal();
  made.fetch = [keys = std::move(keys)] { return TimedCredentials{keys, std::nullopt}; };
  return made;
}

std::optional<AwsCredentials> environment_keys(const EnvLookup& env) {
  const auto key = set_variable(env, "AWS_ACCESS_KEY_ID");
  const auto secret = set_variable(env, "AWS_SECRET_ACCESS_KEY");
  if (!key && !secret) return std::nullopt;
  if (!key || !secret) {
    throw std::runtime_error(key ? "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"
                                 : "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  }
  return AwsCredentials{*key, Secret(*secret),
                        Secret(set_variable(env, "AWS_SESSION_TOKEN").value_or(""))};
}

std::optional<SourceFetch> container_credentials(const EnvLookup& env) {
  ContainerSource container;
  if (auto relative = set_variable(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    container.url = "http://169.254.170.2" + *relative;
    container.variable = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI";
  } else if (auto full = set_variable(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    container.url = *full;
    container.variable = "AWS_CONTAINER_CREDENTIALS_FULL_URI";
  } else {
    return std::nullopt;
  }
  container.token = Secret(set_variable(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN").value_or(""));
  container.token_file = set_variable(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").value_or("");
  SourceFetch made;
  made.source = source_text(container);
  made.key =
      "container\n" + container.url + "\n" + container.token_file + "\n" + container.token.reveal();
  made.fetch = [container] { return fetch_container_credentials(container); };
  return made;
}

InstanceMetadata instance_metadata(const EnvLookup& env, const AwsProfile& active) {
  InstanceMetadata service;
  service.endpoint =
      set_variable(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT").value_or(kDefaultMetadataEndpoint);
  while (!service.endpoint.empty() && service.endpoint.back() == '/') service.endpoint.pop_back();
  // The variable wins when set, even to false (botocore's order of a config variable).
  const char* variable = "AWS_EC2_METADATA_V1_DISABLED";
  const char* setting = "ec2_metadata_v1_disabled";
  if (set_variable(env, variable)) {
    if (true_variable(env, variable)) service.v1_disabled_by = variable;
  } else if (true_value(active.setting(setting))) {
    service.v1_disabled_by = std::string(setting) + " of " + active.origin(setting);
  }
  return service;
}

std::string instance_metadata_key(const InstanceMetadata& service) {
  return "imds\n" + service.endpoint + "\nv1 disabled by " + service.v1_disabled_by;
}

SourceFetch named_credential_source(const EnvLookup& env, const std::string& name,
                                    const std::string& origin, const AwsProfile& active) {
  const std::string prefix = origin + ": credential_source " + name;
  SourceFetch made;
  if (name == "Environment") {
    auto keys = environment_keys(env);
    if (!keys) {
      throw std::runtime_error(prefix +
                               ", but neither AWS_ACCESS_KEY_ID nor AWS_SECRET_ACCESS_KEY is set");
    }
    made = static_keys(std::move(*keys), "environment (AWS_ACCESS_KEY_ID)");
  } else if (name == "EcsContainer") {
    auto container = container_credentials(env);
    if (!container) {
      throw std::runtime_error(prefix +
                               ", but neither AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor "
                               "AWS_CONTAINER_CREDENTIALS_FULL_URI is set");
    }
    made = std::move(*container);
  } else if (name == "Ec2InstanceMetadata") {
    if (true_variable(env, "AWS_EC2_METADATA_DISABLED")) {
      throw std::runtime_error(prefix + ", but AWS_EC2_METADATA_DISABLED is true");
    }
    const InstanceMetadata service = instance_metadata(env, active);
    made.source = "instance metadata (" + service.endpoint + ")";
    made.key = instance_metadata_key(service);
    made.fetch = [service] { return fetch_instance_role_credentials(service); };
  } else {
    throw std::runtime_error(origin + ": credential_source '" + name +
                             "' is not one of Environment, Ec2InstanceMetadata, EcsContainer");
  }
  made.fetch = [inner = std::move(made.fetch), prefix] {
    try {
      return inner();
    } catch (const std::exception& error) {
      throw std::runtime_error(prefix + ": " + error.what());
    }
  };
  return made;
}

}  // namespace feedrate::io
