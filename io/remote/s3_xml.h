// The XML documents S3 answers with: an <Error> body (its Code, Message and Region; also inside the
// <ErrorResponse> of STS and the other query APIs, and moto's <ErrorResponse><Errors>) and a
// ListObjectsV2 page (<ListBucketResult>), parsed with pugixml. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace feedrate::io {

struct S3ErrorBody {
  std::string code;     // "NoSuchKey", "AccessDenied", "SlowDown", ...; empty when not S3 XML
  std::string message;  // the server's explanation, may be empty
  // The <Region> S3 adds to an AuthorizationHeaderMalformed (and other wrong-region errors): the
  // bucket's region; empty when absent.
  std::string region;
};
// Never throws: a body that is not such an error document gives empty fields.
S3ErrorBody parse_s3_error(std::string_view body);

struct ListedObject {
  std::string key;
  std::uint64_t size = 0;
  std::string etag;  // as S3 writes it, with its quotes (the form If-Match wants)
};

struct ListPage {
  std::vector<ListedObject> objects;
  bool truncated = false;
  std::string next_token;  // NextContinuationToken, when truncated
};
// Throws std::runtime_error for a body that is not a ListBucketResult, or one whose sizes are
// not numbers, or a truncated page without a continuation token.
ListPage parse_list_page(std::string_view body);

}  // namespace feedrate::io
