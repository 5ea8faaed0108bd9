#include "loader/pipeline/remote_reads.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "feedrate/error.h"
#include "io/remote/url.h"
#include "loader/dataset/remote_settings.h"
#include "loader/pipeline/read_ahead_plan.h"
#include "loader/pipeline/store_figures.h"

namespace feedrate {

using detail::kNoRead;
using detail::Slot;

RemoteReads::RemoteReads(const Dataset& dataset, const LoaderOptions& options,
                         std::unique_ptr<io::Reader> reader, std::string fallback, io::Clock& clock)
    : dataset_(dataset),
      reader_(std::move(reader)),
      window_bytes_(read_ahead_bytes(options)),
      fallback_reason_(std::move(fallback)) {
  // A remote source's cache stores the samples unchanged (no transcode).
  if (!options.cache_dir.empty()) {
    mirror_ = std::make_unique<RemoteMirror>(options.cache_dir, options.source, dataset_,
                                             options.cache_gb);
  }
  // A manifest of URLs is a local file: its objects' first URL says which store.
  RemoteSettings settings = remote_settings(io::is_url(options.source) || dataset_.files().empty()
                                                ? options.source
                                                : dataset_.files().front().string());
  settings.fetch.max_in_flight = options.io_queue_depth;  // resolve() refused more than 1024
  const unsigned requests = settings.fetch.max_in_flight;
  read_ahead_ =
      std::make_unique<ReadAheadRunner>(dataset_, std::move(settings), window_bytes_, mirror_.get(),
                                        options.shuffle == ShuffleMode::kBlocks, clock);
  stats_.backend_description =
      "libcurl, " + std::to_string(requests) + " requests in flight (up to " +
      std::to_string(std::min(2 * requests, InFlightGrowth::kMostRequests)) + " for a slow store)" +
      (mirror_ != nullptr ? ", local-disk cache" : "");
}

void RemoteReads::start_epoch(EpochReads epoch) {
  if (mirror_ != nullptr) mirror_->refresh();
  const auto end =
      epoch.order.begin() + static_cast<std::ptrdiff_t>(std::min(epoch.taken, epoch.order.size()));
  const bool read_into_next = began_an_epoch_ && epoch.next;
  began_an_epoch_ = true;
  read_ahead_->start_epoch(std::vector<std::uint32_t>(epoch.order.begin(), end),
                           read_into_next ? epoch.next() : std::vector<std::uint32_t>());
}

void RemoteReads::read(Slot& slot) {
  const std::size_t n = slot.count;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) total += slot.encoded_size[i];
  reserve_encoded(slot, total);
  std::size_t at = 0;
  read_ahead_->take(n, [&](const ReadAheadRunner::Sample& sample) {
    const std::size_t i = sample.position;
    if (sample.index != slot.indices[i]) {
      throw Error("internal: the remote read-ahead is out of step with the epoch's order");
    }
    slot.encoded_offset[i] = at;
    at += static_cast<std::size_t>(slot.encoded_size[i]);
    if (sample.local) {
      slot.from_cache[i] = 1;
    } else if (!sample.error.empty()) {
      slot.errors[i] = sample.error;
    } else if (!sample.bytes.empty()) {
      std::memcpy(slot.encoded.data() + slot.encoded_offset[i], sample.bytes.data(),
                  sample.bytes.size());
    }
  });
  if (mirror_ != nullptr) read_mirrored(slot);
  std::uint64_t hits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (slot.errors[i].empty()) stats_.bytes += slot.encoded_size[i];
    hits += slot.from_cache[i];
  }
  if (mirror_ != nullptr) mirror_->count(hits, n - hits);
  stats_.operations += n;
  const StoreFigures store = store_figures(*read_ahead_);
  stats_.latency_p50_us = store.first_byte_p50_ms * 1e3;
  stats_.latency_p99_us = store.first_byte_p99_ms * 1e3;
  stats_.average_in_flight = store.average_in_flight;
  stats_.peak_in_flight = std::max(stats_.peak_in_flight, store.peak_in_flight);
  stats_.retries = store.retries;
  stats_.failed = store.failed;
}

void RemoteReads::attach(Report& report) const {
  report.store = store_figures(*read_ahead_);
  if (mirror_ != nullptr) report.cache = mirror_figures(*mirror_, dataset_);
}

void RemoteReads::read_mirrored(Slot& slot) {
  const auto dest = [&](std::size_t i) {
    return std::span<std::byte>(slot.encoded.data() + slot.encoded_offset[i],
                                static_cast<std::size_t>(slot.encoded_size[i]));
  };
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) continue;
    io::ReadRequest request;
    request.fd = mirror_->fd(dataset_.sample(slot.indices[i]).file);
    request.offset = dataset_.sample(slot.indices[i]).offset;
    request.dest = dest(i);
    slot.read_of_sample[i] = slot.reads.size();
    slot.reads.push_back(request);
  }
  if (slot.reads.empty()) return;
  reader_->read(slot.reads);
  // Only the samples whose copy reads badly are fetched again from the store.
  std::vector<std::size_t> again;
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.from_cache[i]) continue;
    const io::ReadRequest& request = slot.reads[slot.read_of_sample[i]];
    slot.read_of_sample[i] = kNoRead;
    if (request.error || !mirror_->verify(slot.indices[i], dest(i))) {
      mirror_->forget(slot.indices[i]);
      slot.from_cache[i] = 0;
      again.push_back(i);
    }
  }
  slot.reads.clear();
  fetch_alone(slot, again);
}

void RemoteReads::read_outside(Slot& slot) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < slot.count; ++i) total += slot.encoded_size[i];
  reserve_encoded(slot, total);
  std::vector<std::size_t> samples(slot.count);
  std::size_t at = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    samples[i] = i;
    slot.encoded_offset[i] = at;
    at += static_cast<std::size_t>(slot.encoded_size[i]);
  }
  fetch_alone(slot, samples);
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (slot.errors[i].empty()) stats_.bytes += slot.encoded_size[i];
  }
  stats_.operations += slot.count;
}

void RemoteReads::fetch_alone(Slot& slot, const std::vector<std::size_t>& samples) {
  if (samples.empty()) return;
  if (!refetch_)
    refetch_ = std::make_unique<io::RangeFetcher>(read_ahead_->settings().s3,
                                                  read_ahead_->settings().fetch);
  const auto dest = [&](std::size_t i) {
    return std::span<std::byte>(slot.encoded.data() + slot.encoded_offset[i],
                                static_cast<std::size_t>(slot.encoded_size[i]));
  };
  for (const std::size_t i : samples) {
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    io::FetchRequest request;
    request.url = dataset_.files()[ref.file].string();
    request.offset = ref.offset;
    request.dest = dest(i);
    request.tag = i;
    request.if_match = dataset_.etag(ref.file);
    refetch_->submit(std::move(request));
  }
  std::vector<io::FetchResult> done;
  while (refetch_->pending() > 0) refetch_->poll(std::chrono::milliseconds(100), done);
  for (const io::FetchResult& result : done) {
    const std::size_t i = result.tag;
    if (result.error) {
      slot.errors[i] = dataset_.describe(slot.indices[i]) + ": " + result.message;
    } else if (mirror_ != nullptr) {
      mirror_->store(slot.indices[i], dest(i));
    }
  }
}

}  // namespace feedrate
