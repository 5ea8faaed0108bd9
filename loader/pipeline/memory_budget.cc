#include "loader/pipeline/memory_budget.h"

#include <algorithm>
#include <cstdio>

#include "feedrate/error.h"

namespace feedrate {
namespace {

// The share of the process's memory limit that the loader may use when memory_budget_mb is 0:
// the rest belongs to the training itself.
constexpr double kDefaultBudgetShare = 0.25;
// A tar member's header block, plus half a block of padding on average.
constexpr double kTarOverheadBytes = 512 + 256;
// Encoded buffers grow a quarter beyond their need (loader/pipeline/batch_reader.cc).
constexpr double kEncodedGrowth = 1.25;

}  // namespace

double slot_bytes(const MemoryNeeds& needs) {
  const double encoded =
      needs.encoded_bytes_per_sample + (needs.tar_members ? kTarOverheadBytes : 0.0);
  return static_cast<double>(needs.batch_size) *
         (needs.staging_bytes_per_sample + kEncodedGrowth * encoded);
}

std::size_t slots_within_budget(const MemoryNeeds& needs, std::size_t wanted, std::size_t budget_mb,
                                std::uint64_t memory_limit_bytes) {
  const bool by_default = budget_mb == 0;
  const double budget = by_default ? static_cast<double>(memory_limit_bytes) * kDefaultBudgetShare
                                   : static_cast<double>(budget_mb) * 1e6;
  if (by_default && budget <= 0) return wanted;  // the limit is unknown
  const double per_slot = slot_bytes(needs);
  const double for_slots = budget - needs.shared_bytes;
  const auto fits = for_slots > 0 ? static_cast<std::size_t>(for_slots / per_slot) : 0;
  if (fits > 0) return std::min(wanted, fits);
  char message[400];
  if (by_default) {
    std::snprintf(message, sizeof(message),
                  "one batch needs about %.1f MB (batch_size %zu) plus %.1f MB of reader and "
                  "decoder buffers, more than the default memory budget of %.1f MB, a quarter of "
                  "this process's memory limit (%.1f MB, the container's when it sets one): lower "
                  "batch_size or set memory_budget_mb",
                  per_slot / 1e6, needs.batch_size, needs.shared_bytes / 1e6, budget / 1e6,
                  static_cast<double>(memory_limit_bytes) / 1e6);
  } else {
    std::snprintf(message, sizeof(message),
                  "option memory_budget_mb: %zu MB is too small for one batch, which needs "
                  "about %.1f MB (batch_size %zu) plus %.1f MB of reader and decoder buffers",
                  budget_mb, per_slot / 1e6, needs.batch_size, needs.shared_bytes / 1e6);
  }
  throw Error(message);
}

}  // namespace feedrate
