// `feedrate doctor --dataset URL`: what the store behind a remote source gives this machine, by
// measurement: the time to first byte of small ranged GETs one after another, one connection's
// bandwidth (one large ranged GET), and the bandwidth of `connections` GETs in flight at once,
// on the source's own objects (the largest few; for a pack's index.json, the shards it lists).
// Bounded by `bytes` read in all.
//
// Errors: throws feedrate::Error naming the URL (and, for denied access, where the credentials
// came from; never the secret) when the source cannot be listed or read. A front-end header (its
// figures are `feedrate doctor`'s). Thread-safety: runs on the calling thread; reentrant.
#pragma once

#include <cstdint>
#include <string>

namespace feedrate {

struct StoreProbeOptions {
  unsigned latency_requests = 10;
  unsigned connections = 16;
  std::uint64_t bytes = std::uint64_t{128} << 20;
};

struct StoreProbe {
  std::string url;       // the object(s) measured: the source
  unsigned objects = 0;  // how many of its objects the probe read
  double first_byte_p50_ms = 0, first_byte_p99_ms = 0;
  double one_connection_mb_per_s = 0;
  double parallel_mb_per_s = 0;  // with `connections` GETs in flight
  unsigned connections = 0;
};

StoreProbe probe_store(const std::string& source, const StoreProbeOptions& options);

}  // namespace feedrate
