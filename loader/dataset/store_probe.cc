#include "loader/dataset/store_probe.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "feedrate/error.h"
#include "io/remote/brace_pattern.h"
#include "io/remote/object_store.h"
#include "io/remote/range_fetcher.h"
#include "loader/dataset/remote_pack.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {
namespace {

using Clock = std::chrono::steady_clock;

// The source's objects, the largest first (a prefix is listed; a pattern, the shards of a pack
// index or a URL is stat'ed).
std::vector<io::ObjectInfo> objects_of(io::ObjectStore& store, const std::string& source,
                                       std::size_t most) {
  std::vector<io::ObjectInfo> objects;
  const auto take = [](auto result) {
    if (!result.ok()) throw Error(result.message);
    return std::move(result.value);
  };
  if (io::has_brace_pattern(source) || names_pack_index(source)) {
    std::vector<std::string> urls;
    try {
      urls = names_pack_index(source) ? read_remote_pack(store, source).shard_urls
                                      : io::expand_braces(source);
    } catch (const std::invalid_argument& e) {
      throw Error(e.what());
    }
    urls.resize(std::min(urls.size(), most));
    for (const std::string& url : urls) objects.push_back(take(store.stat(url)));
  } else if (source.back() == '/' || io::parse_url(source).scheme == io::UrlScheme::kS3) {
    const io::RemoteResult<io::ObjectInfo> one = store.stat(source);
    objects = one.ok() ? std::vector<io::ObjectInfo>{one.value}
                       : take(store.list(source.back() == '/' ? source : source + "/"));
  } else {
    objects.push_back(take(store.stat(source)));
  }
  std::erase_if(objects, [](const io::ObjectInfo& o) { return o.size == 0; });
  if (objects.empty()) throw Error(source + ": no objects with bytes to measure");
  std::sort(objects.begin(), objects.end(),
            [](const io::ObjectInfo& a, const io::ObjectInfo& b) { return a.size > b.size; });
  objects.resize(std::min(objects.size(), most));
  return objects;
}

// Runs `requests` on a fetcher of `in_flight`; returns the seconds they took.
double fetch_all(const RemoteSettings& settings, unsigned in_flight,
                 std::vector<io::FetchRequest> requests, io::FetchStats* stats) {
  RemoteSettings one = settings;
  one.fetch.max_in_flight = in_flight;
  io::RangeFetcher fetcher(one.s3, one.fetch);
  const auto start = Clock::now();
  for (io::FetchRequest& request : requests) fetcher.submit(std::move(request));
  std::vector<io::FetchResult> done;
  while (fetcher.pending() > 0) fetcher.poll(std::chrono::milliseconds(100), done);
  for (const io::FetchResult& result : done) {
    if (result.error) throw Error(result.message);
  }
  if (stats != nullptr) *stats = fetcher.stats();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

StoreProbe probe_store(const std::string& source, const StoreProbeOptions& options) {
  const RemoteSettings settings = remote_settings(source);
  io::ObjectStore store(settings.s3, settings.store);
  const std::vector<io::ObjectInfo> objects = objects_of(store, source, options.connections);
  StoreProbe probe;
  probe.url = source;
  probe.objects = static_cast<unsigned>(objects.size());
  probe.connections = options.connections;

  // Latency: one byte at a time, one request after another.
  std::vector<std::byte> byte(options.latency_requests);
  std::vector<io::FetchRequest> requests;
  for (unsigned k = 0; k < options.latency_requests; ++k) {
    const io::ObjectInfo& object = objects[k % objects.size()];
    requests.push_back({object.url, (object.size / 2 + k) % object.size, {&byte[k], 1}, k, {}});
  }
  io::FetchStats stats;
  fetch_all(settings, 1, std::move(requests), &stats);
  probe.first_byte_p50_ms = stats.first_byte_p50_ms;
  probe.first_byte_p99_ms = stats.first_byte_p99_ms;

  // One connection: one GET of up to half the budget.
  const std::uint64_t one_bytes = std::min(objects.front().size, options.bytes / 2);
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::max(one_bytes, options.bytes / 2)));
  requests.clear();
  requests.push_back({objects.front().url, 0, {buffer.data(), one_bytes}, 0, {}});
  probe.one_connection_mb_per_s =
      static_cast<double>(one_bytes) / 1e6 / fetch_all(settings, 1, std::move(requests), nullptr);

  // Many connections: the other half of the budget in `connections` GETs at once.
  const std::uint64_t each = options.bytes / 2 / options.connections;
  requests.clear();
  std::uint64_t total = 0;
  for (unsigned k = 0; k < options.connections; ++k) {
    const io::ObjectInfo& object = objects[k % objects.size()];
    const std::uint64_t size = std::min(each, object.size);
    const std::uint64_t offset = (k / objects.size() * each) % (object.size - size + 1);
    requests.push_back({object.url, offset, {buffer.data() + total, size}, k, {}});
    total += size;
  }
  probe.parallel_mb_per_s = static_cast<double>(total) / 1e6 /
                            fetch_all(settings, options.connections, std::move(requests), nullptr);
  return probe;
}

}  // namespace feedrate
