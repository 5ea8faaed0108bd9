// Following S3's answer to a request sent to the wrong region, as botocore's S3RegionRedirectorv2
// (botocore/utils.py, redirect_from_error and get_bucket_region) does. An answer says the
// bucket is elsewhere when it is
//   * a 301, 302 or 307 (S3's PermanentRedirect and TemporaryRedirect),
//   * an error whose Code is PermanentRedirect or IllegalLocationConstraintException (a bucket
//     in an opt-in region), or AuthorizationHeaderMalformed with a <Region> (the request was
//     signed for another region),
//   * a 301 or 400 to a HEAD, which has no body to say more;
// and the bucket's region is its x-amz-bucket-region header, else its error's <Region>, if that
// is a region name (is_region_name). Then the region is kept for the bucket (BucketRegions, so
// that every later request of the settings goes straight there), and the same request is signed
// for it and sent again at once: on AWS to the region's host, under a custom endpoint to the
// same endpoint (io/remote/endpoint.h). That is done once per request: a request already
// redirected that is answered so again fails, naming the bucket, the region it was first sent
// to, the one it was sent on to and the one the second answer names. So does an answer that
// names no region (botocore would then HEAD the bucket for its x-amz-bucket-region; feedrate
// does not), and one whose request would go out unchanged (an unsigned request to a custom
// endpoint: its region changes nothing).
// Messages hold bucket and region names, never a secret. Thread-safety: as the endpoint's.
#pragma once

#include <optional>
#include <string>

#include "io/remote/endpoint.h"
#include "io/remote/http_response.h"
#include "io/remote/s3_xml.h"

namespace feedrate::io {

// The bucket's region by an answer that says the request went to the wrong one: nullopt when the
// answer does not say so, an empty string when it does without naming a (valid) region.
// `head_request`: the request was a HEAD.
std::optional<std::string> answered_region(const ResponseHead& head, const S3ErrorBody& body,
                                           bool head_request);

struct RegionRedirect {
  std::optional<RequestTarget> resend;  // the request for the bucket's region, to send now
  std::string note;  // not resent after a wrong-region answer: why, to add to the failure's message
};

// What to do with a failed (non-2xx, not retried) answer to `target`: resend it (the region then
// kept for the bucket), or fail with the note (empty for an answer that is not about the region).
RegionRedirect follow_region(const RemoteEndpoint& endpoint, const RequestTarget& target,
                             const ResponseHead& head, const S3ErrorBody& body, bool head_request);

}  // namespace feedrate::io
