#include "loader/diagnosis/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "io/disk_class.h"
#include "io/throttle.h"
#include "loader/diagnosis/capacity.h"
#include "loader/diagnosis/store_advice.h"
#include "loader/diagnosis/text.h"
#include "loader/diagnosis/throughput_model.h"

namespace feedrate {
namespace {

using text::format;
using text::thousands;

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

const io::DiskClass& disk_class(const char* name) {
  for (const io::DiskClass& c : io::disk_classes()) {
    if (c.name == name) return c;
  }
  return io::disk_classes().front();
}

// Disk labels are acronyms read letter by letter ("an HDD", "an NVMe SSD"), except SATA.
const char* article(const std::string& label) {
  return label.rfind("SATA", 0) == 0 ? "a" : "an";
}

double gb(std::uint64_t bytes) {
  return static_cast<double>(bytes) / 1e9;
}

Advice finding(const char* kind, std::string cause) {
  Advice a;
  a.kind = kind;
  a.cause = std::move(cause);
  return a;
}

Advice remedy(const char* kind, std::string what, double projected, std::string cost,
              std::string cause = {}) {
  Advice a;
  a.kind = kind;
  a.cause = std::move(cause);
  a.remedy = std::move(what);
  a.projected_images_per_s = projected;
  a.cost = std::move(cost);
  return a;
}

// What the figures of one run say, computed once for every advice line.
struct Measured {
  const Report& report;
  const Capacities& capacities;
  double delivered = 0;  // images/s
  ImageCosts costs;
  double read_mb_s = 0, reads_per_s = 0, bytes_per_read = 0;
  int threads = 1;        // decode threads
  int cores = 1;          // available to the loader
  io::ThrottleSpec disk;  // the emulated disk; unlimited when unknown

