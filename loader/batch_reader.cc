#include "loader/batch_reader.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "io/chunk_plan.h"
#include "loader/error.h"

namespace feedrate {

using detail::kNoRead;
using detail::Slot;

BatchReader::BatchReader(const Dataset& dataset, const io::ReaderOptions& options,
                         std::uint64_t tar_chunk_bytes, const ReaderFactory& make_reader,
                         std::vector<std::uint32_t> block_starts)
    : dataset_(dataset), tar_chunk_bytes_(tar_chunk_bytes), block_starts_(std::move(block_starts)) {
  held_.resize(block_starts_.size());
  reader_ = make_reader ? make_reader(options, &fallback_reason_)
                        : io::Reader::create(options, &fallback_reason_);
  if (!dataset_.files_are_shared()) return;
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
  slot.errors.assign(n, std::string());
  slot.skipped.clear();
  slot.encoded_offset.assign(n, 0);
  slot.read_of_sample.assign(n, kNoRead);
  slot.files.resize(n);
  slot.reads.clear();
  read_sizes_.clear();
  for (std::size_t i = 0; i < n; ++i) slot.labels[i] = dataset_.sample(slot.indices[i]).label;

  if (!block_starts_.empty()) {
    read_blocks(slot);
    return;
  }
  if (dataset_.files_are_shared() && tar_chunk_bytes_ > 0) {
    plan_chunks(slot);
  } else {
    plan_files(slot);
  }
  lay_out(slot);
  reader_->read(slot.reads);
  check_results(slot);
  for (io::File& file : slot.files) file = io::File();
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
  by_position_.resize(slot.count);
  std::iota(by_position_.begin(), by_position_.end(), std::size_t{0});
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

void BatchReader::check_results(Slot& slot) {
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (slot.read_of_sample[i] == kNoRead) continue;  // could not open: already an error
    const io::ReadRequest& request = slot.reads[slot.read_of_sample[i]];
    const auto read_start = static_cast<std::size_t>(request.dest.data() - slot.encoded.data());
    const std::uint64_t end_in_read =
        slot.encoded_offset[i] - read_start + dataset_.sample(slot.indices[i]).size;
    if (!request.error || end_in_read <= request.bytes_read) continue;
    slot.errors[i] = read_failure(slot.indices[i], request);
  }
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

void BatchReader::start_epoch(const std::vector<std::uint32_t>& order) {
  if (block_starts_.empty()) return;
  for (std::size_t b = 0; b < held_.size(); ++b) release(b);
  uses_left_.assign(block_starts_.size(), 0);
  for (const std::uint32_t index : order) ++uses_left_[block_of(index)];
}

std::size_t BatchReader::block_of(std::uint32_t index) const {
  return static_cast<std::size_t>(
      std::upper_bound(block_starts_.begin(), block_starts_.end(), index) - block_starts_.begin() -
      1);
}

void BatchReader::release(std::size_t block) {
  if (held_[block].empty()) return;
  spare_.push_back(std::exchange(held_[block], {}));
}

void BatchReader::read_blocks(Slot& slot) {
  block_reads_.clear();
  block_of_read_.clear();
  for (std::size_t i = 0; i < slot.count; ++i) {
    const std::size_t block = block_of(slot.indices[i]);
    const std::uint32_t first = block_starts_[block];
    const std::uint32_t last = block + 1 < block_starts_.size()
                                   ? block_starts_[block + 1] - 1
                                   : static_cast<std::uint32_t>(dataset_.size() - 1);
    const SampleRef& begin = dataset_.sample(first);
    std::uint64_t end = begin.offset;
    for (std::uint32_t k = first; k <= last; ++k) {
      end = std::max(end, dataset_.sample(k).offset + dataset_.sample(k).size);
    }
    const std::uint64_t span = end - begin.offset;
    // Held, or read by this batch already (a block of empty members needs no read).
    if (!held_[block].empty() || span == 0) continue;
    std::vector<std::byte> buffer;
    if (!spare_.empty()) {
      buffer = std::move(spare_.back());
      spare_.pop_back();
    }
    buffer.resize(static_cast<std::size_t>(span));
    held_[block] = std::move(buffer);
    io::ReadRequest request;
    request.fd = shared_files_[begin.file].fd();
    request.offset = begin.offset;
    request.dest = held_[block];
    block_reads_.push_back(request);
    block_of_read_.push_back(block);
  }
  reader_->read(block_reads_);

  std::size_t total = 0;
  for (std::size_t i = 0; i < slot.count; ++i) total += dataset_.sample(slot.indices[i]).size;
  if (slot.encoded.size() < total) slot.encoded = gpu::HostBuffer(total + total / 4);
  std::size_t at = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    const std::uint32_t index = slot.indices[i];
    const SampleRef& ref = dataset_.sample(index);
    const std::size_t block = block_of(index);
    const std::uint64_t start = ref.offset - dataset_.sample(block_starts_[block]).offset;
    const auto read = std::find(block_of_read_.begin(), block_of_read_.end(), block);
    if (read != block_of_read_.end()) {
      const io::ReadRequest& request = block_reads_[read - block_of_read_.begin()];
      if (request.error && start + ref.size > request.bytes_read) {
        slot.errors[i] = read_failure(index, request);
      }
    }
    if (slot.errors[i].empty() && ref.size > 0) {
      std::memcpy(slot.encoded.data() + at, held_[block].data() + start, ref.size);
      slot.encoded_offset[i] = at;
      at += ref.size;
    }
    if (uses_left_[block] > 0 && --uses_left_[block] == 0) release(block);
  }
  // A block that failed is read again when a later batch needs it.
  for (std::size_t r = 0; r < block_reads_.size(); ++r) {
    if (block_reads_[r].error) release(block_of_read_[r]);
  }
}

}  // namespace feedrate
