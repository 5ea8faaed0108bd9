#include "io/pread_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace feedrate::io {

PreadReader::PreadReader(const ReaderOptions& options)
    : Reader(options), meter_(options.throttle, *options.clock) {
  mutable_stats().backend_description = options.direct_io ? "pread+O_DIRECT" : "pread";
}

void PreadReader::read(std::span<ReadRequest> requests) {
  clear_results(requests);
  meter_.begin_batch();
  direct_.begin_batch(requests, mutable_stats());
  if (direct_.longest_piece() > 0) {
    bounce_.reserve(1, direct_.longest_piece(), direct_.bounce_alignment());
  }
  for (std::size_t i = 0; i < requests.size(); ++i) read_one(requests[i], i);
  meter_.end_batch(mutable_stats());
}

PreadReader::Outcome PreadReader::read_piece(ReadRequest& request, std::size_t index) {
  const std::size_t alignment = direct_.alignment(index);
  std::byte* buffer = request.dest.data() + request.bytes_read;
  std::uint64_t offset = request.offset + request.bytes_read;
  std::size_t length = request.dest.size() - request.bytes_read;
  if (alignment != 0) {
    const Piece piece = next_piece(request, alignment, bounce_.slot_size());
    buffer = bounce_.slot(0);
    offset = piece.offset;
    length = piece.length;
  }
  const ReadMeter::Op op = meter_.start(length);
  ssize_t got = ::pread(request.fd, buffer, length, static_cast<off_t>(offset));
  Outcome outcome;
  outcome.error = got < 0 ? errno : 0;
  if (options().fault_hook) {
    const std::int64_t result = options().fault_hook({request.fd, offset, {buffer, length}},
                                                     got < 0 ? -outcome.error : got);
    got = result < 0 ? -1 : static_cast<ssize_t>(result);
    outcome.error = result < 0 ? static_cast<int>(-result) : 0;
  }
  meter_.clock().sleep_until(op.due);
  meter_.finish(op);
  if (got <= 0) return outcome;
  outcome.short_read = static_cast<std::size_t>(got) < length;
  if (alignment != 0) {
    outcome.added = take_from_piece(request, offset, {buffer, static_cast<std::size_t>(got)});
  } else {
    outcome.added = static_cast<std::size_t>(got);
    request.bytes_read += outcome.added;
  }
  return outcome;
}

void PreadReader::read_one(ReadRequest& request, std::size_t index) {
  ReadStats& stats = mutable_stats();
  int transient = 0;
  while (request.bytes_read < request.dest.size()) {
    const bool direct = direct_.alignment(index) != 0;
    const Outcome outcome = read_piece(request, index);
    ++stats.operations;
    if ((outcome.error == EINTR || outcome.error == EAGAIN) && ++transient < kMaxTransientRetries) {
      ++stats.retries;
      continue;
    }
    if (outcome.error == EINVAL && direct) {
      request.error = direct_.refuse(index, stats);
      if (request.error) break;
      continue;
    }
    if (outcome.error != 0) {
      request.error = std::error_code(outcome.error, std::generic_category());
      break;
    }
    if (outcome.added == 0) {
      request.error = make_error_code(ReadErrc::kUnexpectedEof);
      break;
    }
    stats.bytes += outcome.added;
    if (outcome.short_read && request.bytes_read < request.dest.size()) ++stats.retries;
  }
  if (request.error) ++stats.failed;
}

}  // namespace feedrate::io
