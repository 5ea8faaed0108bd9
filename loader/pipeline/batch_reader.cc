#include "loader/pipeline/batch_reader.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <utility>

#include "feedrate/error.h"
#include "io/chunk_plan.h"

namespace feedrate {

using detail::kNoRead;
using detail::Slot;

BatchReader::BatchReader(const Dataset& dataset, const io::ReaderOptions& options,
                         std::uint64_t tar_chunk_bytes, const ReaderFactory& make_reader,
                         std::unique_ptr<BlockStore> blocks, PackCache* cache,
                         std::unique_ptr<RemoteWindow> remote, RemoteMirror* mirror)
    : dataset_(dataset),
      tar_chunk_bytes_(tar_chunk_bytes),
      cache_(cache),
      blocks_(std::move(blocks)),
      remote_(std::move(remote)),
      mirror_(mirror) {
  if (remote_) {
    const unsigned requests = remote_->settings().fetch.max_in_flight;
    remote_stats_.backend_description =
        "libcurl, " + std::to_string(requests) + " requests in flight (up to " +
        std::to_string(std::min(2 * requests, InFlightGrowth::kMostRequests)) +
        " for a slow store)" + (mirror_ != nullptr ? ", local-disk cache" : "");
  }
  reader_ = make_reader ? make_reader(options, &fallback_reason_)
                        : io::Reader::create(options, &fallback_reason_);
  if (cache_ != nullptr && !blocks_) {
    io::ReaderOptions unthrottled = options;
    unthrottled.throttle = io::ThrottleSpec{};
    unthrottled.direct_io = false;  // the cache's segments are opened buffered
    cache_reader_ = io::Reader::create(unthrottled, nullptr);
  }
  if (!dataset_.files_are_shared() || remote_) return;
  // Opened through the reader, which applies O_DIRECT (before the I/O thread starts).
  for (const auto& path : dataset_.files()) {
    std::error_code error;
    shared_files_.push_back(reader_->open(path, error));
    if (error) throw Error(path.string() + ": cannot open: " + error.message());
  }
}

void BatchReader::read(Slot& slot) {
  const std::size_t n = slot.count;
  slot.labels.resize(n);
  slot.skipped.clear();
  slot.files.resize(n);
  for (std::size_t i = 0; i < n; ++i) slot.labels[i] = dataset_.sample(slot.indices[i]).label;

  if (remote_) {
    read_remote(slot);
    return;
  }
  if (blocks_) {
    slot.errors.assign(n, std::string());
    slot.encoded_offset.assign(n, 0);
    slot.from_cache.assign(n, 0);
    slot.encoded_size.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      slot.encoded_size[i] = dataset_.sample(slot.indices[i]).size;
    slot.read_of_sample.assign(n, kNoRead);
    slot.reads.clear();
    read_blocks(slot);
    if (cache_ != nullptr) cache_->count(0, n);
    return;
  }
  while (!read_once(slot)) {
  }
  if (cache_ != nullptr) {
    const auto hits = static_cast<std::uint64_t>(
        std::count(slot.from_cache.begin(), slot.from_cache.begin() + n, std::uint8_t{1}));
    cache_->count(hits, n - hits);
  }
  for (io::File& file : slot.files) file = io::File();
}

bool BatchReader::read_once(Slot& slot) {
  const std::size_t n = slot.count;
  slot.errors.assign(n, std::string());
  slot.encoded_offset.assign(n, 0);
  slot.read_of_sample.assign(n, kNoRead);
  slot.encoded_size.resize(n);
  slot.from_cache.assign(n, 0);
  slot.reads.clear();
  read_sizes_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t index = slot.indices[i];
    const PackCacheStore::Entry* entry = cache_ != nullptr ? cache_->find(index) : nullptr;
    slot.from_cache[i] = entry != nullptr ? 1 : 0;
    slot.encoded_size[i] = entry != nullptr ? entry->size : dataset_.sample(index).size;
  }

