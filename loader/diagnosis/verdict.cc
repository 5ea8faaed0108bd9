#include "loader/diagnosis/verdict.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "loader/diagnosis/capacity.h"
#include "loader/diagnosis/disk_advice.h"
#include "loader/diagnosis/measured.h"
#include "loader/diagnosis/store_advice.h"
#include "loader/diagnosis/text.h"
#include "loader/diagnosis/throughput_model.h"

namespace feedrate {
namespace {

using text::format;
using text::thousands;

void cpu_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  v.advice.push_back(make_finding(
      "cpu.decode",
      format("decode needs %.2f ms of CPU per image (%.2f ms with the loader's other threads): %d "
             "decode thread(s) on %d core(s) deliver at most %s images/s (delivered %s)",
             m.costs.decode_ms_per_image, m.costs.cpu_ms_per_image, m.threads, m.cores,
             thousands(m.capacity(Resource::kCpu)).c_str(), thousands(m.delivered).c_str())));
  if (run.cpu_quota_cores > 0) {
    v.advice.push_back(make_finding(
        "cpu.quota",
        format("this process may use %d of the host's %d cores: its cgroup has a CPU quota of "
               "%.2f cores",
               run.cpus, run.host_cpus, run.cpu_quota_cores)));
  }
  if (run.num_workers < run.cpus) {
    const double rate = cpu_images_per_s(m.costs, run.cpus, m.cores);
    v.advice.push_back(make_remedy(
        "cpu.workers",
        format("raise the decode threads from %d to %d ({0}), the cores available", run.num_workers,
               run.cpus),
        {{"num_workers", std::to_string(run.cpus)}}, m.lifted(Resource::kCpu, rate),
        format("no hardware, the RAM of %d more worker(s)", run.cpus - run.num_workers)));
  }
  const double demand = run.training_images_per_s;
  const double cpu_s = m.costs.cpu_ms_per_image / 1e3;
  const int cores = demand > 0 ? static_cast<int>(std::ceil(demand * cpu_s))
                               : std::max(2 * run.cpus, run.cpus + 1);
  if (cores > run.cpus) {
    const double rate = cpu_images_per_s(m.costs, cores);
    v.advice.push_back(make_remedy(
        "cpu.cores",
        demand > 0
            ? format("feeding %s images/s takes about %d cores", thousands(demand).c_str(), cores)
            : format("each core adds about %s images/s: %d cores",
                     thousands(cpu_images_per_s(m.costs, 1)).c_str(), cores),
        m.lifted(Resource::kCpu, rate),
        format("%d more core(s)%s", cores - run.cpus,
               run.cpu_quota_cores > 0 ? format(": raise the CPU quota to %d cores", cores).c_str()
                                       : ""),
        format("this process has %d", run.cpus)));
  }
}

void ram_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  const double slot_mb = static_cast<double>(run.slot_bytes) / 1e6;
  v.advice.push_back(make_finding(
      "ram.slots",
      format("only %zu batch(es) may be in flight (%.0f MB each), and %s: they allow %s images/s",
             run.prefetch_batches, slot_mb, m.capacities.of(Resource::kRam).basis.c_str(),
             thousands(m.capacity(Resource::kRam)).c_str())));
  const double more = m.capacity(Resource::kRam) * static_cast<double>(run.prefetch_batches + 2) /
                      static_cast<double>(std::max<std::size_t>(run.prefetch_batches, 1));
  v.advice.push_back(make_remedy("ram.prefetch",
                                 "allow 2 more batches in flight ({0}, within the memory budget)",
                                 {{"prefetch_batches", std::to_string(run.prefetch_batches + 2)}},
                                 m.lifted(Resource::kRam, more),
                                 format("about %.0f MB more RAM (this process may use %.1f GB)",
                                        2 * slot_mb, gb(run.memory_bytes))));
}

void h2d_advice(const Measured& m, Verdict& v) {
  v.advice.push_back(
      make_finding("h2d.rate", "copies to the GPU: " + m.capacities.of(Resource::kH2d).basis));
  v.advice.push_back(make_remedy(
      "h2d.uint8",
      "send uint8 over PCIe and convert on the GPU ({0} or {1} on a CUDA device does), and check "
      "the GPU's PCIe link (nvidia-smi -q: Link Width and Generation)",
      {{"layout", "float16"}, {"layout", "float32"}}, 0, "no hardware"));
}

void consumer_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  v.advice.push_back(make_finding(
      "consumer.keeps_up",
      format("the loader keeps up: training took %s images/s and waited %.1f%% of the time",
             thousands(m.delivered).c_str(), 100 * v.stall_fraction)));
  if (m.costs.decode_ms_per_image <= 0) return;
  // A quarter more than training takes, so that the loader still keeps up on a busy machine.
  const int enough = std::max(
      1, static_cast<int>(std::ceil(1.25 * m.delivered * m.costs.decode_ms_per_image / 1e3)));
  if (enough < run.num_workers) {
    v.advice.push_back(make_remedy(
        "consumer.fewer_workers",
        format("%d decode thread(s) ({0}) would still keep up (their decoding delivers about %s "
               "images/s)",
               enough, thousands(cpu_images_per_s(m.costs, enough, m.cores)).c_str()),
        {{"num_workers", std::to_string(enough)}}, m.delivered,
        format("none: it frees %d core(s) and the RAM of %d worker(s)", run.num_workers - enough,
               run.num_workers - enough)));
  }
}

}  // namespace

