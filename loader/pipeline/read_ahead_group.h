// One ranged GET of the remote read-ahead (internal to loader/; its planner's,
// read_ahead_planner.h): the samples it carries, by their places in the order, each with a
// buffer of its own that the GET's bytes are scattered into as they arrive
// (io/remote/fetch_destination.h), so that a taken sample's buffer goes back to the pool at
// once while its neighbours wait for their turn, and no byte is copied between the transfer and
// the batch. A group the local-disk cache holds is `local`: nothing is fetched.
//
// States: formed (in_flight() false, arrived() false) -> in flight (submitted) -> arrived, or
// failed with the fetcher's message; each sample is then taken once, in any order of positions.
// Thread-safety: none; its planner's owner guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "io/remote/fetch_destination.h"
#include "loader/pipeline/sample_buffers.h"

namespace feedrate {

class ReadAheadGroup {
 public:
  // A sample of the group: its place in the order and where it lies.
  struct Member {
    std::size_t position = 0;
    SampleRef ref;
  };

  // The samples the local-disk cache holds: arrived, with no bytes.
  static ReadAheadGroup local(std::vector<std::size_t> positions);
  // The members (ascending positions, all of one file) as one GET from the lowest offset to the
  // highest end, each into a buffer from `buffers`.
  static ReadAheadGroup fetched(std::vector<Member> members, SampleBuffers& buffers);

  const std::vector<std::size_t>& positions() const { return positions_; }
  std::size_t first_position() const { return positions_.front(); }
  bool is_local() const { return local_; }
  bool arrived() const { return arrived_; }
  const std::string& error() const { return error_; }
  // The GET: its file, its first byte in the object, its bytes (gaps included), and where each
  // sample's bytes go.
  std::uint32_t file() const { return file_; }
  std::uint64_t offset() const { return offset_; }
  std::uint64_t range_bytes() const { return range_bytes_; }
  // The bytes its samples hold while not taken (what the read-ahead's window counts).
  std::uint64_t held_bytes() const { return held_bytes_; }
  std::vector<io::FetchPiece> scatter() const;

  // Whether the GET counts among this epoch's in flight (the next epoch's wait for them).
  bool counted() const { return counted_; }
  void set_counted(bool counted) { counted_ = counted; }

  // The GET arrived whole, or failed with `message`: a failed group's buffers go back to the
  // pool, and each of its samples is delivered as the error.
  void arrive(std::string message, SampleBuffers& buffers);
  // The bytes of the sample at `position` (arrived, not failed, not local).
  std::span<const std::byte> bytes(std::size_t position) const;
  // Each sample's bytes by its position, as arrived (for the local-disk cache).
  template <typename F>
  void for_each_sample(F&& f) const {
    for (std::size_t k = 0; k < positions_.size(); ++k) f(positions_[k], piece_bytes(k));
  }
  // The sample at `position` was taken: its buffer goes back to `buffers`; returns the bytes
  // the group holds no more.
  std::uint64_t take(std::size_t position, SampleBuffers& buffers);
  // Every sample taken.
  bool done() const { return taken_ == positions_.size(); }
  // The group is dropped (the read-ahead starts afresh): its buffers go back to `buffers`.
  void drop(SampleBuffers& buffers);
  // The order dropped its first `done` positions, all taken: forgets those that are this
  // group's and renumbers the others.
  void rebase(std::size_t done);

 private:
  std::size_t index_of(std::size_t position) const;
  std::span<const std::byte> piece_bytes(std::size_t k) const;

  std::vector<std::size_t> positions_;          // ascending
  std::vector<std::size_t> sizes_;              // per sample
  std::vector<std::uint64_t> at_;               // per sample: where it starts in the range
  std::vector<SampleBuffers::Buffer> buffers_;  // per sample, until taken
  std::size_t taken_ = 0;
  std::uint32_t file_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t range_bytes_ = 0;
  std::uint64_t held_bytes_ = 0;
  bool local_ = false;
  bool arrived_ = false;
  bool counted_ = false;
  std::string error_;
};

}  // namespace feedrate