  if (dataset_.files_are_shared() && tar_chunk_bytes_ > 0) {
    plan_chunks(slot);
  } else {
    plan_files(slot);
  }
  const std::size_t source_reads = slot.reads.size();
  plan_cached(slot);
  lay_out(slot);
  const std::span<io::ReadRequest> reads(slot.reads);
  reader_->read(reads.first(source_reads));
  if (slot.reads.size() > source_reads) cache_reader_->read(reads.subspan(source_reads));
  return check_results(slot);
}

void BatchReader::add_read(Slot& slot, int fd, std::uint64_t offset, std::uint64_t size) {
  io::ReadRequest request;
  request.fd = fd;
  request.offset = offset;
  slot.reads.push_back(request);
  read_sizes_.push_back(size);
}

void BatchReader::plan_files(Slot& slot) {
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (slot.from_cache[i]) continue;
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    int fd = -1;
    if (dataset_.files_are_shared()) {
      fd = shared_files_[ref.file].fd();
    } else {
      std::error_code error;
      slot.files[i] = reader_->open(dataset_.files()[ref.file], error);
      if (error) {
        slot.errors[i] = dataset_.describe(slot.indices[i]) + ": cannot open: " + error.message();
        continue;
      }
      fd = slot.files[i].fd();
    }
    slot.read_of_sample[i] = slot.reads.size();
    add_read(slot, fd, ref.offset, ref.size);
  }
}

void BatchReader::plan_chunks(Slot& slot) {
  // Sorted by position in the shards, members close together become one chunk.
  by_position_.clear();
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) by_position_.push_back(i);
  }
  const auto ref = [&](std::size_t i) -> const SampleRef& {
    return dataset_.sample(slot.indices[i]);
  };
  std::sort(by_position_.begin(), by_position_.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(ref(a).file, ref(a).offset) < std::pair(ref(b).file, ref(b).offset);
  });
  io::ChunkPlanner planner;
  planner.chunk_bytes = tar_chunk_bytes_;
  std::vector<io::ByteRange> ranges;
  for (std::size_t begin = 0; begin < by_position_.size();) {
    const std::uint32_t file = ref(by_position_[begin]).file;
    std::size_t end = begin;
    ranges.clear();
    while (end < by_position_.size() && ref(by_position_[end]).file == file) {
      ranges.push_back({ref(by_position_[end]).offset, ref(by_position_[end]).size});
      ++end;
    }
    const io::ChunkPlan plan = planner.plan(ranges);
    const std::size_t first_read = slot.reads.size();
    for (const io::ByteRange& chunk : plan.chunks) {
      add_read(slot, shared_files_[file].fd(), chunk.offset, chunk.size);
    }
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      const std::size_t sample = by_position_[begin + k];
      slot.read_of_sample[sample] = first_read + plan.slices[k].chunk;
      slot.encoded_offset[sample] = static_cast<std::size_t>(plan.slices[k].offset);
    }
    begin = end;
  }
}

void BatchReader::plan_cached(Slot& slot) {
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) continue;
    const PackCacheStore::Entry& entry = *cache_->find(slot.indices[i]);
    slot.read_of_sample[i] = slot.reads.size();
    add_read(slot, cache_->fd(entry), entry.offset, entry.size);
  }
}

void BatchReader::lay_out(Slot& slot) {
  const std::uint64_t total =
      std::accumulate(read_sizes_.begin(), read_sizes_.end(), std::uint64_t{0});
  // A quarter more than needed, so that batches of slightly larger images reuse the buffer.
  if (slot.encoded.size() < total) slot.encoded = gpu::HostBuffer(total + total / 4);
  std::size_t at = 0;
  for (std::size_t r = 0; r < slot.reads.size(); ++r) {
    slot.reads[r].dest = {slot.encoded.data() + at, static_cast<std::size_t>(read_sizes_[r])};
    at += static_cast<std::size_t>(read_sizes_[r]);
  }
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (slot.read_of_sample[i] == kNoRead) continue;
    const std::byte* start = slot.reads[slot.read_of_sample[i]].dest.data();
    slot.encoded_offset[i] += static_cast<std::size_t>(start - slot.encoded.data());
  }
}

