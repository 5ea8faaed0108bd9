#include "loader/dataset/remote_settings.h"

#include <stdexcept>

#include "feedrate/error.h"

namespace feedrate {

RemoteSettings remote_settings(const std::string& source) {
  const io::EnvLookup env = io::process_environment();
  RemoteSettings settings;
  try {
    io::CredentialChainOptions chain;
    chain.instance_metadata = source.rfind("s3://", 0) == 0;
    chain.reuse = true;
    settings.s3 = io::resolve_s3_settings(env, chain);
  } catch (const std::exception& e) {
    throw Error(source + ": " + e.what());
  }
  if (const auto bundle = env("AWS_CA_BUNDLE")) {
    settings.store.transfer.ca_file = *bundle;
    settings.fetch.transfer.ca_file = *bundle;
  }
  return settings;
}

}  // namespace feedrate
