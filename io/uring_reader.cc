#include "io/uring_reader.h"

#include <algorithm>
#include <cerrno>

namespace feedrate::io {

constexpr std::size_t kMaxSubmission = std::size_t{1} << 30;

std::unique_ptr<UringReader> UringReader::create(unsigned queue_depth, std::error_code& error) {
  std::unique_ptr<UringReader> reader(new UringReader(queue_depth));
  const int rc = io_uring_queue_init(queue_depth, &reader->ring_, 0);
  if (rc < 0) {
    error = std::error_code(-rc, std::generic_category());
    reader->queue_depth_ = 0;  // nothing to tear down
    return nullptr;
  }
  return reader;
}

UringReader::~UringReader() {
  if (queue_depth_ != 0) io_uring_queue_exit(&ring_);
}

void UringReader::submit(ReadRequest& request, std::size_t index) {
  if (request.fd == ring_.ring_fd) {
    // A stale descriptor number that the ring now owns: reading it would wait for a completion
    // only that read could produce, forever.
    request.error = std::make_error_code(std::errc::bad_file_descriptor);
    ++stats_.failed;
    return;
  }
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  // The ring has queue_depth_ entries and at most queue_depth_ reads are in flight, so a
  // submission queue entry is always free here.
  // The length field is 32 bits: submit at most kMaxSubmission, the remainder is resubmitted
  // like any short read.
  const std::size_t remaining = request.dest.size() - request.bytes_read;
  io_uring_prep_read(sqe, request.fd, request.dest.data() + request.bytes_read,
                     static_cast<unsigned>(std::min(remaining, kMaxSubmission)),
                     request.offset + request.bytes_read);
  io_uring_sqe_set_data64(sqe, index);
  ++in_flight_;
}

void UringReader::complete(std::span<ReadRequest> requests, std::size_t index, int result) {
  ReadRequest& request = requests[index];
  ++stats_.operations;
  if (result == -EINTR || result == -EAGAIN) {
    if (++transient_[index] < kMaxTransientRetries) {
      ++stats_.retries;
      resubmit_.push_back(index);
      return;
    }
  }
  if (result < 0) {
    request.error = std::error_code(-result, std::generic_category());
  } else if (result == 0) {
    request.error = std::make_error_code(std::errc::io_error);
  } else {
    request.bytes_read += static_cast<std::size_t>(result);
    stats_.bytes += static_cast<std::uint64_t>(result);
    if (request.bytes_read < request.dest.size()) {
      ++stats_.retries;
      resubmit_.push_back(index);
      return;
    }
  }
  if (request.error) ++stats_.failed;
}

void UringReader::read(std::span<ReadRequest> requests) {
  transient_.assign(requests.size(), 0);
  resubmit_.clear();
  std::size_t next = 0;
  for (ReadRequest& request : requests) {
    request.bytes_read = 0;
    request.error.clear();
  }
  while (next < requests.size() || !resubmit_.empty() || in_flight_ > 0) {
    // Fill the ring: resubmissions first, so a request's remainder is not starved.
    while (in_flight_ < queue_depth_ && !resubmit_.empty()) {
      const std::size_t index = resubmit_.back();
      resubmit_.pop_back();
      submit(requests[index], index);
    }
    while (in_flight_ < queue_depth_ && next < requests.size()) {
      if (requests[next].dest.empty()) {
        ++next;  // nothing to read
        continue;
      }
      submit(requests[next], next);
      ++next;
    }
    if (in_flight_ == 0) break;
    int rc = io_uring_submit_and_wait(&ring_, 1);
    while (rc == -EINTR) rc = io_uring_submit_and_wait(&ring_, 1);
    if (rc < 0) {
      // The ring itself failed: fail what is in flight after reaping it, and the rest.
      for (std::size_t i = 0; i < requests.size(); ++i) {
        if (!requests[i].error && requests[i].bytes_read < requests[i].dest.size()) {
          requests[i].error = std::error_code(-rc, std::generic_category());
        }
      }
      next = requests.size();
      resubmit_.clear();
    }
    io_uring_cqe* cqe = nullptr;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      --in_flight_;
      const auto index = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
      if (rc >= 0) complete(requests, index, cqe->res);
    }
    io_uring_cq_advance(&ring_, seen);
    if (rc < 0 && in_flight_ > 0) {
      io_uring_cqe* wait = nullptr;
      while (in_flight_ > 0 && io_uring_wait_cqe(&ring_, &wait) == 0) {
        io_uring_cqe_seen(&ring_, wait);
        --in_flight_;
      }
    }
  }
}

}  // namespace feedrate::io