  double lifted(const char* resource, double capacity) const {
    return feedrate::lifted(capacities, resource, capacity);
  }
  double capacity(const char* resource) const { return capacities.of(resource).images_per_s; }
  bool measured(const char* resource) const { return capacities.of(resource).measured; }
};

// Why the disk is slow: too many small reads for its seek rate, too many bytes for its
// bandwidth, or too few reads in flight for its latency.
enum class DiskLimit { kIops, kBandwidth, kLatency };

DiskLimit disk_limit(const Measured& m) {
  if (m.disk.limited()) {
    // The emulated disk is known: the limit it comes closest to.
    const double bandwidth = m.disk.mb_per_s > 0 ? m.read_mb_s / m.disk.mb_per_s : 0;
    const double iops = m.disk.iops > 0 ? m.reads_per_s / m.disk.iops : 0;
    const double latency = m.disk.latency_us > 0 ? m.reads_per_s * m.disk.latency_us * 1e-6 /
                                                       std::max(1u, m.report.run.queue_depth)
                                                 : 0;
    if (latency > bandwidth && latency > iops) return DiskLimit::kLatency;
    return iops > bandwidth ? DiskLimit::kIops : DiskLimit::kBandwidth;
  }
  // An unknown disk: small reads at no more than a few hundred per second are a seeking disk's
  // signature (an HDD does ~100-200 random reads/s); otherwise the bytes are the limit.
  const io::ThrottleSpec& hdd = disk_class("hdd").spec;
  return m.bytes_per_read < 1e6 && m.reads_per_s <= 2 * hdd.iops ? DiskLimit::kIops
                                                                 : DiskLimit::kBandwidth;
}

void io_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  const io::ThrottleSpec& hdd = disk_class("hdd").spec;
  // The disk the projections run on: the emulated one, or for an unknown seeking disk an HDD.
  const DiskLimit limit = disk_limit(m);
  const io::ThrottleSpec disk = m.disk.limited()            ? m.disk
                                : limit == DiskLimit::kIops ? hdd
                                                            : io::ThrottleSpec{m.read_mb_s, 0, 0};
  const std::string which =
      m.disk.limited() ? "the emulated disk (" + io::describe(m.disk) + ")" : "this disk";
  if (limit == DiskLimit::kIops) {
    v.advice.push_back(finding(
        "io.iops",
        format("reads delivered %.0f MB/s in %s reads/s (%.0f KB per read): IOPS-bound, not "
               "bandwidth-bound: each small random read pays a seek, and %s does about %s random "
               "reads/s (an HDD's seek rate)",
               m.read_mb_s, thousands(m.reads_per_s).c_str(), m.bytes_per_read / 1e3, which.c_str(),
               thousands(m.disk.limited() ? disk.iops : m.reads_per_s).c_str())));
    if (run.chunk_bytes > 0 && run.shuffle != "blocks") {
      // A full shuffle or storage order: blocks read whole never take more reads than either.
      const ImageCosts sequential =
          costs_under_shuffle(m.costs, ShuffleMode::kFull, ShuffleMode::kBlocks,
                              {0, static_cast<double>(run.chunk_bytes)});
      const double rate = disk_images_per_s(sequential, disk);
      v.advice.push_back(remedy(
          "io.blocks",
          format("%s: reads of %.1f MB chunks (%.2f reads per image instead of %.2f) let this "
                 "disk deliver %s images/s",
                 run.shards() ? "shuffle in blocks (--shuffle blocks) or read in storage order "
                                "(--no-shuffle)"
                              : "store the images in tar shards, then shuffle in blocks "
                                "(--shuffle blocks) or read them in storage order (--no-shuffle)",
                 static_cast<double>(run.chunk_bytes) / 1e6, sequential.reads_per_image,
                 m.costs.reads_per_image, thousands(rate).c_str()),
          m.lifted("io", rate),
          run.shards() ? "no hardware, a less random order"
                       : format("a %.1f GB copy of the dataset and a less random order",
                                gb(run.dataset_bytes))));
    }
  } else if (limit == DiskLimit::kBandwidth) {
    const io::DiskClass& near = io::match_disk_class(m.read_mb_s);
    v.advice.push_back(finding(
        "io.bandwidth",
        format(
            "reads delivered %.0f MB/s (%.0f KB per image, %s reads/s): bandwidth-bound: %s "
            "reads no faster (%s %.0f MB/s)",
            m.read_mb_s, m.costs.bytes_per_image / 1e3, thousands(m.reads_per_s).c_str(),
            which.c_str(),
            m.disk.limited()
                ? "its limit:"
                : ("about " + std::string(article(near.label)) + " " + near.label + "'s").c_str(),
            m.disk.limited() ? m.disk.mb_per_s : near.spec.mb_per_s)));
  } else {
    ImageCosts deeper = m.costs;
    deeper.queue_depth = 2 * std::max(1u, run.queue_depth);
    const double rate = disk_images_per_s(deeper, disk);
    v.advice.push_back(finding(
        "io.latency",
        format("reads delivered %.0f MB/s in %s reads/s: latency-bound: each read takes %.0f us "
               "and at most %u are in flight",
               m.read_mb_s, thousands(m.reads_per_s).c_str(), disk.latency_us, run.queue_depth)));
    v.advice.push_back(remedy(
        "io.queue_depth",
        format("raise io_queue_depth (--queue-depth) from %u to %u: this disk then delivers %s "
               "images/s",
               run.queue_depth, deeper.queue_depth, thousands(rate).c_str()),
        m.lifted("io", rate), "no hardware, a few MB of read buffers"));
  }

