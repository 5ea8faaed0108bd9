#include "io/direct_io.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

namespace feedrate::io {
namespace {

// Alignments outside this range are not believed (a network file system may report a huge
// f_bsize); the next source is asked instead.
bool plausible(std::uint64_t alignment) {
  return alignment >= 512 && alignment <= (64 << 10) && std::has_single_bit(alignment);
}

std::size_t round_up(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

std::size_t device_logical_block_size(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  const std::string device =
      "/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  const int device_fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (device_fd < 0) return 0;
  int size = 0;
  const bool ok = ::ioctl(device_fd, BLKSSZGET, &size) == 0;
  ::close(device_fd);
  return ok && size > 0 ? static_cast<std::size_t>(size) : 0;
}

// The file behind `fd` for messages: its path when /proc tells it.
std::string name_of(int fd) {
  std::array<char, 4096> path{};
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t length = ::readlink(link.c_str(), path.data(), path.size() - 1);
  if (length <= 0) return "descriptor " + std::to_string(fd);
  return std::string(path.data(), static_cast<std::size_t>(length));
}

std::error_code clear_direct(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) != 0) {
    return std::error_code(errno, std::generic_category());
  }
  return {};
}

void record_fallback(int fd, const std::string& why, ReadStats& stats) {
  ++stats.direct_io_fallbacks;
  stats.direct_io_fallback_reason = name_of(fd) + ": " + why + "; reading it buffered";
}

}  // namespace

DirectAlignment direct_alignment(int fd) {
#ifdef STATX_DIOALIGN
  struct statx stx {};
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
      (stx.stx_mask & STATX_DIOALIGN) != 0) {
    return {stx.stx_dio_mem_align, stx.stx_dio_offset_align};
  }
#endif
  if (const std::size_t block = device_logical_block_size(fd); plausible(block)) {
    return {block, block};
  }
  struct statvfs vfs {};
  if (::fstatvfs(fd, &vfs) == 0 && plausible(vfs.f_bsize)) return {vfs.f_bsize, vfs.f_bsize};
  return {4096, 4096};
}

Piece next_piece(const ReadRequest& request, std::size_t alignment, std::size_t max_length) {
  const std::uint64_t mask = alignment - 1;
  const std::uint64_t start = (request.offset + request.bytes_read) & ~mask;
  const std::uint64_t end = (request.offset + request.dest.size() + mask) & ~mask;
  return {start, static_cast<std::size_t>(std::min<std::uint64_t>(end - start, max_length))};
}

std::size_t take_from_piece(ReadRequest& request, std::uint64_t piece_offset,
                            std::span<const std::byte> data) {
  const std::uint64_t next = request.offset + request.bytes_read;
  const std::uint64_t data_end = piece_offset + data.size();
  if (data_end <= next) return 0;
  const auto count = static_cast<std::size_t>(
      std::min<std::uint64_t>(data_end - next, request.dest.size() - request.bytes_read));
  std::memcpy(request.dest.data() + request.bytes_read, data.data() + (next - piece_offset), count);
  request.bytes_read += count;
  return count;
}

bool BounceBuffers::reserve(std::size_t slots, std::size_t bytes, std::size_t alignment) {
  const std::size_t cap = std::max(alignment, (kMaxTotalBytes / slots) & ~(alignment - 1));
  const std::size_t wanted = round_up(std::min(bytes, cap), alignment);
  if (slots <= slots_ && wanted <= slot_size_ && alignment <= alignment_) return false;
  alignment_ = std::max(alignment, alignment_);
  slots_ = std::max(slots, slots_);
  slot_size_ = round_up(std::max(wanted, slot_size_), alignment_);
  // Release the old buffers first: they may be large, and their contents are not needed.
  memory_.reset();
  memory_.reset(static_cast<std::byte*>(std::aligned_alloc(alignment_, slots_ * slot_size_)));
  if (memory_ == nullptr) {
    slots_ = slot_size_ = alignment_ = 0;
    throw std::bad_alloc();
  }
  return true;
}

void DirectReads::begin_batch(std::span<const ReadRequest> requests, ReadStats& stats) {
  by_fd_.clear();
  descriptors_.clear();
  descriptor_of_.resize(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    by_fd_.emplace_back(requests[i].fd, static_cast<std::uint32_t>(i));
  }
  std::sort(by_fd_.begin(), by_fd_.end());
  for (std::size_t i = 0; i < by_fd_.size(); ++i) {
    const int fd = by_fd_[i].first;
    if (i == 0 || fd != by_fd_[i - 1].first) {
      Descriptor descriptor{fd, 0};
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags >= 0 && (flags & O_DIRECT) != 0) {
        const DirectAlignment alignment = direct_alignment(fd);
        if (alignment.offset != 0) {
          descriptor.alignment = std::max(alignment.offset, alignment.memory);
        } else if (!clear_direct(fd)) {
          record_fallback(fd, "the file system reports no direct I/O support (statx)", stats);
        }
      }
      descriptors_.push_back(descriptor);
    }
    descriptor_of_[by_fd_[i].second] = static_cast<std::uint32_t>(descriptors_.size() - 1);
  }
  largest_alignment_ = 0;
  longest_piece_ = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::size_t align = alignment(i);
    if (align == 0 || requests[i].dest.empty()) continue;
    largest_alignment_ = std::max(largest_alignment_, align);
    longest_piece_ = std::max(longest_piece_, next_piece(requests[i], align, SIZE_MAX).length);
  }
}

std::error_code DirectReads::refuse(std::size_t index, ReadStats& stats) {
  Descriptor& descriptor = descriptors_[descriptor_of_[index]];
  if (descriptor.alignment == 0) return {};  // refused earlier in this batch
  descriptor.alignment = 0;
  if (const std::error_code error = clear_direct(descriptor.fd)) return error;
  record_fallback(descriptor.fd, "the file system refused an O_DIRECT read (EINVAL)", stats);
  return {};
}

}  // namespace feedrate::io
