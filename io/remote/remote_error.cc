#include "io/remote/remote_error.h"

#include <string>

namespace feedrate::io {
namespace {

class RemoteCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "feedrate.remote"; }
  std::string message(int code) const override {
    switch (static_cast<RemoteErrc>(code)) {
      case RemoteErrc::kInvalidUrl:
        return "invalid URL";
      case RemoteErrc::kNotFound:
        return "object not found";
      case RemoteErrc::kAccessDenied:
        return "access denied";
      case RemoteErrc::kObjectChanged:
        return "the object changed";
      case RemoteErrc::kRangeNotSatisfiable:
        return "range not satisfiable";
      case RemoteErrc::kHttpStatus:
        return "HTTP error status";
      case RemoteErrc::kTransfer:
        return "transfer failed";
      case RemoteErrc::kShortBody:
        return "body shorter than the range";
      case RemoteErrc::kBadResponse:
        return "response does not match the request";
      case RemoteErrc::kNotSupported:
        return "operation not supported for this URL";
      case RemoteErrc::kTooLarge:
        return "object larger than the limit";
    }
    return "unknown remote error";
  }
};

}  // namespace

const std::error_category& remote_category() {
  static const RemoteCategory category;
  return category;
}

std::error_code make_error_code(RemoteErrc code) {
  return {static_cast<int>(code), remote_category()};
}

}  // namespace feedrate::io
