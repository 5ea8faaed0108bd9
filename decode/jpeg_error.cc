#include "decode/jpeg_error.h"

#include <jerror.h>

#include <cstdio>

namespace feedrate::decode {
namespace {

JpegErrors* errors_of(j_common_ptr cinfo) {
  // `manager` is the first member of the standard-layout JpegErrors.
  return reinterpret_cast<JpegErrors*>(cinfo->err);
}

[[noreturn]] void on_error(j_common_ptr cinfo) {
  JpegErrors* errors = errors_of(cinfo);
  cinfo->err->format_message(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

void on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  JpegErrors* errors = errors_of(cinfo);
  if (errors->warnings++ == 0) cinfo->err->format_message(cinfo, errors->first_warning);
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) errors->saw_eof = true;
}

}  // namespace

jpeg_error_mgr* JpegErrors::install() {
  jpeg_std_error(&manager);
  manager.error_exit = on_error;
  manager.emit_message = on_message;
  return &manager;
}

void JpegErrors::reset() {
  message[0] = '\0';
  first_warning[0] = '\0';
  warnings = 0;
  saw_eof = false;
}

void JpegErrors::fail(const char* text) {
  std::snprintf(message, sizeof(message), "%s", text);
  std::longjmp(jump, 1);
}

}  // namespace feedrate::decode