  // A faster disk class: the slowest that lifts the run to what the other resources allow.
  const double goal = m.lifted("io", kUnlimited);
  const double now = disk_images_per_s(m.costs, disk);
  if (m.measured("consumer") && m.report.run.training_images_per_s > 0) {
    const double demand = m.capacity("consumer");
    v.advice.push_back(finding(
        "io.demand", format("feeding %s images/s needs %.0f MB/s and %s reads/s",
                            thousands(demand).c_str(), demand * m.costs.bytes_per_image / 1e6,
                            thousands(demand * m.costs.reads_per_image).c_str())));
  }
  const io::DiskClass* faster = nullptr;
  for (const io::DiskClass& c : io::disk_classes()) {
    const double rate = disk_images_per_s(m.costs, c.spec);
    // Network storage is no remedy for training reads (docs/domain.md); a class barely faster is
    // none.
    if (c.name == "network" || rate <= 1.2 * now) continue;
    if (!faster || disk_images_per_s(m.costs, faster->spec) < goal) faster = &c;
    if (rate >= goal) break;
  }
  if (faster) {
    const double rate = disk_images_per_s(m.costs, faster->spec);
    const char* a = article(faster->label);
    v.advice.push_back(
        remedy("io.disk_class",
               format("%s %s (%s) delivers %s images/s of these reads", a, faster->label.c_str(),
                      io::describe(faster->spec).c_str(), thousands(rate).c_str()),
               m.lifted("io", rate), format("%s %s", a, faster->label.c_str())));
  }
}

// Whatever the verdict: whether the dataset stays in page cache across epochs.
void page_cache_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  if (run.memory_bytes == 0) return;
  const bool io_binds = v.bottleneck == "io" || v.runner_up == "io";
  const std::uint64_t in_flight = run.slots * run.slot_bytes;
  const std::uint64_t needed = run.dataset_bytes + in_flight;
  const std::string limit_text =
      run.container_limit ? format("this container's %.1f GB memory limit", gb(run.memory_bytes))
                          : format("this machine's %.1f GB of RAM", gb(run.memory_bytes));
  if (needed > run.memory_bytes) {
    const std::string cause = format(
        "every epoch reads the %.1f GB dataset from disk again (it does not fit in page "
        "cache under %s)",
        gb(run.dataset_bytes), limit_text.c_str());
    if (!io_binds) {
      v.advice.push_back(
          finding("page_cache", cause + format("; the disk keeps up with %.1fx headroom",
                                               m.capacities.of("io").headroom)));
      return;
    }
    v.advice.push_back(
        remedy("page_cache",
               format("with %.1f GB of memory, epochs after the first would read none", gb(needed)),
               m.lifted("io", kUnlimited),
               format("%.1f GB more RAM", gb(needed - run.memory_bytes)), cause));
    // The pack cache (LoaderOptions::cache_dir) on a local NVMe disk: later epochs read it.
    const double local = disk_images_per_s(m.costs, disk_class("nvme").spec);
    if (local > 1.2 * m.capacity("io")) {
      v.advice.push_back(remedy(
          "io.cache_dir",
          format("or cache the dataset on a local NVMe SSD (cache_dir=PATH, --cache-dir): epochs "
                 "after the first read it there, at up to %s images/s",
                 thousands(local).c_str()),
          m.lifted("io", local),
          format("%.1f GB of local disk (about 1.02x the dataset), and the CPU to copy it in "
                 "the first epochs",
                 gb(run.dataset_bytes) * 1.02)));
    }
  } else if (io_binds) {
    v.advice.push_back(remedy(
        "page_cache",
        format("keep the dataset in page cache: it fits under %s, so epochs after the first read "
               "no disk",
               limit_text.c_str()),
        m.lifted("io", kUnlimited), format("%.1f GB of RAM for the cache", gb(run.dataset_bytes))));
  }
}

void cpu_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  v.advice.push_back(finding(
      "cpu.decode",
      format("decode needs %.2f ms of CPU per image (%.2f ms with the loader's other threads): %d "
             "decode thread(s) on %d core(s) deliver at most %s images/s (delivered %s)",
             m.costs.decode_ms_per_image, m.costs.cpu_ms_per_image, m.threads, m.cores,
             thousands(m.capacity("cpu")).c_str(), thousands(m.delivered).c_str())));
  if (run.cpu_quota_cores > 0) {
    v.advice.push_back(finding(
        "cpu.quota",
        format("this process may use %d of the host's %d cores: its cgroup has a CPU quota of "
               "%.2f cores",
               run.cpus, run.host_cpus, run.cpu_quota_cores)));
  }
  if (run.num_workers < run.cpus) {
    const double rate = cpu_images_per_s(m.costs, run.cpus, m.cores);
    v.advice.push_back(remedy(
        "cpu.workers",
        format("raise num_workers from %d to %d, the cores available", run.num_workers, run.cpus),
        m.lifted("cpu", rate),
        format("no hardware, the RAM of %d more worker(s)", run.cpus - run.num_workers)));
  }
  const double demand = run.training_images_per_s;
  const double cpu_s = m.costs.cpu_ms_per_image / 1e3;
  const int cores = demand > 0 ? static_cast<int>(std::ceil(demand * cpu_s))
                               : std::max(2 * run.cpus, run.cpus + 1);
  if (cores > run.cpus) {
    const double rate = cpu_images_per_s(m.costs, cores);
    v.advice.push_back(remedy(
        "cpu.cores",
        demand > 0
            ? format("feeding %s images/s takes about %d cores", thousands(demand).c_str(), cores)
            : format("each core adds about %s images/s: %d cores",
                     thousands(cpu_images_per_s(m.costs, 1)).c_str(), cores),
        m.lifted("cpu", rate),
        format("%d more core(s)%s", cores - run.cpus,
               run.cpu_quota_cores > 0 ? format(": raise the CPU quota to %d cores", cores).c_str()
                                       : ""),
        format("this process has %d", run.cpus)));
  }
}

