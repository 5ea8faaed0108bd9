// The providers of temporary credentials shared by the whole process: a Loader resolves the AWS
// chain several times (the index, the read stage), and a credential_process should run, a
// container endpoint or the instance metadata service be asked, once; the provider then
// refreshes itself. Keyed by what names the source (the profile and command, the URL and
// token, the metadata endpoint); a failed resolution is not kept, a "none" answer of the
// instance metadata service is (no service there: the second resolution pays nothing).
// Thread-safety: any thread; a caller for a key being made waits for it rather than making it
// twice.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "io/remote/credential_provider.h"

namespace feedrate::io {

using ProviderFactory = std::function<std::shared_ptr<CredentialProvider>()>;

// The provider kept for `key`, else make()'s, kept from then on. make()'s exceptions pass
// through, and nothing is kept for them.
std::shared_ptr<CredentialProvider> shared_provider(const std::string& key,
                                                    const ProviderFactory& make);

}  // namespace feedrate::io
