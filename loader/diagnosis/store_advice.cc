#include "loader/diagnosis/store_advice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "loader/diagnosis/capacity.h"
#include "loader/diagnosis/measured.h"
#include "loader/diagnosis/store_scaling.h"
#include "loader/diagnosis/text.h"

namespace feedrate {
namespace {

using text::format;
using text::thousands;

}  // namespace

void store_advice(const Report& report, std::vector<Advice>& advice) {
  const StoreFigures& s = report.store;
  const Capacities& capacities = report.capacities;
  const double io = capacities.of(Resource::kIo).images_per_s;
  const double per_image = report.images > 0 ? static_cast<double>(s.bytes) / report.images : 0;
  const double images_per_request =
      s.requests > 0 ? static_cast<double>(report.images) / static_cast<double>(s.requests) : 1;
  const auto scaling = store_scaling(s);
  std::string finding = format(
      "the store (%s) delivered %.1f MB/s in %s requests (%.1f images each): time to first byte "
      "%.0f ms (p99 %.0f ms), %.1f requests in flight on average of %u allowed, %.1f MB/s per "
      "request",
      s.scheme.c_str(), s.bytes_per_s / 1e6, thousands(static_cast<double>(s.requests)).c_str(),
      images_per_request, s.first_byte_p50_ms, s.first_byte_p99_ms, s.average_in_flight,
      s.max_in_flight, s.bytes_per_s_per_connection / 1e6);
  if (scaling) {
    finding += format("; %.0f MB/s with %.1f requests in flight, %.0f MB/s with %.1f: ",
                      scaling->low.bytes_per_s / 1e6, scaling->low.in_flight,
                      scaling->high.bytes_per_s / 1e6, scaling->high.in_flight);
    finding += scaling->fell()
                   ? "the rate fell as more were in flight, so the requests did not set it and "
                     "these figures cannot say whether the link is full"
               : scaling->elasticity() < kLinkFull
                   ? "more requests did not lift the rate, the link (or the store) is full"
                   : format("the rate grew as requests^%.2f", scaling->elasticity());
  }
  // Whether the bands say how the rate follows the requests.
  const bool fitted = scaling && !scaling->fell();
  advice.push_back(make_finding("io.store", std::move(finding)));
  if (!std::isfinite(io) || io <= 0) return;
  const double elasticity = fitted ? scaling->elasticity() : 1.0;
  const double now = lifted(capacities, Resource::kIo, io);
  const auto lifts = [&](double rate) { return rate >= kLeastLift * now; };
  const unsigned more = std::min(1024u, s.max_in_flight * 2);
  const double more_rate = lifted(
      capacities, Resource::kIo,
      io * std::pow(static_cast<double>(more) / std::max(1.0, s.average_in_flight), elasticity));
  if (store_saturated(s) && elasticity >= kLinkFull && lifts(more_rate)) {
    Advice more_in_flight =
        make_remedy("io.store_in_flight", format("keep %u requests in flight ({0})", more),
                    {{"io_queue_depth", std::to_string(more)}}, more_rate,
                    "no hardware; the store's request rate limits apply");
    more_in_flight.cause =
        fitted ? format(
                     "the read-ahead kept %.1f of its %u requests in flight, %.0f MB/s in all, "
                     "and its rate grew as requests^%.2f",
                     s.average_in_flight, s.max_in_flight, s.bytes_per_s / 1e6, elasticity)
               // Without bands to compare, no figure of the run says whether the link is full.
               : format(
                     "the read-ahead kept %.1f of its %u requests in flight, %.0f MB/s in all: "
                     "more requests lift the rate where the time to first byte sets it, not "
                     "where the link is full",
                     s.average_in_flight, s.max_in_flight, s.bytes_per_s / 1e6);
    advice.push_back(std::move(more_in_flight));
  }
  // One object per image: tar shards put neighbours in one request (the read-ahead groups the
  // storage neighbours of its next 64 MB: shuffle none and blocks, not a full shuffle of a large
  // set, for which no remedy is given here).
  // With many samples a request, a request costs its bytes, not a round trip each.
  const double packed_rate =
      per_image > 0
          ? lifted(capacities, Resource::kIo,
                   std::max(s.average_in_flight * s.bytes_per_s_per_connection / per_image, io))
          : 0;
  if (images_per_request < 2 && per_image > 0 && s.bytes_per_s_per_connection > 0 &&
      report.run.format != "tar-shards" && lifts(packed_rate)) {
    advice.push_back(make_remedy(
        "io.store_requests",
        "pack the dataset into tar shards (feedrate pack; its index.json lists every member, so "
        "no shard is streamed to index it) and read those: neighbouring samples then arrive in "
        "one request",
        packed_rate, "a packed copy of the dataset in the store",
        "each request carries one sample: a round trip per image"));
  }
  if (!report.cache.enabled) {
    advice.push_back(make_remedy(
        "io.cache_dir",
        "a cache on a local NVMe disk ({0}): each sample is stored as it arrives, and later "
        "epochs read the local disk",
        {{"cache_dir", "PATH"}},
        lifted(capacities, Resource::kIo, std::numeric_limits<double>::infinity()),
        format("%.1f GB of local disk", gb(report.run.dataset_bytes))));
    advice.back().cause = "every epoch reads the whole dataset from the store";
  }
}

}  // namespace feedrate