void ram_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  const double slot_mb = static_cast<double>(run.slot_bytes) / 1e6;
  v.advice.push_back(finding(
      "ram.slots",
      format("only %zu batch(es) may be in flight (%.0f MB each), and %s: they allow %s images/s",
             run.slots, slot_mb, m.capacities.of("ram").basis.c_str(),
             thousands(m.capacity("ram")).c_str())));
  const double more = m.capacity("ram") * static_cast<double>(run.slots + 2) /
                      static_cast<double>(std::max<std::size_t>(run.slots, 1));
  v.advice.push_back(remedy(
      "ram.prefetch",
      format("allow 2 more batches in flight (prefetch_batches=%zu, within memory_budget_mb)",
             run.slots + 2),
      m.lifted("ram", more),
      format("about %.0f MB more RAM (this process may use %.1f GB)", 2 * slot_mb,
             gb(run.memory_bytes))));
}

void h2d_advice(const Measured& m, Verdict& v) {
  v.advice.push_back(finding("h2d.rate", "copies to the GPU: " + m.capacities.of("h2d").basis));
  v.advice.push_back(
      remedy("h2d.uint8",
             "send uint8 over PCIe and convert on the GPU (layout float16/float32 on a CUDA device "
             "does), and check the GPU's PCIe link (nvidia-smi -q: Link Width and Generation)",
             0, "no hardware"));
}

void consumer_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  v.advice.push_back(
      finding("consumer.keeps_up",
              format("the loader keeps up: training took %s images/s and waited %.1f%% of the time",
                     thousands(m.delivered).c_str(), 100 * v.stall_fraction)));
  if (m.costs.decode_ms_per_image <= 0) return;
  // A quarter more than training takes, so that the loader still keeps up on a busy machine.
  const int enough = std::max(
      1, static_cast<int>(std::ceil(1.25 * m.delivered * m.costs.decode_ms_per_image / 1e3)));
  if (enough < run.num_workers) {
    v.advice.push_back(remedy(
        "consumer.fewer_workers",
        format("num_workers=%d would still keep up (its decoding delivers about %s images/s)",
               enough, thousands(cpu_images_per_s(m.costs, enough, m.cores)).c_str()),
        m.delivered,
        format("none: it frees %d core(s) and the RAM of %d worker(s)", run.num_workers - enough,
               run.num_workers - enough)));
  }
}

Measured measure(const Report& r) {
  Measured m{r, r.capacities};
  m.delivered = r.capacities.delivered;
  m.costs = image_costs(r);
  m.read_mb_s = static_cast<double>(r.figures.bytes_read) / 1e6 / r.wall_s;
  m.reads_per_s = static_cast<double>(r.figures.read_operations) / r.wall_s;
  m.bytes_per_read = r.figures.read_operations > 0
                         ? static_cast<double>(r.figures.bytes_read) /
                               static_cast<double>(r.figures.read_operations)
                         : m.costs.bytes_per_image;
  m.threads = std::max(1, r.run.num_workers);
  m.cores = std::max(1, r.run.cpus);
  m.disk = emulated_disk(r.run);
  return m;
}

}  // namespace

