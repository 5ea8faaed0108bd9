// Fuzzes LoaderState::from_json: any input is a state or a feedrate::Error, never a crash or a
// hang; a state that parses serialises back to text that parses to the same state.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "feedrate/error.h"
#include "feedrate/loader_state.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  feedrate::LoaderState state;
  try {
    state = feedrate::LoaderState::from_json(text);
  } catch (const feedrate::Error&) {
    return 0;
  }
  if (!(feedrate::LoaderState::from_json(state.to_json()) == state)) std::abort();
  return 0;
}
