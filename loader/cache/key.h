// The pack cache's key (loader/cache/pack_cache.h): the identity of a dataset's source, so that a
// cache written for one state of the source is never read for another. Internal to loader/.
//
// The key hashes the cache format's version, the dataset index's fingerprint
// (Dataset::index_hash: names, byte ranges, labels, classes) and, for every file the index
// reads, its absolute path, size and modification time (nanoseconds). Changing, adding,
// removing, moving or touching a file gives another key.
//
// Thread-safety: pure functions; source_key() stats the dataset's files.
#pragma once

#include <cstdint>
#include <string>

#include "feedrate/dataset.h"

namespace feedrate {

// 16 hex digits.
std::string source_key(const Dataset& dataset, std::uint32_t format_version);

// 16 hex digits naming the source itself (its absolute path), whatever its content: the caches
// of one source share this, and a new key retires the older caches of the same source.
std::string source_name_key(const std::string& source);

}  // namespace feedrate
