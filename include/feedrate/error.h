// The one error type of feedrate's public API. Everything the Loader cannot do (a bad option, a
// dataset that cannot be indexed, a sample that fails under the `error` policy, a consumer that
// holds every batch slot) throws feedrate::Error with a message that names the option or the
// file (and tar member) and says what is wrong.
#pragma once

#include <stdexcept>

#include "feedrate/export.h"

namespace feedrate {

class FEEDRATE_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace feedrate
