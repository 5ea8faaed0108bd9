// Figures about this process that the command line reports. Thread-safety: reentrant.
#pragma once

#include <cstdint>

namespace feedrate::bench {

// Peak resident set size (VmHWM) in bytes; 0 when /proc is unavailable.
std::uint64_t peak_rss_bytes();

}  // namespace feedrate::bench
