#include "io/uring_reader.h"

#include <sys/resource.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace feedrate::io {
namespace {

constexpr std::size_t kMaxSubmission = std::size_t{1} << 30;
// Bounce buffer per slot set up at creation (so that stats tell at once whether fixed buffers
// work): a typical JPEG sample of ~110 KB and its alignment fit in one piece.
constexpr std::size_t kInitialBounceBytes = 128 << 10;

std::string memlock_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return "unknown";
  if (limit.rlim_cur == RLIM_INFINITY) return "unlimited";
  return std::to_string(limit.rlim_cur >> 10) + " KiB";
}

}  // namespace

UringReader::UringReader(const ReaderOptions& options)
    : Reader(options), queue_depth_(options.queue_depth), meter_(options.throttle, *options.clock) {
  ops_.resize(queue_depth_);
  for (unsigned slot = queue_depth_; slot > 0; --slot) free_slots_.push_back(slot - 1);
  held_.reserve(queue_depth_);
}

std::unique_ptr<UringReader> UringReader::create(const ReaderOptions& options,
                                                 std::error_code& error) {
  std::unique_ptr<UringReader> reader(new UringReader(options));
  const int rc = io_uring_queue_init(options.queue_depth, &reader->ring_, 0);
  if (rc < 0) {
    error = std::error_code(-rc, std::generic_category());
    return nullptr;
  }
  reader->ring_ready_ = true;
  if (options.direct_io) reader->bounce_.reserve(reader->queue_depth_, kInitialBounceBytes, 4096);
  reader->register_bounce();
  return reader;
}

UringReader::~UringReader() {
  if (ring_ready_) io_uring_queue_exit(&ring_);
}

void UringReader::prepare_bounce(std::size_t bytes, std::size_t alignment) {
  if (bounce_.reserve(queue_depth_, bytes, alignment)) register_bounce();
}

void UringReader::register_bounce() {
  ReadStats& stats = mutable_stats();
  if (fixed_buffers_) {
    io_uring_unregister_buffers(&ring_);
    fixed_buffers_ = false;
  }
  if (options().direct_io && options().register_buffers && bounce_.total_size() > 0) {
    const iovec buffers{bounce_.data(), bounce_.total_size()};
    const int rc = io_uring_register_buffers(&ring_, &buffers, 1);
    fixed_buffers_ = rc == 0;
    stats.fixed_buffers_note.clear();
    if (rc < 0) {
      stats.fixed_buffers_note = "io_uring_register_buffers of " +
                                 std::to_string(bounce_.total_size() >> 10) +
                                 " KiB failed: " + std::strerror(-rc) + " (RLIMIT_MEMLOCK " +
                                 memlock_limit() + "); plain reads into the bounce buffers";
    }
  }
  stats.fixed_buffers = fixed_buffers_;
  stats.backend_description = std::string("io_uring") + (fixed_buffers_ ? "+fixed-buffers" : "") +
                              (options().direct_io ? "+O_DIRECT" : "");
}

void UringReader::submit(std::span<ReadRequest> requests, std::size_t index) {
  ReadRequest& request = requests[index];
  if (request.fd == ring_.ring_fd) {
    // A stale descriptor number that the ring now owns: reading it would wait for a completion
    // only that read could produce, forever.
    request.error = std::make_error_code(std::errc::bad_file_descriptor);
    ++mutable_stats().failed;
    return;
  }
  const unsigned slot = free_slots_.back();
  free_slots_.pop_back();
  Op& op = ops_[slot];
  op.request = index;
  // The ring has queue_depth_ entries and at most queue_depth_ reads are in flight, so a
  // submission queue entry is always free here.
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  const std::size_t alignment = direct_.alignment(index);
  op.direct = alignment != 0;
  if (op.direct) {
    const Piece piece = next_piece(request, alignment, bounce_.slot_size());
    op.offset = piece.offset;
    op.length = piece.length;
    std::byte* buffer = bounce_.slot(slot);
    if (fixed_buffers_) {
      io_uring_prep_read_fixed(sqe, request.fd, buffer, static_cast<unsigned>(op.length), op.offset,
                               0);
    } else {
      io_uring_prep_read(sqe, request.fd, buffer, static_cast<unsigned>(op.length), op.offset);
    }
  } else {
    // The length field is 32 bits: submit at most kMaxSubmission, the remainder is resubmitted
    // like any short read.
    op.offset = request.offset + request.bytes_read;
    op.length = std::min(request.dest.size() - request.bytes_read, kMaxSubmission);
    io_uring_prep_read(sqe, request.fd, request.dest.data() + request.bytes_read,
                       static_cast<unsigned>(op.length), op.offset);
  }
  io_uring_sqe_set_data64(sqe, slot);
  op.timing = meter_.start(op.length);
  ++in_flight_;
}

int UringReader::wait() {
  int rc = 0;
  do {
    const bool with_kernel = in_flight_ > held_.size();
    if (held_.empty()) {
      rc = io_uring_submit_and_wait(&ring_, 1);
    } else if (!with_kernel) {
      meter_.clock().sleep_until(ops_[held_.front()].timing.due);
      rc = 0;
    } else if ((ring_.features & IORING_FEAT_EXT_ARG) == 0) {
      // Kernels before 5.11 time a wait with an extra submission the full ring may not have
      // room for: wait for the next completion, which releases held reads a little late.
      rc = io_uring_submit_and_wait(&ring_, 1);
    } else {
      // On a fake clock `left` is fake time; the wait still ends at the kernel's next
      // completion, and once only held reads are left they wait on the clock.
      const auto left =
          std::max(ops_[held_.front()].timing.due - meter_.clock().now(), Clock::duration::zero());
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      __kernel_timespec timeout{ns / 1'000'000'000, ns % 1'000'000'000};
      io_uring_cqe* cqe = nullptr;
      rc = io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &timeout, nullptr);
      if (rc == -ETIME) rc = 0;
    }
  } while (rc == -EINTR);
  return rc;
}

