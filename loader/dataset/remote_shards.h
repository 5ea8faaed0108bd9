// The one pass that indexes remote tar shards: a tar shard has no central directory, so each
// shard is streamed once, whole, in ranged GETs that keep many requests in flight across shards
// (a store answers after tens of milliseconds; one request at a time would cost that per
// range), into an anonymous in-memory file that the tar indexer then reads like a local shard.
// At most a few shards are held at once. On a terminal, a progress line on stderr shows the
// pass (shards, bytes, MB/s); it costs no more than reading the bytes.
//
// Errors: throws feedrate::Error with the fetcher's message (the URL, the status and, for denied
// access, where the credentials came from) when a shard cannot be read after the retries.
// Thread-safety: runs on the calling thread; `index` is called there, in shard order.
#pragma once

#include <functional>
#include <vector>

#include "io/remote/object_store.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {

// Calls index(shard, fd) for each shard in order, with `fd` open on the shard's bytes (valid
// only during the call).
void index_remote_shards(const RemoteSettings& settings, const std::vector<io::ObjectInfo>& shards,
                         const std::function<void(const io::ObjectInfo&, int fd)>& index);

}  // namespace feedrate
