// The region of each S3 bucket as S3 itself named it, in an answer to a request sent to another
// region (io/remote/region_redirect.h), kept from then on so that later requests for the bucket
// go straight to its region: the object store's, every range fetcher's, on every thread. The
// map belongs to the S3Settings that resolved the endpoint (io/remote/credentials.h) and is
// shared by their copies; a Loader's resolutions share the process-wide map of their endpoint
// (shared_bucket_regions), as botocore's S3RegionRedirectorv2 keeps one cache per client.
// A region here is what S3 said, checked to be a host label (is_region_name), never a guess.
// Thread-safety: any thread.
#pragma once

#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace feedrate::io {

class BucketRegions {
 public:
  // The region learned for `bucket`, nullopt when none was.
  std::optional<std::string> find(const std::string& bucket) const;
  // Keeps `region` for `bucket` (replacing what was kept: S3's latest word wins).
  void learn(const std::string& bucket, const std::string& region);

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::string> regions_;
};

// The process-wide map of the buckets behind `endpoint` (an S3Settings::endpoint; empty: AWS):
// the same object for the same endpoint, for the rest of the process.
std::shared_ptr<BucketRegions> shared_bucket_regions(const std::string& endpoint);

// Whether `text` may be a region name: one DNS host label (letters, digits and '-', 1 to 63,
// neither starting nor ending with '-', not digits only), as botocore's validate_region_name
// checks, since it becomes part of a host name and of the signature's scope.
bool is_region_name(std::string_view text);

}  // namespace feedrate::io