void UringReader::reap(std::span<ReadRequest> requests) {
  const auto due_later = [this](unsigned a, unsigned b) {
    return ops_[a].timing.due > ops_[b].timing.due;
  };
  const Clock::time_point now = meter_.clock().now();
  io_uring_cqe* cqe = nullptr;
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
    ops_[slot].result = cqe->res;
    if (options().fault_hook) ops_[slot].result = apply_fault_hook(requests, slot);
    if (ops_[slot].timing.due <= now) {
      finish(requests, slot);
    } else {
      held_.push_back(slot);
      std::push_heap(held_.begin(), held_.end(), due_later);
    }
  }
  io_uring_cq_advance(&ring_, seen);
  while (!held_.empty() && ops_[held_.front()].timing.due <= meter_.clock().now()) {
    std::pop_heap(held_.begin(), held_.end(), due_later);
    const unsigned slot = held_.back();
    held_.pop_back();
    finish(requests, slot);
  }
}

int UringReader::apply_fault_hook(std::span<ReadRequest> requests, unsigned slot) const {
  const Op& op = ops_[slot];
  const ReadRequest& request = requests[op.request];
  // The request's bytes_read advances only in finish(), so it still says where this read went.
  std::byte* buffer = op.direct ? bounce_.slot(slot) : request.dest.data() + request.bytes_read;
  return static_cast<int>(
      options().fault_hook({request.fd, op.offset, {buffer, op.length}}, op.result));
}

void UringReader::finish(std::span<ReadRequest> requests, unsigned slot) {
  ReadStats& stats = mutable_stats();
  const Op& op = ops_[slot];
  meter_.finish(op.timing);
  --in_flight_;
  free_slots_.push_back(slot);  // reused only after this function: the bounce data stays
  const std::size_t index = op.request;
  ReadRequest& request = requests[index];
  const int result = op.result;
  ++stats.operations;
  if ((result == -EINTR || result == -EAGAIN) && ++transient_[index] < kMaxTransientRetries) {
    ++stats.retries;
    resubmit_.push_back(index);
    return;
  }
  if (result == -EINVAL && op.direct) {
    request.error = direct_.refuse(index, stats);
    if (!request.error) {
      resubmit_.push_back(index);
      return;
    }
  } else if (result < 0) {
    request.error = std::error_code(-result, std::generic_category());
  } else {
    const auto got = static_cast<std::size_t>(result);
    std::size_t added = got;
    if (op.direct) {
      added = take_from_piece(request, op.offset, {bounce_.slot(slot), got});
    } else {
      request.bytes_read += got;
    }
    if (added == 0) {
      request.error = make_error_code(ReadErrc::kUnexpectedEof);
    } else {
      stats.bytes += added;
      if (request.bytes_read < request.dest.size()) {
        if (got < op.length) ++stats.retries;
        resubmit_.push_back(index);
        return;
      }
    }
  }
  if (request.error) ++stats.failed;
}

void UringReader::abandon(std::span<ReadRequest> requests, int error) {
  for (ReadRequest& request : requests) {
    if (!request.error && request.bytes_read < request.dest.size()) {
      request.error = std::error_code(-error, std::generic_category());
      ++mutable_stats().failed;
    }
  }
  resubmit_.clear();
  // Reads the kernel still holds must end before read() returns: they write into the callers'
  // buffers.
  const auto release = [this](unsigned slot) {
    meter_.finish(ops_[slot].timing);
    free_slots_.push_back(slot);
    --in_flight_;
  };
  for (const unsigned slot : held_) release(slot);
  held_.clear();
  io_uring_cqe* cqe = nullptr;
  while (in_flight_ > 0 && io_uring_wait_cqe(&ring_, &cqe) == 0) {
    release(static_cast<unsigned>(io_uring_cqe_get_data64(cqe)));
    io_uring_cqe_seen(&ring_, cqe);
  }
}

void UringReader::read(std::span<ReadRequest> requests) {
  transient_.assign(requests.size(), 0);
  resubmit_.clear();
  clear_results(requests);
  meter_.begin_batch();
  direct_.begin_batch(requests, mutable_stats());
  if (direct_.longest_piece() > 0) {
    prepare_bounce(direct_.longest_piece(), direct_.bounce_alignment());
  }
  std::size_t next = 0;
  while (next < requests.size() || !resubmit_.empty() || in_flight_ > 0) {
    // Fill the ring: resubmissions first, so a request's remainder is not starved.
    while (!free_slots_.empty() && !resubmit_.empty()) {
      const std::size_t index = resubmit_.back();
      resubmit_.pop_back();
      submit(requests, index);
    }
    while (!free_slots_.empty() && next < requests.size()) {
      if (!requests[next].dest.empty()) submit(requests, next);
      ++next;
    }
    if (in_flight_ == 0) break;
    if (const int rc = wait(); rc < 0) {
      abandon(requests, rc);
      break;
    }
    reap(requests);
  }
  meter_.end_batch(mutable_stats());
}

}  // namespace feedrate::io
