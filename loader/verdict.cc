#include "loader/verdict.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "io/disk_class.h"
#include "loader/throughput_model.h"

namespace feedrate {
namespace {

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char text[1024];
  std::snprintf(text, sizeof(text), pattern, args...);
  return text;
}

// "2,500" style thousands separators for rates, as people read them.
std::string thousands(double value) {
  std::string digits = std::to_string(static_cast<long long>(std::llround(value)));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

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

// What the figures of one run say, computed once for every advice line.
struct Measured {
  double delivered = 0;  // images/s
  double decode_s = 0;   // CPU seconds per image
  double bytes_per_image = 0;
  double demand = 0;  // images/s training asks for; 0 when unknown
  ImageCosts costs;
  double read_mb_s = 0, reads_per_s = 0, bytes_per_read = 0;
  int cores = 1;  // available to the loader's decode threads

  // What decoding on all available cores delivers, capped by what training asks for: the rate a
  // remedy elsewhere (disk, page cache, memory) can reach at most.
  double ceiling(double other_limit) const {
    double rate = std::min(other_limit, cpu_images_per_s(costs, cores));
    if (demand > 0) rate = std::min(rate, demand);
    return rate;
  }
  // "about 1,050 images/s with decoding on 2 cores (7.0x now)"
  std::string outcome(double other_limit) const {
    const double rate = ceiling(other_limit);
    return format("about %s images/s with decoding on %d core(s) (%.1fx now)",
                  thousands(rate).c_str(), cores, rate / delivered);
  }
};

double gb(std::uint64_t bytes) {
  return static_cast<double>(bytes) / 1e9;
}

// Why the disk is slow: too many small reads for its seek rate, too many bytes for its
// bandwidth, or too few reads in flight for its latency.
enum class DiskLimit { kIops, kBandwidth, kLatency };

DiskLimit disk_limit(const VerdictInputs& in, const Measured& m) {
  if (in.disk.limited()) {
    // The emulated disk is known: the limit it comes closest to.
    const double bandwidth = in.disk.mb_per_s > 0 ? m.read_mb_s / in.disk.mb_per_s : 0;
    const double iops = in.disk.iops > 0 ? m.reads_per_s / in.disk.iops : 0;
    const double latency =
        in.disk.latency_us > 0 ? m.reads_per_s * in.disk.latency_us * 1e-6 / in.queue_depth : 0;
    if (latency > bandwidth && latency > iops) return DiskLimit::kLatency;
    return iops > bandwidth ? DiskLimit::kIops : DiskLimit::kBandwidth;
  }
  // An unknown disk: small reads at no more than a few hundred per second are a seeking disk's
  // signature (an HDD does ~100-200 random reads/s); otherwise the bytes are the limit.
  const io::ThrottleSpec& hdd = disk_class("hdd").spec;
  return m.bytes_per_read < 1e6 && m.reads_per_s <= 2 * hdd.iops ? DiskLimit::kIops
                                                                 : DiskLimit::kBandwidth;
}

void io_advice(const VerdictInputs& in, const Measured& m, Verdict& v) {
  const io::ThrottleSpec& hdd = disk_class("hdd").spec;
  // The disk the projections run on: the emulated one, or for an unknown seeking disk an HDD.
  const DiskLimit limit = disk_limit(in, m);
  const io::ThrottleSpec disk = in.disk.limited()           ? in.disk
                                : limit == DiskLimit::kIops ? hdd
                                                            : io::ThrottleSpec{m.read_mb_s, 0, 0};
  const std::string which =
      in.disk.limited() ? "the emulated disk (" + io::describe(in.disk) + ")" : "this disk";
  if (limit == DiskLimit::kIops) {
    v.advice.push_back(
        format("reads delivered %.0f MB/s in %s reads/s (%.0f KB per read): IOPS-bound, not "
               "bandwidth-bound: each small random read pays a seek, and %s does about %s random "
               "reads/s (an HDD's seek rate)",
               m.read_mb_s, thousands(m.reads_per_s).c_str(), m.bytes_per_read / 1e3, which.c_str(),
               thousands(in.disk.limited() ? disk.iops : m.reads_per_s).c_str()));
    if (in.chunk_bytes > 0 && !in.shuffle_blocks) {
      // A full shuffle or storage order: blocks read whole never take more reads than either.
      const ImageCosts sequential =
          costs_under_shuffle(m.costs, ShuffleMode::kFull, ShuffleMode::kBlocks,
                              {0, static_cast<double>(in.chunk_bytes)});
      const double rate = disk_images_per_s(sequential, disk);
      v.advice.push_back(format(
          "%s: reads of %.1f MB chunks (%.2f reads per image instead of %.2f) let this disk "
          "deliver %s images/s, %s; costs: %s",
          in.shards
              ? "shuffle in blocks (--shuffle blocks) or read in storage order (--no-shuffle)"
              : "store the images in tar shards, then shuffle in blocks (--shuffle blocks) or "
                "read them in storage order (--no-shuffle)",
          static_cast<double>(in.chunk_bytes) / 1e6, sequential.reads_per_image,
          m.costs.reads_per_image, thousands(rate).c_str(), m.outcome(rate).c_str(),
          in.shards ? "no hardware, a less random order"
                    : format("a %.1f GB copy of the dataset and a less random order",
                             gb(in.dataset_bytes))
                          .c_str()));
    }
  } else if (limit == DiskLimit::kBandwidth) {
    const io::DiskClass& near = io::match_disk_class(m.read_mb_s);
    v.advice.push_back(format(
        "reads delivered %.0f MB/s (%.0f KB per image, %s reads/s): bandwidth-bound: %s reads "
        "no faster (%s %.0f MB/s)",
        m.read_mb_s, m.bytes_per_image / 1e3, thousands(m.reads_per_s).c_str(), which.c_str(),
        in.disk.limited()
            ? "its limit:"
            : ("about " + std::string(article(near.label)) + " " + near.label + "'s").c_str(),
        in.disk.limited() ? in.disk.mb_per_s : near.spec.mb_per_s));
  } else {
    ImageCosts deeper = m.costs;
    deeper.queue_depth = 2 * std::max(1u, in.queue_depth);
    const double rate = disk_images_per_s(deeper, disk);
    v.advice.push_back(format(
        "reads delivered %.0f MB/s in %s reads/s: latency-bound: each read takes %.0f us and at "
        "most %u are in flight",
        m.read_mb_s, thousands(m.reads_per_s).c_str(), disk.latency_us, in.queue_depth));
    v.advice.push_back(format(
        "raise io_queue_depth (--queue-depth) from %u to %u: this disk then delivers %s images/s, "
        "%s; costs: a few MB of read buffers",
        in.queue_depth, deeper.queue_depth, thousands(rate).c_str(), m.outcome(rate).c_str()));
  }

  // A faster disk class: the slowest that reaches the goal for these same reads.
  const double goal = m.ceiling(kUnlimited);
  const double now = disk_images_per_s(m.costs, disk);
  if (m.demand > 0) {
    v.advice.push_back(format("feeding %s images/s needs %.0f MB/s and %s reads/s",
                              thousands(m.demand).c_str(), m.demand * m.bytes_per_image / 1e6,
                              thousands(m.demand * m.costs.reads_per_image).c_str()));
  }
  const io::DiskClass* faster = nullptr;
  for (const io::DiskClass& c : io::disk_classes()) {
    const double rate = disk_images_per_s(m.costs, c.spec);
    // Network storage is no remedy for training reads (DOMAIN.md); a class barely faster is none.
    if (c.name == "network" || rate <= 1.2 * now) continue;
    if (!faster || disk_images_per_s(m.costs, faster->spec) < goal) faster = &c;
    if (rate >= goal) break;
  }
  if (faster) {
    const double rate = disk_images_per_s(m.costs, faster->spec);
    const char* a = article(faster->label);
    v.advice.push_back(format("%s %s (%s) delivers %s images/s of these reads, %s; costs: %s %s", a,
                              faster->label.c_str(), io::describe(faster->spec).c_str(),
                              thousands(rate).c_str(), m.outcome(rate).c_str(), a,
                              faster->label.c_str()));
  }

  // The page cache: epochs after the first read no disk when the dataset stays in it.
  const std::uint64_t in_flight = in.in_flight_capacity * in.slot_bytes;
  const std::uint64_t needed = in.dataset_bytes + in_flight;
  const std::string limit_text =
      in.container_limit ? format("this container's %.1f GB memory limit", gb(in.memory_bytes))
                         : format("this machine's %.1f GB of RAM", gb(in.memory_bytes));
  if (in.memory_bytes > 0 && needed > in.memory_bytes) {
    v.advice.push_back(format(
        "the dataset (%.1f GB) does not fit in page cache under %s: every epoch reads the disk "
        "again at %.0f MB/s; with %.1f GB of memory, epochs after the first would read none, %s; "
        "costs: %.1f GB more RAM",
        gb(in.dataset_bytes), limit_text.c_str(), m.read_mb_s, gb(needed),
        m.outcome(kUnlimited).c_str(), gb(needed - in.memory_bytes)));
  } else {
    v.advice.push_back(format(
        "or keep the dataset in page cache: it fits under %s, so epochs after the first read no "
        "disk, %s; costs: %.1f GB of RAM for the cache",
        limit_text.c_str(), m.outcome(kUnlimited).c_str(), gb(in.dataset_bytes)));
  }
}

void cpu_advice(const VerdictInputs& in, const Measured& m, Verdict& v) {
  const int threads = std::max(1, in.num_workers);
  v.advice.push_back(format(
      "decode needs %.2f ms of CPU per image: %d decode thread(s) deliver at most %s images/s "
      "(delivered %s)",
      m.decode_s * 1e3, in.num_workers, thousands(cpu_images_per_s(m.costs, threads)).c_str(),
      thousands(m.delivered).c_str()));
  if (in.cpu_quota_cores > 0) {
    v.advice.push_back(
        format("this process may use %d of the host's %d cores: its cgroup has a CPU quota of %.2f "
               "cores",
               in.cpus, in.host_cpus, in.cpu_quota_cores));
  }
  if (in.num_workers < in.cpus) {
    v.advice.push_back(
        format("raise num_workers from %d to %d, the cores available: about %s images/s; costs: no "
               "hardware, the RAM of %d more worker(s)",
               in.num_workers, in.cpus, thousands(cpu_images_per_s(m.costs, in.cpus)).c_str(),
               in.cpus - in.num_workers));
  }
  const int cores = m.demand > 0 ? static_cast<int>(std::ceil(m.demand * m.decode_s))
                                 : std::max(2 * in.cpus, in.cpus + 1);
  const std::string purpose =
      m.demand > 0
          ? format("feeding %s images/s takes about %d cores", thousands(m.demand).c_str(), cores)
          : format("each core adds about %s images/s: %d cores",
                   thousands(cpu_images_per_s(m.costs, 1)).c_str(), cores);
  if (cores > in.cpus) {
    v.advice.push_back(format(
        "%s (about %s images/s); this process has %d; costs: %d more core(s)%s", purpose.c_str(),
        thousands(cpu_images_per_s(m.costs, cores)).c_str(), in.cpus, cores - in.cpus,
        in.cpu_quota_cores > 0 ? format(": raise the CPU quota to %d cores", cores).c_str() : ""));
  }
}

void ram_advice(const VerdictInputs& in, const Measured& m, Verdict& v) {
  const double slot_mb = static_cast<double>(in.slot_bytes) / 1e6;
  v.advice.push_back(
      format("only %zu batch(es) may be in flight (%.0f MB each): reads and decodes cannot "
             "overlap the training step, which waited %.1f s for a free batch",
             in.in_flight_capacity, slot_mb, in.stall_ram_s));
  const double rate =
      m.ceiling(in.disk.limited() ? disk_images_per_s(m.costs, in.disk) : kUnlimited);
  v.advice.push_back(format(
      "allow 2 more batches in flight (prefetch_batches=%zu): about %s images/s (%.1fx now); "
      "costs: about %.0f MB more RAM (this process may use %.1f GB)",
      in.in_flight_capacity + 2, thousands(rate).c_str(), rate / m.delivered, 2 * slot_mb,
      gb(in.memory_bytes)));
}

void consumer_advice(const VerdictInputs& in, const Measured& m, Verdict& v) {
  v.advice.push_back(
      format("the loader keeps up: training took %s images/s and waited %.1f%% of the time",
             thousands(m.delivered).c_str(), 100 * v.stall_fraction));
  if (m.decode_s <= 0) return;
  const int threads = std::max(1, in.num_workers);
  v.advice.push_back(format(
      "decode needs %.2f ms of CPU per image: %d decode thread(s) could deliver about %s images/s",
      m.decode_s * 1e3, in.num_workers, thousands(cpu_images_per_s(m.costs, threads)).c_str()));
  // A quarter more than training takes, so that the loader still keeps up on a busy machine.
  const int enough = std::max(1, static_cast<int>(std::ceil(1.25 * m.delivered * m.decode_s)));
  if (enough < in.num_workers) {
    v.advice.push_back(format(
        "num_workers=%d would still keep up (about %s images/s): it frees %d core(s) and the "
        "RAM of %d worker(s)",
        enough, thousands(cpu_images_per_s(m.costs, enough)).c_str(), in.num_workers - enough,
        in.num_workers - enough));
  }
}

}  // namespace

std::string packing_advice(const Report& report, int decode_threads, std::uint64_t dataset_bytes,
                           const PackingGain& gain) {
  const ImageCosts now{report.decode_cpu_ms_per_image, 0, 0, 1};
  const ImageCosts packed = packed_costs(now, gain.decode_ratio, gain.bytes_ratio);
  const int threads = std::max(1, decode_threads);
  const double before = cpu_images_per_s(now, threads), after = cpu_images_per_s(packed, threads);
  return format(
      "pack the dataset (feedrate pack DATASET OUT): its JPEGs, transcoded losslessly with restart "
      "markers, decode a train crop in %.2fx the CPU (measured on %zu of them), so %d decode "
      "thread(s) deliver about %s images/s instead of %s (%.2fx; delivered %s); costs: a %.1f GB "
      "copy of the dataset (%.2fx its bytes), no hardware",
      gain.decode_ratio, gain.samples, threads, thousands(after).c_str(), thousands(before).c_str(),
      after / before, thousands(report.images_per_s).c_str(), gb(dataset_bytes) * gain.bytes_ratio,
      gain.bytes_ratio);
}

Verdict judge(const VerdictInputs& in) {
  Verdict v;
  v.stall_io_s = in.stall_io_s;
  v.stall_cpu_s = in.stall_cpu_s;
  v.stall_ram_s = in.stall_ram_s;
  v.stall_h2d_s = in.stall_h2d_s;
  const double stalled = in.stall_io_s + in.stall_cpu_s + in.stall_ram_s + in.stall_h2d_s;
  v.stall_fraction = in.wall_s > 0 ? stalled / in.wall_s : 0;
  if (in.images == 0 || in.wall_s <= 0) {
    v.advice.push_back("no images were delivered: nothing to judge yet");
    return v;
  }

  Measured m;
  const auto images = static_cast<double>(in.images);
  m.delivered = images / in.wall_s;
  m.decode_s = in.decode_busy_s / images;
  m.bytes_per_image = static_cast<double>(in.bytes_read) / images;
  m.costs = {m.decode_s * 1e3, m.bytes_per_image, static_cast<double>(in.read_operations) / images,
             in.queue_depth};
  m.read_mb_s = static_cast<double>(in.bytes_read) / 1e6 / in.wall_s;
  m.reads_per_s = static_cast<double>(in.read_operations) / in.wall_s;
  m.bytes_per_read = in.read_operations > 0 ? static_cast<double>(in.bytes_read) /
                                                  static_cast<double>(in.read_operations)
                                            : m.bytes_per_image;
  m.cores = std::max(1, in.cpus);
  // The rate training asks for: given, or what the consumer would take if never kept waiting;
  // a consumer that hardly works between batches (a bare benchmark) says nothing about it.
  m.demand = in.target_images_per_s;
  if (m.demand <= 0 && in.consumer_busy_s >= kMeasurableStepShare * in.wall_s) {
    m.demand = images / in.consumer_busy_s;
  }
  if (!(m.demand > 0) || !std::isfinite(m.demand)) m.demand = 0;

  if (v.stall_fraction < kStallThreshold) {
    v.bottleneck = "consumer";
    consumer_advice(in, m, v);
    return v;
  }

  const std::array<std::pair<const char*, double>, 4> stalls = {{{"io", in.stall_io_s},
                                                                 {"cpu", in.stall_cpu_s},
                                                                 {"ram", in.stall_ram_s},
                                                                 {"h2d", in.stall_h2d_s}}};
  v.bottleneck = std::max_element(stalls.begin(), stalls.end(), [](auto& a, auto& b) {
                   return a.second < b.second;
                 })->first;

  if (v.bottleneck == "cpu") {
    cpu_advice(in, m, v);
  } else if (v.bottleneck == "io") {
    io_advice(in, m, v);
  } else if (v.bottleneck == "ram") {
    ram_advice(in, m, v);
  } else {
    const double copy_gb_s =
        in.copy_busy_s > 0 ? static_cast<double>(in.copy_bytes) / 1e9 / in.copy_busy_s : 0;
    v.advice.push_back(format("copies to the GPU ran at %.2f GB/s", copy_gb_s));
    v.advice.push_back(
        "send uint8 over PCIe and convert on the GPU (layout float16/float32 on a CUDA device "
        "does), and check the GPU's PCIe link (nvidia-smi -q: Link Width and Generation); costs: "
        "no hardware");
  }
  return v;
}

}  // namespace feedrate
