#include "io/remote/region_redirect.h"

#include "io/remote/bucket_regions.h"

namespace feedrate::io {
namespace {

std::string quoted(const std::string& text) {
  return "'" + text + "'";
}

}  // namespace

std::optional<std::string> answered_region(const ResponseHead& head, const S3ErrorBody& body,
                                           bool head_request) {
  const long status = head.status;
  const bool wrong = status == 301 || status == 302 || status == 307 ||
                     (head_request && status == 400) || body.code == "PermanentRedirect" ||
                     body.code == "IllegalLocationConstraintException" ||
                     (body.code == "AuthorizationHeaderMalformed" && !body.region.empty());
  if (!wrong) return std::nullopt;
  const std::string& named = !head.bucket_region.empty() ? head.bucket_region : body.region;
  return is_region_name(named) ? named : std::string();
}

RegionRedirect follow_region(const RemoteEndpoint& endpoint, const RequestTarget& target,
                             const ResponseHead& head, const S3ErrorBody& body, bool head_request) {
  RegionRedirect redirect;
  if (target.bucket.empty()) return redirect;  // an http(s):// URL: no bucket, no region
  const auto region = answered_region(head, body, head_request);
  if (!region) return redirect;
  const std::string bucket = quoted(target.bucket);
  if (region->empty()) {
    redirect.note = " (S3 says bucket " + bucket + " is not in region " + quoted(target.region) +
                    " and names no region: set AWS_REGION to the bucket's)";
    return redirect;
  }
  if (!target.redirected_from.empty()) {
    redirect.note = " (bucket " + bucket + ": sent to region " + quoted(target.redirected_from) +
                    ", redirected by S3 to region " + quoted(target.region) +
                    ", and answered there that the bucket is in region " + quoted(*region) +
                    "; a request follows one redirect)";
    return redirect;
  }
  auto moved = endpoint.in_region(target, *region);
  if (moved.http_url == target.http_url && (!target.sign || *region == target.region)) {
    redirect.note = " (S3 says bucket " + bucket + " is in region " + quoted(*region) +
                    ", which does not change this request)";
    return redirect;
  }
  endpoint.learn_region(target.bucket, *region);
  redirect.resend = std::move(moved);
  return redirect;
}

}  // namespace feedrate::io
