#include "loader/diagnosis/disk_advice.h"

#include <algorithm>
#include <string>

#include "io/disk_class.h"
#include "io/throttle.h"
#include "loader/diagnosis/text.h"
#include "loader/diagnosis/throughput_model.h"

namespace feedrate {
namespace {

using text::format;
using text::thousands;

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

}  // namespace

void disk_advice(const Measured& m, Verdict& v) {
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
    v.advice.push_back(make_finding(
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
      const double rate = disk_images_per_s(sequential, run.queue_depth, disk);
      v.advice.push_back(make_remedy(
          "io.blocks",
          format("%s: reads of %.1f MB chunks (%.2f reads per image instead of %.2f) let this "
                 "disk deliver %s images/s",
                 run.shards() ? "shuffle in blocks ({0}) or read in storage order ({1})"
                              : "store the images in tar shards, then shuffle in blocks ({0}) or "
                                "read them in storage order ({1})",
                 static_cast<double>(run.chunk_bytes) / 1e6, sequential.reads_per_image,
                 m.costs.reads_per_image, thousands(rate).c_str()),
          {{"shuffle", "blocks"}, {"shuffle", "none"}}, m.lifted(Resource::kIo, rate),
          run.shards() ? "no hardware, a less random order"
                       : format("a %.1f GB copy of the dataset and a less random order",
                                gb(run.dataset_bytes))));
    }
  } else if (limit == DiskLimit::kBandwidth) {
    const io::DiskClass& near = io::match_disk_class(m.read_mb_s);
    v.advice.push_back(make_finding(
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
    const unsigned deeper = 2 * std::max(1u, run.queue_depth);
    const double rate = disk_images_per_s(m.costs, deeper, disk);
    v.advice.push_back(make_finding(
        "io.latency",
        format("reads delivered %.0f MB/s in %s reads/s: latency-bound: each read takes %.0f us "
               "and at most %u are in flight",
               m.read_mb_s, thousands(m.reads_per_s).c_str(), disk.latency_us, run.queue_depth)));
    v.advice.push_back(make_remedy(
        "io.queue_depth",
        format("raise the reads in flight from %u to %u ({0}): this disk then delivers %s "
               "images/s",
               run.queue_depth, deeper, thousands(rate).c_str()),
        {{"io_queue_depth", std::to_string(deeper)}}, m.lifted(Resource::kIo, rate),
        "no hardware, a few MB of read buffers"));
  }

  // A faster disk class: the slowest that lifts the run to what the other resources allow.
  const double goal = m.lifted(Resource::kIo, kUnlimited);
  const double now = disk_images_per_s(m.costs, run.queue_depth, disk);
  if (m.measured(Resource::kConsumer) && m.report.run.training_images_per_s > 0) {
    const double demand = m.capacity(Resource::kConsumer);
    v.advice.push_back(make_finding(
        "io.demand", format("feeding %s images/s needs %.0f MB/s and %s reads/s",
                            thousands(demand).c_str(), demand * m.costs.bytes_per_image / 1e6,
                            thousands(demand * m.costs.reads_per_image).c_str())));
  }
  const io::DiskClass* faster = nullptr;
  for (const io::DiskClass& c : io::disk_classes()) {
    const double rate = disk_images_per_s(m.costs, run.queue_depth, c.spec);
    // Network storage is no remedy for training reads (docs/domain.md); a class barely faster is
    // none.
    if (c.name == "network" || rate <= 1.2 * now) continue;
    if (!faster || disk_images_per_s(m.costs, run.queue_depth, faster->spec) < goal) faster = &c;
    if (rate >= goal) break;
  }
  if (faster) {
    const double rate = disk_images_per_s(m.costs, run.queue_depth, faster->spec);
    const char* a = article(faster->label);
    v.advice.push_back(make_remedy(
        "io.disk_class",
        format("%s %s (%s) delivers %s images/s of these reads", a, faster->label.c_str(),
               io::describe(faster->spec).c_str(), thousands(rate).c_str()),
        m.lifted(Resource::kIo, rate), format("%s %s", a, faster->label.c_str())));
  }
}

// Whatever the verdict: whether the dataset stays in page cache across epochs.

void page_cache_advice(const Measured& m, Verdict& v) {
  const RunSetting& run = m.report.run;
  if (run.memory_bytes == 0) return;
  const bool io_binds = v.bottleneck == Resource::kIo || v.runner_up == Resource::kIo;
  const std::uint64_t in_flight = run.prefetch_batches * run.slot_bytes;
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
          make_finding("page_cache", cause + format("; the disk keeps up with %.1fx headroom",
                                                    m.capacities.of(Resource::kIo).headroom)));
      return;
    }
    v.advice.push_back(make_remedy(
        "page_cache",
        format("with %.1f GB of memory, epochs after the first would read none", gb(needed)),
        m.lifted(Resource::kIo, kUnlimited),
        format("%.1f GB more RAM", gb(needed - run.memory_bytes)), cause));
    // The pack cache (LoaderOptions::cache_dir) on a local NVMe disk: later epochs read it.
    const double local = disk_images_per_s(m.costs, run.queue_depth, disk_class("nvme").spec);
    if (local > 1.2 * m.capacity(Resource::kIo)) {
      v.advice.push_back(make_remedy(
          "io.cache_dir",
          format("or cache the dataset on a local NVMe SSD ({0}): epochs "
                 "after the first read it there, at up to %s images/s",
                 thousands(local).c_str()),
          {{"cache_dir", "PATH"}}, m.lifted(Resource::kIo, local),
          format("%.1f GB of local disk (about 1.02x the dataset), and the CPU to copy it in "
                 "the first epochs",
                 gb(run.dataset_bytes) * 1.02)));
    }
  } else if (io_binds) {
    v.advice.push_back(make_remedy(
        "page_cache",
        format("keep the dataset in page cache: it fits under %s, so epochs after the first read "
               "no disk",
               limit_text.c_str()),
        m.lifted(Resource::kIo, kUnlimited),
        format("%.1f GB of RAM for the cache", gb(run.dataset_bytes))));
  }
}

}  // namespace feedrate
