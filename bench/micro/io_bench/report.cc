#include "bench/micro/io_bench/report.h"

#include <fmt/core.h>
#include <sys/utsname.h>

#include "io/block_device.h"
#include "loader/host/system_info.h"

namespace feedrate::io_bench {
namespace {

std::string or_unknown(const std::string& text) {
  return text.empty() ? "unknown" : text;
}

std::string kernel() {
  utsname name{};
  if (::uname(&name) != 0) return "unknown";
  return fmt::format("{} {} {}", name.sysname, name.release, name.machine);
}

// "ext4 on /dev/vda at / (statfs f_type 0xef53)": the mount holding the file.
std::string file_system(const io::BlockDevice& where) {
  return fmt::format("{} on {} at {} (statfs f_type {})", or_unknown(where.fs_type), where.source,
                     where.mount_point,
                     where.fs_magic != 0 ? fmt::format("0x{:x}", where.fs_magic) : "unknown");
}

// "vda (253:0), rotational 0, logical block 512 B": the block device under the file.
std::string block_device(const io::BlockDevice& where) {
  if (where.numbers.empty()) return "unknown";
  if (where.device.empty()) return fmt::format("no block device ({})", where.numbers);
  const auto known = [](int value) { return value < 0 ? std::string("?") : std::to_string(value); };
  std::string text =
      fmt::format("{} ({}), rotational {}, logical block {} B", where.device, where.numbers,
                  known(where.rotational), known(where.logical_block_bytes));
  if (!where.model.empty()) text += ", model " + where.model;
  return text;
}

}  // namespace

Environment environment(const Setup& setup, const std::string& origin) {
  Environment env;
  const CpuInfo cpu = cpu_info();
  env.cpu = fmt::format("{} ({} CPUs available)", or_unknown(cpu.model), cpu.available);
  env.memory = fmt::format("{:.1f} GiB", memory_limit_bytes() / double(kMiB * kKiB));
  env.kernel = kernel();
  env.file = fmt::format("{} ({:.0f} MiB, {})", setup.path.string(),
                         setup.file_bytes / double(kMiB), origin);
  const io::BlockDevice where = io::block_device_of(setup.path);
  env.file_system = file_system(where);
  env.device = block_device(where);
  return env;
}

void print_text(const Environment& env, const std::vector<Measurement>& measurements,
                double resident) {
  fmt::print("feedrate-io-bench: the reader alone against fio\n");
  fmt::print("  cpu          {}\n  memory       {}\n  kernel       {}\n", env.cpu, env.memory,
             env.kernel);
  fmt::print("  file         {}\n  file system  {}\n  device       {}\n  fio          {}\n",
             env.file, env.file_system, env.device, env.fio);
  fmt::print("  runs         {}\n", env.runs);
  fmt::print("  page cache   {:.0f}% of the file resident before buffered runs (least seen)\n\n",
             resident * 100);
  // n/a: no successful run; the details below say why.
  const auto number = [](const std::optional<double>& value) {
    return value ? fmt::format("{:.1f}", *value) : std::string("n/a");
  };
  fmt::print("{:<37} | {:<13} | {:>8} | {:<12} | {:>8} | {:>5} | {:<7} | {}\n", "measurement",
             "feedrate", "MB/s", "against", "MB/s", "ratio", "target", "met?");
  fmt::print("{:-<37}-|-{:-<13}-|-{:->8}-|-{:-<12}-|-{:->8}-|-{:->5}-|-{:-<7}-|-----\n", "", "", "",
             "", "", "", "");
  for (const Row& row : rows(measurements)) {
    fmt::print("{:<37} | {:<13} | {:>8} | {:<12} | {:>8} | {:>5} | {:<7} | {}\n", row.measurement,
               row.subject, number(row.subject_mb_per_s), row.reference,
               number(row.reference_mb_per_s), row.ratio ? fmt::format("{:.2f}", *row.ratio) : "-",
               row.target > 0 ? fmt::format(">= {:.2f}", row.target) : "-",
               row.met ? (*row.met ? "yes" : "NO") : "-");
  }
  fmt::print("\n");
  for (const Measurement& m : measurements) {
    for (const Contender& c : m.contenders) {
      std::string runs;
      for (const Run& run : c.runs) {
        if (!runs.empty()) runs += ' ';
        runs += run.mb_per_s ? fmt::format("{:.0f}", *run.mb_per_s) : "n/a";
      }
      fmt::print("  {}, {}: runs {} MB/s; {}\n", describe(m.job), c.name, runs, detail(c));
    }
  }
}

nlohmann::json to_json(const Environment& env, const std::vector<Measurement>& measurements,
                       double resident) {
  const auto optional = [](const auto& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  nlohmann::json out;
  out["environment"] = {{"cpu", env.cpu},
                        {"memory", env.memory},
                        {"kernel", env.kernel},
                        {"file", env.file},
                        {"file_system", env.file_system},
                        {"device", env.device},
                        {"fio", env.fio},
                        {"runs", env.runs},
                        {"page_cache_resident_fraction", resident}};
  out["measurements"] = nlohmann::json::array();
  for (const Measurement& m : measurements) {
    nlohmann::json contenders = nlohmann::json::array();
    for (const Contender& c : m.contenders) {
      nlohmann::json runs = nlohmann::json::array();
      for (const Run& run : c.runs) runs.push_back(optional(run.mb_per_s));
      contenders.push_back({{"name", c.name},
                            {"mb_per_s", runs},
                            {"median_mb_per_s", optional(median(c))},
                            {"detail", detail(c)}});
    }
    out["measurements"].push_back(
        {{"measurement", describe(m.job)},
         {"pattern", m.job.pattern == Pattern::kRandom ? "random" : "sequential"},
         {"block_bytes", m.job.block},
         {"queue_depth", m.job.depth},
         {"direct", m.job.direct},
         {"contenders", contenders}});
  }
  out["comparisons"] = nlohmann::json::array();
  for (const Row& row : rows(measurements)) {
    out["comparisons"].push_back(
        {{"measurement", row.measurement},
         {"feedrate", row.subject},
         {"feedrate_mb_per_s", optional(row.subject_mb_per_s)},
         {"against", row.reference},
         {"against_mb_per_s", optional(row.reference_mb_per_s)},
         {"ratio", optional(row.ratio)},
         {"target", row.target > 0 ? nlohmann::json(row.target) : nlohmann::json(nullptr)},
         {"met", optional(row.met)}});
  }
  return out;
}

}  // namespace feedrate::io_bench
