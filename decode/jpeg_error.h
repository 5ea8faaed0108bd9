// libjpeg's error manager, the one used by every libjpeg user of the tree (the decoder, the
// packer, the dataset generator's restart-interval encoder).
//
// libjpeg reports a fatal error through error_exit, which must not return, and throwing a C++
// exception through libjpeg's C frames is undefined: error_exit keeps the text in `message` and
// longjmps to `jump`, which the guarded call has set with setjmp. Code between that setjmp and a
// possible longjmp holds only trivially destructible locals, so the jump skips no destructor; what
// libjpeg writes to lives in the caller's objects (locals of the function that calls setjmp have
// indeterminate values after the longjmp). Warnings do not jump: they are counted, the first
// one's text is kept, and a premature end of data (JWRN_JPEG_EOF) is noted. Trace messages are
// dropped; nothing is printed.
//
// Thread-safety: one JpegErrors per codec object, used by one thread at a time.
#pragma once

#include <csetjmp>
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>

namespace feedrate::decode {

struct JpegErrors {
  jpeg_error_mgr manager{};  // first member: libjpeg's err pointer is this object's address
  std::jmp_buf jump{};
  char message[JMSG_LENGTH_MAX] = {};        // the fatal error
  char first_warning[JMSG_LENGTH_MAX] = {};  // the first warning since reset()
  int warnings = 0;
  bool saw_eof = false;  // a warning said the data ended early

  // Sets libjpeg's defaults with this object's callbacks; assign the result to each cinfo.err
  // (a compressor and a decompressor may share one JpegErrors).
  jpeg_error_mgr* install();
  // Clears the messages, the warning count and saw_eof before a new image.
  void reset();
  // Fails the guarded call from a libjpeg callback with `text` as the message.
  [[noreturn]] void fail(const char* text);
};

}  // namespace feedrate::decode