Verdict judge(const Report& r) {
  Verdict v;
  v.stall_fraction = r.wall_s > 0 ? r.figures.stalled_s() / r.wall_s : 0;
  if (r.images == 0 || r.wall_s <= 0) {
    v.advice.push_back(finding("none", "nothing has been measured yet: no batch was delivered"));
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
  if (v.stall_fraction < kStallThreshold) best = &c.of("consumer");
  v.bottleneck = best->resource;
  const double best_rate = best->measured ? best->images_per_s : c.delivered;
  for (const Capacity* capacity : ranked) {
    if (capacity == best) continue;
    if (capacity->images_per_s <= (1 + kCloseMargin) * best_rate) v.runner_up = capacity->resource;
    break;
  }
  v.reached = c.delivered >= best_rate / (1 + kReachMargin);

  const Measured m = measure(r);
  // A remote source's io is its store: advice of its own, and no page cache holds it.
  const auto reads_advice = [&] {
    if (r.store.remote) {
      store_advice(r, v.advice);
    } else {
      io_advice(m, v);
    }
  };
  if (v.bottleneck == "cpu") {
    cpu_advice(m, v);
  } else if (v.bottleneck == "io") {
    reads_advice();
  } else if (v.bottleneck == "ram") {
    ram_advice(m, v);
  } else if (v.bottleneck == "h2d") {
    h2d_advice(m, v);
  } else {
    consumer_advice(m, v);
  }
  if (v.runner_up == "cpu" && v.bottleneck != "cpu") cpu_advice(m, v);
  if (v.runner_up == "io" && v.bottleneck != "io") reads_advice();
  if (!r.store.remote) page_cache_advice(m, v);
  if (!v.reached) {
    std::string why = "filling and draining the pipeline at the start and end of each epoch";
    if (v.bottleneck == "cpu") {
      why = format(
          "other processes on this machine: the loader's threads got %.1f of this "
          "process's %d core(s)",
          r.figures.loader_cpu_s / r.wall_s, std::max(1, r.run.cpus));
    }
    v.advice.push_back(finding(
        "unexplained",
        format("the delivered %s images/s stays below every capacity (the lowest, %s, is %s): "
               "the wall time also holds what no capacity counts, most likely %s",
               thousands(c.delivered).c_str(), best->resource.c_str(), thousands(best_rate).c_str(),
               why.c_str())));
  }
  return v;
}

std::string verdict_summary(const Verdict& v) {
  if (v.bottleneck == "none") return "nothing measured yet";
  return v.runner_up.empty() ? v.bottleneck : v.bottleneck + ", " + v.runner_up + " close behind";
}

std::string advice_text(const Advice& a, double delivered) {
  std::string line = a.cause;
  if (a.remedy.empty()) return line;
  if (!line.empty()) line += "; ";
  line += a.remedy;
  if (a.projected_images_per_s > 0) {
    line += format(": about %s images/s", thousands(a.projected_images_per_s).c_str());
    if (delivered > 0 && std::isfinite(a.projected_images_per_s)) {
      line += format(" (%.1fx now)", a.projected_images_per_s / delivered);
    }
  }
  if (!a.cost.empty()) line += "; costs: " + a.cost;
  return line;
}

std::string capacities_text(const Capacities& c, const Verdict& v) {
  std::string line;
  for (const Capacity& capacity : c.resources) {
    if (!line.empty()) line += " · ";
    line += capacity.resource + " ";
    if (!capacity.measured) {
      line += "not measured";
    } else if (capacity.resource == v.bottleneck) {
      line += thousands(capacity.images_per_s) + " images/s (binds)";
    } else {
      line += thousands(capacity.images_per_s) +
              (std::isfinite(capacity.headroom) ? format(" (%.1fx)", capacity.headroom) : "");
    }
  }
  return line;
}

Advice packing_advice(const Report& report, const PackingGain& gain) {
  const ImageCosts now = image_costs(report);
  const ImageCosts packed = packed_costs(now, gain.decode_ratio, gain.bytes_ratio);
  const int threads = std::max(1, report.run.num_workers);
  const int cores = std::max(1, report.run.cpus);
  const double before = cpu_images_per_s(now, threads, cores);
  const double after = cpu_images_per_s(packed, threads, cores);
  const double rate = lifted(report.capacities, "cpu", after);
  return remedy(
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
