// Reads through O_DIRECT descriptors for callers that give ordinary byte ranges and buffers.
//
// O_DIRECT needs the file offset, the length and the memory address aligned (to what the file
// system and device say, discovered here rather than assumed). A request [offset, offset + n)
// on such a descriptor is read as aligned pieces covering it, each into a reader-owned bounce
// buffer, and the request's bytes are copied out of the piece into its destination.
//
// Where the file system refuses O_DIRECT (no alignment reported, or EINVAL from a read), the
// descriptor is switched to buffered reads with fcntl and the fallback is counted in ReadStats.
//
// Thread-safety: direct_alignment, next_piece and take_from_piece are pure or touch only their
// arguments. BounceBuffers and DirectReads belong to one Reader and to its thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "io/reader.h"

namespace feedrate::io {

// In bytes; zero `offset` means the descriptor cannot be read with O_DIRECT.
struct DirectAlignment {
  std::size_t memory = 0;
  std::size_t offset = 0;
};

// Asks, in order: statx(STATX_DIOALIGN) (Linux 6.1+; authoritative, including "unsupported"),
// the device's logical block size (ioctl BLKSSZGET on /dev/block/MAJOR:MINOR), the file
// system's block size (fstatvfs f_bsize, a multiple of the logical block size), then 4096.
DirectAlignment direct_alignment(int fd);

// One aligned read from the file.
struct Piece {
  std::uint64_t offset = 0;
  std::size_t length = 0;
};

// The aligned read that continues `request` after its bytes_read: from the alignment boundary
// at or before the next wanted byte to the boundary at or after the range's end, limited to
// `max_length` (a multiple of `alignment`, a power of two).
Piece next_piece(const ReadRequest& request, std::size_t alignment, std::size_t max_length);

// Copies what `data` (the bytes a piece read at `piece_offset` returned) holds of the rest of
// `request` into its destination and advances bytes_read. Returns the bytes added; zero when
// the data ends before the request's next byte (the file is shorter than the range).
std::size_t take_from_piece(ReadRequest& request, std::uint64_t piece_offset,
                            std::span<const std::byte> data);

// `slots` equal buffers in one allocation, aligned for O_DIRECT; grown, never shrunk, and
// reused across batches. The allocation is capped so that deep queues stay affordable:
// requests longer than a slot are read in several pieces.
class BounceBuffers {
 public:
  // Bytes of bounce memory at most, all slots together (unless one aligned block per slot
  // needs more).
  static constexpr std::size_t kMaxTotalBytes = std::size_t{64} << 20;

  // Makes every slot at least `bytes` long (capped as above), rounded up to a multiple of
  // `alignment` (a power of two, at least 4096), with slot addresses aligned to it. Returns
  // whether the memory was reallocated (fixed buffers must then be registered again). Throws
  // std::bad_alloc when memory is exhausted.
  bool reserve(std::size_t slots, std::size_t bytes, std::size_t alignment);

  std::byte* slot(std::size_t index) const { return memory_.get() + index * slot_size_; }
  std::size_t slot_size() const { return slot_size_; }
  std::size_t total_size() const { return slots_ * slot_size_; }
  std::byte* data() const { return memory_.get(); }

 private:
  struct Free {
    void operator()(std::byte* memory) const { std::free(memory); }
  };
  std::unique_ptr<std::byte, Free> memory_;
  std::size_t slots_ = 0;
  std::size_t slot_size_ = 0;
  std::size_t alignment_ = 0;
};

// Which descriptors of a batch are O_DIRECT, with their alignment: looked up once per distinct
// descriptor and batch (descriptors may be closed and their numbers reused between batches).
class DirectReads {
 public:
  // Looks up the descriptors of `requests`. Descriptors whose file system reports no direct
  // I/O support are switched to buffered reads here (a fallback in `stats`).
  void begin_batch(std::span<const ReadRequest> requests, ReadStats& stats);

  // The alignment to read request `index` of the batch with (offsets, lengths and addresses
  // alike: the larger of the two that direct_alignment reports); zero for a buffered read.
  std::size_t alignment(std::size_t index) const {
    return descriptors_[descriptor_of_[index]].alignment;
  }
  // The largest alignment, and the longest aligned read any request needs, in this batch.
  std::size_t largest_alignment() const { return largest_alignment_; }
  std::size_t longest_piece() const { return longest_piece_; }
  // The alignment of bounce buffers for this batch: the largest alignment, at least a page.
  std::size_t bounce_alignment() const { return std::max<std::size_t>(4096, largest_alignment_); }

  // The file system refused an O_DIRECT read of request `index` (EINVAL): its descriptor is
  // read buffered from now on. The first refusal per descriptor counts as a fallback in `stats`.
  // Returns the error when O_DIRECT cannot be cleared (then the request must fail).
  std::error_code refuse(std::size_t index, ReadStats& stats);

 private:
  struct Descriptor {
    int fd = -1;
    std::size_t alignment = 0;  // zero: buffered
  };
  std::vector<std::pair<int, std::uint32_t>> by_fd_;  // (fd, request index), sorted
  std::vector<Descriptor> descriptors_;
  std::vector<std::uint32_t> descriptor_of_;  // per request
  std::size_t largest_alignment_ = 0;
  std::size_t longest_piece_ = 0;
};

}  // namespace feedrate::io
