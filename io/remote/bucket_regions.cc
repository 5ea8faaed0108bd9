#include "io/remote/bucket_regions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

namespace feedrate::io {

std::optional<std::string> BucketRegions::find(const std::string& bucket) const {
  std::shared_lock lock(mutex_);
  const auto it = regions_.find(bucket);
  if (it == regions_.end()) return std::nullopt;
  return it->second;
}

void BucketRegions::learn(const std::string& bucket, const std::string& region) {
  std::unique_lock lock(mutex_);
  regions_[bucket] = region;
}

std::shared_ptr<BucketRegions> shared_bucket_regions(const std::string& endpoint) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<BucketRegions>> maps;
  std::lock_guard lock(mutex);
  auto& regions = maps[endpoint];
  if (!regions) regions = std::make_shared<BucketRegions>();
  return regions;
}

bool is_region_name(std::string_view text) {
  if (text.empty() || text.size() > 63 || text.front() == '-' || text.back() == '-') return false;
  const auto label = [](unsigned char c) { return std::isalnum(c) || c == '-'; };
  const auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  return std::all_of(text.begin(), text.end(), label) &&
         !std::all_of(text.begin(), text.end(), digit);
}

}  // namespace feedrate::io
