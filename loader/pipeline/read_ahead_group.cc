#include "loader/pipeline/read_ahead_group.h"

#include <algorithm>
#include <utility>

namespace feedrate {

ReadAheadGroup ReadAheadGroup::local(std::vector<std::size_t> positions) {
  ReadAheadGroup group;
  group.positions_ = std::move(positions);
  group.sizes_.assign(group.positions_.size(), 0);
  group.at_.assign(group.positions_.size(), 0);
  group.buffers_.resize(group.positions_.size());
  group.local_ = true;
  group.arrived_ = true;
  return group;
}

ReadAheadGroup ReadAheadGroup::fetched(std::vector<Member> members, SampleBuffers& buffers) {
  ReadAheadGroup group;
  std::uint64_t begin = members.front().ref.offset;
  std::uint64_t end = begin;
  for (const Member& member : members) {
    begin = std::min(begin, member.ref.offset);
    end = std::max(end, member.ref.offset + member.ref.size);
  }
  group.file_ = members.front().ref.file;
  group.offset_ = begin;
  group.range_bytes_ = end - begin;
  for (const Member& member : members) {
    group.positions_.push_back(member.position);
    group.sizes_.push_back(static_cast<std::size_t>(member.ref.size));
    group.at_.push_back(member.ref.offset - begin);
    group.buffers_.push_back(buffers.acquire(static_cast<std::size_t>(member.ref.size)));
    group.held_bytes_ += member.ref.size;
  }
  return group;
}

std::vector<io::FetchPiece> ReadAheadGroup::scatter() const {
  std::vector<std::size_t> by_offset(positions_.size());
  for (std::size_t k = 0; k < by_offset.size(); ++k) by_offset[k] = k;
  std::sort(by_offset.begin(), by_offset.end(),
            [&](std::size_t a, std::size_t b) { return at_[a] < at_[b]; });
  std::vector<io::FetchPiece> pieces;
  pieces.reserve(by_offset.size());
  for (const std::size_t k : by_offset) {
    pieces.push_back({at_[k], buffers_[k].first(sizes_[k])});
  }
  return pieces;
}

void ReadAheadGroup::arrive(std::string message, SampleBuffers& buffers) {
  arrived_ = true;
  counted_ = false;
  if (message.empty()) return;
  error_ = std::move(message);
  for (SampleBuffers::Buffer& buffer : buffers_) buffers.release(std::move(buffer));
  held_bytes_ = 0;
}

std::size_t ReadAheadGroup::index_of(std::size_t position) const {
  return static_cast<std::size_t>(std::lower_bound(positions_.begin(), positions_.end(), position) -
                                  positions_.begin());
}

std::span<const std::byte> ReadAheadGroup::piece_bytes(std::size_t k) const {
  return buffers_[k].first(buffers_[k] ? sizes_[k] : 0);
}

std::span<const std::byte> ReadAheadGroup::bytes(std::size_t position) const {
  return piece_bytes(index_of(position));
}

std::uint64_t ReadAheadGroup::take(std::size_t position, SampleBuffers& buffers) {
  const std::size_t k = index_of(position);
  ++taken_;
  if (!buffers_[k]) return 0;
  buffers.release(std::move(buffers_[k]));
  buffers_[k] = SampleBuffers::Buffer();
  held_bytes_ -= sizes_[k];
  return sizes_[k];
}

void ReadAheadGroup::drop(SampleBuffers& buffers) {
  for (SampleBuffers::Buffer& buffer : buffers_) buffers.release(std::move(buffer));
  buffers_.clear();
  held_bytes_ = 0;
}

void ReadAheadGroup::rebase(std::size_t done) {
  const auto gone = static_cast<std::ptrdiff_t>(index_of(done));
  positions_.erase(positions_.begin(), positions_.begin() + gone);
  sizes_.erase(sizes_.begin(), sizes_.begin() + gone);
  at_.erase(at_.begin(), at_.begin() + gone);
  buffers_.erase(buffers_.begin(), buffers_.begin() + gone);
  taken_ -= static_cast<std::size_t>(gone);
  for (std::size_t& position : positions_) position -= done;
}

}  // namespace feedrate
