// Owning handles for libcurl's easy and multi handles and header lists, the one-time global
// initialisation libcurl needs before its first handle, and a bounded in-memory body sink.
// Thread-safety: a handle belongs to one thread at a time, as libcurl requires; new_easy() and
// new_multi() may be called from any.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <string>

namespace feedrate::io {

// Defined in the .cc, so that code holding these handles needs no libcurl of its own to link.
struct CurlEasyDelete {
  void operator()(CURL* easy) const;
};
struct CurlMultiDelete {
  void operator()(CURLM* multi) const;
};
struct CurlListDelete {
  void operator()(curl_slist* list) const;
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDelete>;
using CurlMulti = std::unique_ptr<CURLM, CurlMultiDelete>;
using CurlList = std::unique_ptr<curl_slist, CurlListDelete>;

// Throw std::runtime_error when libcurl cannot give a handle.
CurlEasy new_easy();
CurlMulti new_multi();

// Appends `line` to `list`; throws std::bad_alloc when libcurl cannot.
void append_header(CurlList& list, const char* line);

// A response body collected into *body, at most `limit` bytes: a longer one ends the transfer
// (CURLE_WRITE_ERROR) with too_large set. Give collect_bounded as CURLOPT_WRITEFUNCTION and the
// BoundedBody as CURLOPT_WRITEDATA.
struct BoundedBody {
  std::string* body;
  std::size_t limit;
  bool too_large = false;
};
std::size_t collect_bounded(char* data, std::size_t size, std::size_t count, void* bounded_body);

}  // namespace feedrate::io