bool BatchReader::check_results(Slot& slot) {
  bool cache_ok = true;
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (slot.read_of_sample[i] == kNoRead) continue;  // could not open: already an error
    const io::ReadRequest& request = slot.reads[slot.read_of_sample[i]];
    const auto read_start = static_cast<std::size_t>(request.dest.data() - slot.encoded.data());
    const std::uint64_t end_in_read = slot.encoded_offset[i] - read_start + slot.encoded_size[i];
    const bool failed = request.error && end_in_read > request.bytes_read;
    if (slot.from_cache[i]) {
      const std::span<const std::uint8_t> bytes(
          reinterpret_cast<const std::uint8_t*>(slot.encoded.data() + slot.encoded_offset[i]),
          slot.encoded_size[i]);
      if (!cache_->verify(slot.indices[i], bytes, failed ? request.error.message() : "")) {
        cache_ok = false;
      }
      continue;
    }
    if (failed) slot.errors[i] = read_failure(slot.indices[i], request);
  }
  return cache_ok;
}

std::string BatchReader::read_failure(std::uint32_t index, const io::ReadRequest& request) const {
  const bool short_file = request.error == io::ReadErrc::kUnexpectedEof;
  return dataset_.describe(index) + ": read failed at byte " +
         std::to_string(request.offset + request.bytes_read) + ": " +
         (short_file
              ? "unexpected end of file after " + std::to_string(request.bytes_read) + " of " +
                    std::to_string(request.dest.size()) + " bytes (file changed since indexing?)"
              : request.error.message());
}

void BatchReader::start_epoch(const std::vector<std::uint32_t>& order,
                              const std::vector<std::uint32_t>& units, std::size_t taken,
                              std::vector<std::uint32_t> next) {
  if (blocks_) blocks_->start_epoch(order, units);
  if (mirror_ != nullptr) mirror_->refresh();
  if (remote_) {
    const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(taken, order.size()));
    remote_->start_epoch(std::vector<std::uint32_t>(order.begin(), end), std::move(next));
  }
}

void BatchReader::read_remote(Slot& slot) {
  const std::size_t n = slot.count;
  slot.errors.assign(n, std::string());
  slot.encoded_offset.assign(n, 0);
  slot.from_cache.assign(n, 0);
  slot.read_of_sample.assign(n, kNoRead);
  slot.reads.clear();
  slot.encoded_size.resize(n);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    slot.encoded_size[i] = dataset_.sample(slot.indices[i]).size;
    total += slot.encoded_size[i];
  }
  if (slot.encoded.size() < total) slot.encoded = gpu::HostBuffer(total + total / 4);
  std::size_t at = 0;
  remote_->take(n, [&](const RemoteWindow::Sample& sample) {
    const std::size_t i = sample.position;
    if (sample.index != slot.indices[i]) {
      throw Error("internal: the remote read-ahead is out of step with the epoch's order");
    }
    slot.encoded_offset[i] = at;
    at += static_cast<std::size_t>(slot.encoded_size[i]);
    if (sample.local) {
      slot.from_cache[i] = 1;
    } else if (!sample.error.empty()) {
      slot.errors[i] = sample.error;
    } else if (!sample.bytes.empty()) {
      std::memcpy(slot.encoded.data() + slot.encoded_offset[i], sample.bytes.data(),
                  sample.bytes.size());
    }
  });
  if (mirror_ != nullptr) read_mirrored(slot);
  std::uint64_t hits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (slot.errors[i].empty()) remote_stats_.bytes += slot.encoded_size[i];
    hits += slot.from_cache[i];
  }
  if (mirror_ != nullptr) mirror_->count(hits, n - hits);
  remote_stats_.operations += n;
  const io::FetchStats fetched = remote_->stats();
  remote_stats_.latency_p50_us = fetched.first_byte_p50_ms * 1e3;
  remote_stats_.latency_p99_us = fetched.first_byte_p99_ms * 1e3;
  remote_stats_.average_in_flight = fetched.average_in_flight;
  remote_stats_.peak_in_flight = std::max(remote_stats_.peak_in_flight, fetched.peak_in_flight);
  remote_stats_.retries = fetched.retries_total();
  remote_stats_.failed = fetched.failed;
}

