// The verdict's advice about the disk (the io resource) and the page cache: why the disk is
// slow (too many small reads for its seek rate, too many bytes for its bandwidth, too few reads
// in flight for its latency), what would lift it (blocks, a deeper queue, a faster disk class,
// the pack cache) and whether the dataset stays in page cache across epochs. Called by judge()
// (loader/diagnosis/verdict.h). Internal to loader/diagnosis/. Thread-safety: pure functions.
#pragma once

#include "feedrate/report.h"
#include "loader/diagnosis/measured.h"

namespace feedrate {

// Appends the findings and remedies of a disk that binds (or is the runner-up) to v.advice.
void disk_advice(const Measured& m, Verdict& v);
// Appends what the page cache does for the run, whatever binds; nothing when the memory
// this process may use is unknown.
void page_cache_advice(const Measured& m, Verdict& v);

}  // namespace feedrate
