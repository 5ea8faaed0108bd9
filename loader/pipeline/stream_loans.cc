#include "loader/pipeline/stream_loans.h"

#include <algorithm>
#include <iterator>
#include <unordered_set>
#include <utility>

namespace feedrate {

using detail::Slot;

StreamLoans::StreamLoans(const EpochPlan& plan, std::size_t sample_bytes, OutputLayout layout,
                         int size, Read read, Decode decode)
    : plan_(plan), read_(std::move(read)), decode_(std::move(decode)) {
  slot_.sample_bytes = sample_bytes;
  slot_.layout = layout;
  slot_.size = slot_.height = slot_.width = size;
}

void StreamLoans::begin_epoch(std::uint64_t epoch) {
  epoch_ = epoch;
  loans_.clear();
  current_ = nullptr;
}

StreamLoans::Loan* StreamLoans::find(std::size_t read) {
  const auto it = std::find_if(loans_.begin(), loans_.end(),
                               [&](const Loan& loan) { return loan.read == read; });
  return it == loans_.end() ? nullptr : &*it;
}

bool StreamLoans::lending(std::size_t read) const {
  return std::any_of(loans_.begin(), loans_.end(),
                     [&](const Loan& loan) { return loan.read == read; });
}

void StreamLoans::fold() {
  if (current_ == nullptr) return;
  const std::size_t used = std::min(slot_.taken, slot_.indices.size());
  current_->lent.insert(current_->lent.end(), slot_.indices.begin(),
                        slot_.indices.begin() + static_cast<std::ptrdiff_t>(used));
  if (used < slot_.indices.size()) {
    // Good samples left: the next loan of the read starts after the last one used (the good
    // samples are in their read's order).
    std::size_t next = current_first_;
    for (std::size_t u = 0; u < used; ++u) {
      while (next < current_->samples.size() && current_->samples[next] != slot_.indices[u]) {
        ++next;
      }
      ++next;
    }
    current_->examined = next;
  }
  slot_.taken = 0;
  slot_.indices.clear();
  current_ = nullptr;
}

ReadSource StreamLoans::lend(std::size_t read, std::size_t wanted,
                             const std::function<void()>& while_waiting) {
  fold();
  Loan* loan = find(read);
  if (loan == nullptr) {
    loan = &loans_.emplace_back();
    loan->read = read;
    loan->repeats_from = plan_.read_samples(read, loan->samples);
  }
  const std::size_t first = loan->examined;
  const std::size_t count = std::min(wanted, loan->samples.size() - first);
  slot_.epoch = epoch_;
  slot_.taken = 0;
  slot_.indices.assign(loan->samples.begin() + static_cast<std::ptrdiff_t>(first),
                       loan->samples.begin() + static_cast<std::ptrdiff_t>(first + count));
  slot_.count = count;
  if (count > 0) {
    if (slot_.images.size() < count * slot_.sample_bytes) {
      slot_.images = gpu::HostBuffer(count * slot_.sample_bytes);
    }
    if (!read_(slot_, while_waiting)) {
      slot_.indices.clear();
      return {};
    }
    decode_(slot_);
    // Counted when the read itself is delivered, or at the epoch's end (unreached_skips); not
    // again for a sample lent twice, nor for those that repeat the epoch's start.
    for (SkippedSample& skip : slot_.skipped) {
      const auto at = static_cast<std::size_t>(
          std::find(loan->samples.begin() + static_cast<std::ptrdiff_t>(first), loan->samples.end(),
                    skip.index) -
          loan->samples.begin());
      if (at >= loan->skips_seen && at < loan->repeats_from) {
        loan->skipped.push_back(std::move(skip));
      }
    }
    slot_.skipped.clear();
    loan->skips_seen = std::max(loan->skips_seen, first + count);
  }
  ReadSource source{.slot = &slot_, .loan = true, .lent_before = loan->lent.size()};
  loan->examined = first + count;
  source.reaches_end = loan->examined == loan->samples.size();
  current_ = loan;
  current_first_ = first;
  return source;
}

void StreamLoans::settle() {
  fold();
}

void StreamLoans::apply(std::size_t read, Slot& slot) {
  Loan* loan = find(read);
  if (loan == nullptr) return;
  // The samples it lent lead its good ones, in order (unless a read failed only once: then
  // those of them it holds, wherever they lead: see the header).
  std::size_t leading = 0;
  while (leading < loan->lent.size() && leading < slot.indices.size() &&
         slot.indices[leading] == loan->lent[leading]) {
    ++leading;
  }
  if (leading < loan->lent.size()) {
    const std::unordered_set<std::uint32_t> lent(loan->lent.begin(), loan->lent.end());
    while (leading < slot.indices.size() && lent.count(slot.indices[leading]) != 0) ++leading;
  }
  slot.taken = std::max(slot.taken, leading);
  loans_.remove_if([&](const Loan& other) { return &other == loan; });
}

std::vector<SkippedSample> StreamLoans::unreached_skips() {
  fold();
  std::vector<SkippedSample> skipped;
  for (Loan& loan : loans_) {
    std::move(loan.skipped.begin(), loan.skipped.end(), std::back_inserter(skipped));
  }
  loans_.clear();
  return skipped;
}

}  // namespace feedrate
