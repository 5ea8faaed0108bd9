// A profile's `credential_process`: the command runs as the AWS CLI runs it, `/bin/sh -c
// COMMAND` with the process's environment (and its stdin), and prints the credentials as JSON
// on stdout (io/remote/credentials_json.h). Its stderr goes into the error message, as the AWS
// CLI shows it; its stdout (which holds the secret) and the command line never do.
// Thread-safety: may be called from any thread; each call runs its own child.
#pragma once

#include <chrono>
#include <string>

#include "io/remote/aws_credentials.h"

namespace feedrate::io {

// The most a command may take before it is killed and the call fails. The command runs in a
// process group of its own, and the whole group is killed: what the command started as well.
inline constexpr std::chrono::seconds kCredentialProcessTimeout{60};

// Runs `command`; `origin` names it in messages ("credential_process of profile 'x'"). Throws
// std::runtime_error "ORIGIN: ..." when it cannot start, runs past `timeout`, ends with a
// status other than 0 or by a signal, prints more than 1 MiB, or prints what
// parse_credentials_json refuses.
TimedCredentials run_credential_process(
    const std::string& command, const std::string& origin,
    std::chrono::milliseconds timeout = kCredentialProcessTimeout);

}  // namespace feedrate::io