Verdict judge(const Report& r) {
  Verdict v;
  v.stall_fraction = r.wall_s > 0 ? r.figures.stalled_s() / r.wall_s : 0;
  if (r.images == 0 || r.wall_s <= 0) {
    v.advice.push_back(
        make_finding("none", "nothing has been measured yet: no batch was delivered"));
    return v;
  }
  const Capacities& c = r.capacities;
  std::vector<const Capacity*> ranked;
  for (const Capacity& capacity : c.resources) {
    if (capacity.measured) ranked.push_back(&capacity);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Capacity* a, const Capacity* b) {
    return a->images_per_s < b->images_per_s;
  });
  // A consumer that hardly ever waits is the limit, whatever the loader's figures say.
  const Capacity* best = ranked.front();
  if (v.stall_fraction < kStallThreshold) best = &c.of(Resource::kConsumer);
  const auto rate_of = [&](const Capacity* capacity) {
    return capacity->measured ? capacity->images_per_s : c.delivered;
  };
  const Capacity* close = nullptr;
  for (const Capacity* capacity : ranked) {
    if (capacity == best) continue;
    if (capacity->images_per_s <= (1 + kCloseMargin) * rate_of(best)) close = capacity;
    break;
  }
  // Whether the delivered rate reaches a capacity is judged against the lowest, whatever binds.
  const Capacity* const lowest = best;
  // Estimates this close cannot tell the decodes from the store, but the read-ahead can: it kept
  // its requests in flight, so the decodes never held it back.
  if (close && best->resource == Resource::kCpu && close->resource == Resource::kIo &&
      store_in_flight_share(r.store) >= kStoreUnheld) {
    std::swap(best, close);
  }
  v.bottleneck = best->resource;
  if (close) v.runner_up = close->resource;
  const double lowest_rate = rate_of(lowest);
  v.reached = c.delivered >= lowest_rate / (1 + kReachMargin);

  const Measured m(r);
  // A remote source's io is its store: advice of its own, and no page cache holds it.
  const auto reads_advice = [&] {
    if (r.store.remote) {
      store_advice(r, v.advice);
    } else {
      disk_advice(m, v);
    }
  };
  switch (best->resource) {
    case Resource::kCpu:
      cpu_advice(m, v);
      break;
    case Resource::kIo:
      reads_advice();
      break;
    case Resource::kRam:
      ram_advice(m, v);
      break;
    case Resource::kH2d:
      h2d_advice(m, v);
      break;
    case Resource::kConsumer:
      consumer_advice(m, v);
      break;
  }
  if (v.runner_up == Resource::kCpu) cpu_advice(m, v);
  if (v.runner_up == Resource::kIo) reads_advice();
  if (!r.store.remote) page_cache_advice(m, v);
  if (!v.reached) {
    std::string why = "filling and draining the pipeline at the start and end of each epoch";
    if (lowest->resource == Resource::kCpu) {
      why = format(
          "other processes on this machine: the loader's threads got %.1f of this "
          "process's %d core(s)",
          r.figures.loader_cpu_s / r.wall_s, std::max(1, r.run.cpus));
    }
    v.advice.push_back(make_finding(
        "unexplained",
        format("the delivered %s images/s stays below every capacity (the lowest, %s, is %s): "
               "the wall time also holds what no capacity counts, most likely %s",
               thousands(c.delivered).c_str(), resource_name(lowest->resource),
               thousands(lowest_rate).c_str(), why.c_str())));
  }
  return v;
}

Advice packing_advice(const Report& report, const PackingGain& gain) {
  const ImageCosts now = image_costs(report);
  const ImageCosts packed = packed_costs(now, gain.decode_ratio, gain.bytes_ratio);
  const int threads = std::max(1, report.run.num_workers);
  const int cores = std::max(1, report.run.cpus);
  const double before = cpu_images_per_s(now, threads, cores);
  const double after = cpu_images_per_s(packed, threads, cores);
  const double rate = lifted(report.capacities, Resource::kCpu, after);
  return make_remedy(
      "cpu.pack",
      format("pack the dataset (feedrate pack DATASET OUT): its JPEGs, transcoded losslessly "
             "with restart markers, decode a train crop in %.2fx the CPU (measured on %zu of "
             "them), so the cpu capacity becomes about %s images/s instead of %s (%.2fx)",
             gain.decode_ratio, gain.samples, thousands(after).c_str(), thousands(before).c_str(),
             after / before),
      rate,
      format("a %.1f GB copy of the dataset (%.2fx its bytes), no hardware",
             gb(report.run.dataset_bytes) * gain.bytes_ratio, gain.bytes_ratio));
}

}  // namespace feedrate
