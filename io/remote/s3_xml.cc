#include "io/remote/s3_xml.h"

#include <charconv>
#include <pugixml.hpp>
#include <stdexcept>

namespace feedrate::io {
namespace {

bool load(pugi::xml_document& document, std::string_view body) {
  return static_cast<bool>(document.load_buffer(body.data(), body.size()));
}

}  // namespace

S3ErrorBody parse_s3_error(std::string_view body) {
  S3ErrorBody error;
  pugi::xml_document document;
  if (!load(document, body)) return error;
  // STS and the other query APIs wrap it: <ErrorResponse><Error>, moto's STS in
  // <ErrorResponse><Errors><Error>.
  auto root = document.child("Error");
  if (!root) root = document.child("ErrorResponse").child("Error");
  if (!root) root = document.child("ErrorResponse").child("Errors").child("Error");
  error.code = root.child_value("Code");
  error.message = root.child_value("Message");
  error.region = root.child_value("Region");
  return error;
}

ListPage parse_list_page(std::string_view body) {
  pugi::xml_document document;
  const auto parsed = document.load_buffer(body.data(), body.size());
  if (!parsed) {
    throw std::runtime_error(std::string("ListObjectsV2: the answer is not XML (") +
                             parsed.description() + ")");
  }
  const auto root = document.child("ListBucketResult");
  if (!root) throw std::runtime_error("ListObjectsV2: the answer has no <ListBucketResult>");
  ListPage page;
  page.truncated = std::string_view(root.child_value("IsTruncated")) == "true";
  page.next_token = root.child_value("NextContinuationToken");
  if (page.truncated && page.next_token.empty()) {
    throw std::runtime_error("ListObjectsV2: a truncated page without NextContinuationToken");
  }
  for (const auto contents : root.children("Contents")) {
    ListedObject object;
    object.key = contents.child_value("Key");
    object.etag = contents.child_value("ETag");
    const std::string_view size = contents.child_value("Size");
    const auto [end, error] = std::from_chars(size.data(), size.data() + size.size(), object.size);
    if (size.empty() || error != std::errc() || end != size.data() + size.size()) {
      throw std::runtime_error("ListObjectsV2: key '" + object.key + "' has size '" +
                               std::string(size) + "'");
    }
    page.objects.push_back(std::move(object));
  }
  return page;
}

}  // namespace feedrate::io
