// How a Loader reaches a remote source: the S3 settings (credentials, region, endpoint) from the
// AWS chain of the environment, and the options of the object store client and of the range
// fetcher, resolved once for the index and the read stage; the instance metadata service is
// asked only for an s3:// source, and temporary credentials are shared by the process's Loaders
// (a credential_process runs once, not once per resolution). AWS_CA_BUNDLE names a CA bundle for
// TLS (as the AWS tools read it; self-signed test servers need it).
//
// Errors: throws feedrate::Error naming the source when the environment or an AWS file is
// inconsistent; the message never holds a secret. Thread-safety: a plain value.
#pragma once

#include <string>

#include "io/remote/credentials.h"
#include "io/remote/object_store.h"
#include "io/remote/range_fetcher.h"

namespace feedrate {

struct RemoteSettings {
  io::S3Settings s3;
  io::ObjectStoreOptions store;
  io::RangeFetcherOptions fetch;
};

RemoteSettings remote_settings(const std::string& source);

}  // namespace feedrate
