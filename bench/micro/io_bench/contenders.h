// The contenders of feedrate-io-bench's measurements, each one run of a Job within the Setup's
// budget: feedrate's reader (io::Reader, batches of requests into reused page-aligned buffers,
// as the loader drives it), a single-threaded pread(2) loop over the same offsets into the
// same buffers, and fio with the same job (its io_uring engine).
// Thread-safety: reentrant; each run on the caller's thread.
#pragma once

#include <string>

#include "bench/micro/io_bench/job.h"

namespace feedrate::io_bench {

// feedrate's reader: batches through Reader::read until the budget is spent; `force_pread`
// picks the pread backend.
Run run_reader(const Setup& setup, const Job& job, bool force_pread);

// The baseline: one thread calling pread(2) over the same offsets into the same buffers.
Run run_pread_loop(const Setup& setup, const Job& job);

// fio with the same job, its JSON report parsed for read.bw_bytes; "fio missing" when
// setup.fio is empty.
Run run_fio(const Setup& setup, const Job& job);

// `fio --version`'s last line ("fio-3.33"), or "unknown version".
std::string fio_version(const std::string& fio);

}  // namespace feedrate::io_bench
