#include "loader/pipeline/local_reads.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "io/chunk_plan.h"

namespace feedrate {

using detail::kNoRead;
using detail::Slot;

LocalReads::LocalReads(const Dataset& dataset, std::unique_ptr<io::Reader> reader,
                       std::string fallback, const io::ReaderOptions& options,
                       std::uint64_t tar_chunk_bytes, PackCache* cache)
    : dataset_(dataset),
      tar_chunk_bytes_(tar_chunk_bytes),
      reader_(std::move(reader)),
      fallback_reason_(std::move(fallback)),
      cache_(cache) {
  if (cache_ != nullptr) {
    io::ReaderOptions unthrottled = options;
    unthrottled.throttle = io::ThrottleSpec{};
    unthrottled.direct_io = false;  // the cache's segments are opened buffered
    cache_reader_ = io::Reader::create(unthrottled, nullptr);
  }
  // Opened through the reader, which applies O_DIRECT (before the I/O thread starts).
  if (dataset_.files_are_shared()) shared_files_ = open_shards(dataset_, *reader_);
}

void LocalReads::read(Slot& slot) {
  while (!read_once(slot)) {
  }
  if (cache_ != nullptr) {
    const auto hits = static_cast<std::uint64_t>(
        std::count(slot.from_cache.begin(), slot.from_cache.begin() + slot.count, std::uint8_t{1}));
    cache_->count(hits, slot.count - hits);
  }
  for (io::File& file : slot.files) file = io::File();
}

bool LocalReads::read_once(Slot& slot) {
  const std::size_t n = slot.count;
  slot.reads.clear();
  read_sizes_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t index = slot.indices[i];
    const PackCacheStore::Entry* entry = cache_ != nullptr ? cache_->find(index) : nullptr;
    slot.errors[i].clear();
    slot.encoded_offset[i] = 0;
    slot.read_of_sample[i] = kNoRead;
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

void LocalReads::add_read(Slot& slot, int fd, std::uint64_t offset, std::uint64_t size) {
  io::ReadRequest request;
  request.fd = fd;
  request.offset = offset;
  slot.reads.push_back(request);
  read_sizes_.push_back(size);
}

void LocalReads::plan_files(Slot& slot) {
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
void LocalReads::plan_chunks(Slot& slot) {
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

void LocalReads::plan_cached(Slot& slot) {
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) continue;
    const PackCacheStore::Entry& entry = *cache_->find(slot.indices[i]);
    slot.read_of_sample[i] = slot.reads.size();
    add_read(slot, cache_->fd(entry), entry.offset, entry.size);
  }
}

void LocalReads::lay_out(Slot& slot) {
  const std::uint64_t total =
      std::accumulate(read_sizes_.begin(), read_sizes_.end(), std::uint64_t{0});
  reserve_encoded(slot, total);
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

bool LocalReads::check_results(Slot& slot) {
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
    if (failed) slot.errors[i] = read_failure(dataset_, slot.indices[i], request);
  }
  return cache_ok;
}

}  // namespace feedrate
