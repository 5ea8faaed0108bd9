#include "loader/diagnosis/capacity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "io/throttle.h"
#include "loader/diagnosis/store_scaling.h"
#include "loader/diagnosis/text.h"

namespace feedrate {
namespace {

using text::format;
using text::thousands;

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

Capacity measured(Resource resource, double images_per_s, std::string basis) {
  Capacity c;
  c.resource = resource;
  c.measured = true;
  c.images_per_s = images_per_s;
  c.basis = std::move(basis);
  return c;
}

Capacity not_measured(Resource resource, std::string why) {
  Capacity c;
  c.resource = resource;
  c.basis = std::move(why);
  return c;
}

// What a remote store sustains with the requests the read-ahead may keep in flight: the rate it
// delivered while they were nearly all in flight (the link or the store's time to first byte
// then binds); else the rate of its busiest band with the most requests, scaled to the requests
// allowed as the bands say the rate grew with them (store_scaling.h); else, when the bands say
// nothing (too few requests apart, or a rate that fell with them), one request's rate times the
// requests allowed (a projection: the link may bind sooner). Without a known limit (max_in_flight
// 0) there is nothing to project to, so the rate it delivered is the figure. The I/O thread's
// reading time alone cannot say it: it waits for slots as well as for the store, so on a link that
// binds it counts the decodes' share of the waiting.
double store_images_per_s(const StoreFigures& s, double images, std::string& basis) {
  if (!s.remote || s.bytes == 0 || s.busy_s <= 0 || images <= 0) return kUnlimited;
  const double per_image = static_cast<double>(s.bytes) / images;
  if (s.max_in_flight == 0 || store_saturated(s)) {
    const double rate = s.bytes_per_s / per_image;
    basis += format("; the store (%s) delivered %s with %.1f of %u requests in flight (%.0f MB/s)",
                    s.scheme.c_str(), thousands(rate).c_str(), s.average_in_flight, s.max_in_flight,
                    s.bytes_per_s / 1e6);
    return rate;
  }
  if (const auto scaling = store_scaling(s); scaling && !scaling->fell()) {
    const double rate = projected_bytes_per_s(*scaling, s.max_in_flight) / per_image;
    basis += format(
        "; the store (%s) would deliver %s with its %u requests in flight: %.0f MB/s with %.1f "
        "in flight, %.0f MB/s with %.1f (the rate grew as requests^%.2f)",
        s.scheme.c_str(), thousands(rate).c_str(), s.max_in_flight, scaling->low.bytes_per_s / 1e6,
        scaling->low.in_flight, scaling->high.bytes_per_s / 1e6, scaling->high.in_flight,
        scaling->elasticity());
    return rate;
  }
  const double rate = s.bytes_per_s_per_connection * s.max_in_flight / per_image;
  basis += format(
      "; the store (%s) would deliver %s with its %u requests in flight (%.1f MB/s "
      "a request, %.1f in flight on average)",
      s.scheme.c_str(), thousands(rate).c_str(), s.max_in_flight,
      s.bytes_per_s_per_connection / 1e6, s.average_in_flight);
  return rate;
}

Capacity io_capacity(const Report& r, const ImageCosts& costs, double images) {
  const RunFigures& f = r.figures;
  const double reading = f.read_busy_s > 0 ? images / f.read_busy_s : kUnlimited;
  const io::ThrottleSpec disk = emulated_disk(r.run);
  const double limit = disk_images_per_s(costs, r.run.queue_depth, disk);
  std::string basis =
      format("%s images per second of reading (%.0f MB/s)", thousands(reading).c_str(),
             f.read_busy_s > 0 ? static_cast<double>(f.bytes_read) / 1e6 / f.read_busy_s : 0.0);
  if (disk.limited()) {
    basis += format("; the emulated disk (%s) allows %s", io::describe(disk).c_str(),
                    thousands(limit).c_str());
  }
  const double store = store_images_per_s(r.store, images, basis);
  return measured(Resource::kIo, std::min({reading, limit, store}), basis);
}

Capacity cpu_capacity(const Report& r, const ImageCosts& costs) {
  const int threads = std::max(1, r.run.num_workers);
  const int cores = std::max(1, r.run.cpus);
  return measured(
      Resource::kCpu, cpu_capacity_images_per_s(r.run, costs),
      format("%.2f ms of decode CPU per image on %d thread(s), %.2f ms of loader CPU per image "
             "on %d core(s), the decodes on a core %.0f%% of their time",
             costs.decode_ms_per_image, threads, costs.cpu_ms_per_image, cores,
             100 * costs.cpu_share));
}

SlotCycle slot_cycle(const Report& r, double images) {
  const RunFigures& f = r.figures;
  const auto batches = static_cast<double>(std::max<std::uint64_t>(f.batches, 1));
  const double threads = std::max(1, std::min(std::max(1, r.run.num_workers), r.run.cpus));
  SlotCycle cycle;
  cycle.slots = static_cast<double>(std::max<std::size_t>(r.run.prefetch_batches, 1));
  cycle.batch_size = static_cast<double>(std::max<std::size_t>(r.run.batch_size, 1));
  cycle.read_s = f.read_busy_s / batches;
  // CPU time, as the cpu capacity takes it: a decode preempted by other processes waits, which
  // is not what the slot costs.
  cycle.decode_s = f.decode_cpu_s / images * cycle.batch_size / threads;
  cycle.copy_s = f.copy_busy_s / batches;
  // The consumer holds a batch for its step (at num_workers 0 it also decodes it inside next():
  // that is the decode's share above).
  cycle.held_s = f.consumer_busy_s / batches;
  return cycle;
}

Capacity ram_capacity(const Report& r, const SlotCycle& cycle) {
  return measured(Resource::kRam, ram_images_per_s(cycle),
                  format("%zu batch(es) in flight, each needing its slot for %.1f ms (reads %.1f, "
                         "decodes %.1f, copy %.1f, held by the consumer %.1f)",
                         r.run.prefetch_batches, cycle.total_s() * 1e3, cycle.read_s * 1e3,
                         cycle.decode_s * 1e3, cycle.copy_s * 1e3, cycle.held_s * 1e3));
}

Capacity h2d_capacity(const Report& r, double images) {
  const RunFigures& f = r.figures;
  if (r.run.device.rfind("cuda", 0) != 0)
    return not_measured(Resource::kH2d, "no GPU: batches stay on the host");
  if (f.copy_busy_s <= 0) return not_measured(Resource::kH2d, "no copy measured yet");
  return measured(
      Resource::kH2d, images / f.copy_busy_s,
      format("%.2f GB/s of copies", static_cast<double>(f.copy_bytes) / 1e9 / f.copy_busy_s));
}

Capacity consumer_capacity(const Report& r, double images) {
  const RunFigures& f = r.figures;
  if (r.run.training_images_per_s > 0) {
    return measured(Resource::kConsumer, r.run.training_images_per_s, "the training rate given");
  }
  if (f.consumer_busy_s >= kMeasurableStepShare * r.wall_s && f.consumer_busy_s > 0) {
    return measured(Resource::kConsumer, images / f.consumer_busy_s,
                    format("%.1f ms per batch outside next()", r.consumer_ms_per_batch));
  }
  return not_measured(Resource::kConsumer,
                      "the consumer hardly works between batches (a bare loop)");
}

}  // namespace

double store_in_flight_share(const StoreFigures& store) {
  return store.max_in_flight > 0 ? store.average_in_flight / store.max_in_flight : 0;
}

bool store_saturated(const StoreFigures& store) {
  return store.max_in_flight > 0 && store_in_flight_share(store) >= kStoreSaturated;
}

io::ThrottleSpec emulated_disk(const RunSetting& run) {
  if (run.throttle.empty()) return {};
  try {
    return io::parse_throttle(run.throttle);
  } catch (const std::invalid_argument&) {
    return {};  // the loader refuses such a run; a hand-made report just has no emulated disk
  }
}

double ram_images_per_s(const SlotCycle& cycle) {
  const double total = cycle.total_s();
  return total > 0 ? cycle.slots * cycle.batch_size / total : kUnlimited;
}

double lifted(const Capacities& c, Resource resource, double capacity) {
  SlotCycle cycle = c.cycle;
  const double now = c.of(resource).images_per_s;
  const double scale = capacity > 0 && std::isfinite(now) ? now / capacity : 1;
  switch (resource) {
    case Resource::kIo:
      cycle.read_s *= scale;
      break;
    case Resource::kCpu:
      cycle.decode_s *= scale;
      break;
    case Resource::kH2d:
      cycle.copy_s *= scale;
      break;
    case Resource::kConsumer:
      cycle.held_s *= scale;
      break;
    case Resource::kRam:
      break;
  }
  double rate = resource == Resource::kRam ? capacity : std::min(capacity, ram_images_per_s(cycle));
  for (const Capacity& other : c.resources) {
    if (other.measured && other.resource != resource && other.resource != Resource::kRam) {
      rate = std::min(rate, other.images_per_s);
    }
  }
  return rate;
}

const Capacity& Capacities::of(Resource resource) const {
  for (const Capacity& c : resources) {
    if (c.resource == resource) return c;
  }
  throw std::invalid_argument(std::string("no capacity for ") + resource_name(resource));
}

ImageCosts image_costs(const Report& r) {
  return image_costs(r.figures, r.images);
}

ImageCosts image_costs(const RunFigures& f, std::uint64_t delivered) {
  ImageCosts costs;
  if (delivered == 0) return costs;
  const auto images = static_cast<double>(delivered);
  costs.decode_ms_per_image = f.decode_cpu_s * 1e3 / images;
  costs.cpu_ms_per_image = std::max(f.loader_cpu_s * 1e3 / images, costs.decode_ms_per_image);
  costs.bytes_per_image = static_cast<double>(f.bytes_read) / images;
  costs.reads_per_image = static_cast<double>(f.read_operations) / images;
  if (f.decode_busy_s > 0) costs.cpu_share = std::min(1.0, f.decode_cpu_s / f.decode_busy_s);
  return costs;
}

double cpu_capacity_images_per_s(const RunSetting& run, const ImageCosts& costs) {
  return cpu_images_per_s(costs, std::max(1, run.num_workers), std::max(1, run.cpus));
}

Capacities capacities(const Report& r) {
  Capacities c;
  for (std::size_t i = 0; i < kAllResources.size(); ++i) c.resources[i].resource = kAllResources[i];
  if (r.images == 0 || r.wall_s <= 0) {
    for (Capacity& capacity : c.resources) capacity.basis = "nothing measured yet";
    return c;
  }
  const auto images = static_cast<double>(r.images);
  c.delivered = images / r.wall_s;
  const ImageCosts costs = image_costs(r);
  c.cycle = slot_cycle(r, images);
  c.resources = {io_capacity(r, costs, images), cpu_capacity(r, costs), ram_capacity(r, c.cycle),
                 h2d_capacity(r, images), consumer_capacity(r, images)};
  for (Capacity& capacity : c.resources) {
    if (capacity.measured) capacity.headroom = capacity.images_per_s / c.delivered;
  }
  return c;
}

}  // namespace feedrate
