#include "io/read_error.h"

#include <string>

namespace feedrate::io {
namespace {

class ReadCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "feedrate.io"; }
  std::string message(int code) const override {
    return code == static_cast<int>(ReadErrc::kUnexpectedEof) ? "unexpected end of file"
                                                              : "unknown read error";
  }
};

}  // namespace

const std::error_category& read_category() {
  static const ReadCategory category;
  return category;
}

std::error_code make_error_code(ReadErrc code) {
  return {static_cast<int>(code), read_category()};
}

}  // namespace feedrate::io
