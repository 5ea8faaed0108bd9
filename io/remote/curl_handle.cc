#include "io/remote/curl_handle.h"

#include <new>
#include <stdexcept>
#include <string>

namespace feedrate::io {
namespace {

// curl_global_init is not thread-safe in every libcurl build; a function-local static runs it
// exactly once, before the first handle. Its cleanup is left to process exit.
void global_init() {
  static const CURLcode result = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (result != CURLE_OK) {
    throw std::runtime_error(std::string("curl_global_init failed: ") + curl_easy_strerror(result));
  }
}

}  // namespace

void CurlEasyDelete::operator()(CURL* easy) const {
  curl_easy_cleanup(easy);
}
void CurlMultiDelete::operator()(CURLM* multi) const {
  curl_multi_cleanup(multi);
}
void CurlListDelete::operator()(curl_slist* list) const {
  curl_slist_free_all(list);
}

CurlEasy new_easy() {
  global_init();
  CurlEasy easy(curl_easy_init());
  if (!easy) throw std::runtime_error("curl_easy_init failed");
  return easy;
}

CurlMulti new_multi() {
  global_init();
  CurlMulti multi(curl_multi_init());
  if (!multi) throw std::runtime_error("curl_multi_init failed");
  return multi;
}

std::size_t collect_bounded(char* data, std::size_t size, std::size_t count, void* bounded_body) {
  auto* sink = static_cast<BoundedBody*>(bounded_body);
  const std::size_t bytes = size * count;
  if (sink->body->size() + bytes > sink->limit) {
    sink->too_large = true;
    return 0;  // aborts the transfer
  }
  sink->body->append(data, bytes);
  return bytes;
}

void append_header(CurlList& list, const char* line) {
  curl_slist* grown = curl_slist_append(list.get(), line);
  if (grown == nullptr) throw std::bad_alloc();
  list.release();
  list.reset(grown);
}

}  // namespace feedrate::io
