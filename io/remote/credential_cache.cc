#include "io/remote/credential_cache.h"

#include <map>
#include <mutex>

namespace feedrate::io {

std::shared_ptr<CredentialProvider> shared_provider(const std::string& key,
                                                    const ProviderFactory& make) {
  // Held while making: a second caller waits instead of running the same command again.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<CredentialProvider>> providers;
  std::lock_guard lock(mutex);
  auto& kept = providers[key];
  if (!kept) {
    try {
      kept = make();
    } catch (...) {
      providers.erase(key);
      throw;
    }
  }
  return kept;
}

}  // namespace feedrate::io
