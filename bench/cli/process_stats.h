// Figures about this process that the command line reports (its peak RSS is
// loader/host/system_info.h's peak_rss_bytes()). Thread-safety: reentrant.
#pragma once

namespace feedrate::bench {

// Resets the peak to the current RSS (writes 5 to /proc/self/clear_refs), so that the next
// peak_rss_bytes() covers only what follows; false where the kernel does not allow it. Heap
// memory freed earlier is first handed back to the kernel (malloc_trim), so that what an earlier
// Loader freed but the allocator kept does not count in the next peak.
bool reset_peak_rss();

}  // namespace feedrate::bench