void BatchReader::read_mirrored(Slot& slot) {
  const auto dest = [&](std::size_t i) {
    return std::span<std::byte>(slot.encoded.data() + slot.encoded_offset[i],
                                static_cast<std::size_t>(slot.encoded_size[i]));
  };
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) continue;
    io::ReadRequest request;
    request.fd = mirror_->fd(dataset_.sample(slot.indices[i]).file);
    request.offset = dataset_.sample(slot.indices[i]).offset;
    request.dest = dest(i);
    slot.read_of_sample[i] = slot.reads.size();
    slot.reads.push_back(request);
  }
  if (slot.reads.empty()) return;
  reader_->read(slot.reads);
  // Only the samples whose copy reads badly are fetched again from the store.
  std::vector<std::size_t> again;
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) continue;
    const io::ReadRequest& request = slot.reads[slot.read_of_sample[i]];
    slot.read_of_sample[i] = kNoRead;
    if (request.error || !mirror_->verify(slot.indices[i], dest(i))) {
      mirror_->forget(slot.indices[i]);
      slot.from_cache[i] = 0;
      again.push_back(i);
    }
  }
  slot.reads.clear();
  if (again.empty()) return;
  if (!refetch_)
    refetch_ =
        std::make_unique<io::RangeFetcher>(remote_->settings().s3, remote_->settings().fetch);
  for (const std::size_t i : again) {
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    io::FetchRequest request;
    request.url = dataset_.files()[ref.file].string();
    request.offset = ref.offset;
    request.dest = dest(i);
    request.tag = i;
    request.if_match = dataset_.etag(ref.file);
    refetch_->submit(std::move(request));
  }
  std::vector<io::FetchResult> done;
  while (refetch_->pending() > 0) refetch_->poll(std::chrono::milliseconds(100), done);
  for (const io::FetchResult& result : done) {
    const std::size_t i = result.tag;
    if (result.error) {
      slot.errors[i] = dataset_.describe(slot.indices[i]) + ": " + result.message;
    } else {
      mirror_->store(slot.indices[i], dest(i));
    }
  }
}

bool BatchReader::read_ahead(std::size_t blocks) {
  if (!blocks_) return false;
  block_reads_.clear();
  blocks_->plan_ahead(shared_files_, block_reads_, blocks);
  if (block_reads_.empty()) return false;
  reader_->read(block_reads_);
  blocks_->finish_batch(block_reads_);
  return true;
}

void BatchReader::read_blocks(Slot& slot) {
  block_reads_.clear();
  const std::span<const std::uint32_t> indices(slot.indices.data(), slot.count);
  blocks_->plan(indices, shared_files_, block_reads_);
  reader_->read(block_reads_);

  std::size_t total = 0;
  for (const std::uint32_t index : indices) total += dataset_.sample(index).size;
  if (slot.encoded.size() < total) slot.encoded = gpu::HostBuffer(total + total / 4);
  std::size_t at = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    const std::uint32_t index = slot.indices[i];
    const std::uint64_t size = dataset_.sample(index).size;
    const BlockStore::Found found = blocks_->find(index, block_reads_);
    if (found.failed != nullptr) {
      slot.errors[i] = read_failure(index, *found.failed);
    } else if (size > 0) {
      std::memcpy(slot.encoded.data() + at, found.bytes, size);
      slot.encoded_offset[i] = at;
      at += size;
    }
    blocks_->used(index);
  }
  blocks_->finish_batch(block_reads_);
}

}  // namespace feedrate
