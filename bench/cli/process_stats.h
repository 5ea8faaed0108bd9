// Figures about this process that the command line reports. Thread-safety: reentrant.
#pragma once

#include <cstdint>

namespace feedrate::bench {

// Peak resident set size (VmHWM) in bytes; 0 when /proc is unavailable.
std::uint64_t peak_rss_bytes();
// Resets the peak to the current RSS (writes 5 to /proc/self/clear_refs), so that the next
// peak_rss_bytes() covers only what follows; false where the kernel does not allow it. Heap
// memory freed earlier is first handed back to the kernel (malloc_trim), so that what an earlier
// Loader freed but the allocator kept does not count in the next peak.
bool reset_peak_rss();

}  // namespace feedrate::bench
