// The file feedrate-io-bench reads: one given (--file), or a generated file of pseudo-random
// bytes under --dir, reused when it has the right size; and warming the page cache with it.
// Thread-safety: reentrant (two runs generating the same file at once race on its rename only).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "bench/micro/io_bench/job.h"

namespace feedrate::io_bench {

// `file` when given (*origin "given"), else dir/test-<size_mb>MiB.bin, reused ("reused") or
// written ("created", announced on stderr). Throws std::system_error when it cannot be written.
fs::path prepare_file(const std::string& file, const fs::path& dir, std::uint64_t size_mb,
                      std::string* origin);

// Reads the whole file once, buffered, so that buffered runs find it in the page cache.
// Returns the fraction of it resident afterwards (below 1 when memory is short).
double warm_page_cache(const Setup& setup);

}  // namespace feedrate::io_bench
