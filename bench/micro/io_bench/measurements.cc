#include "bench/micro/io_bench/measurements.h"

#include <fmt/core.h>

#include <algorithm>
#include <utility>

#include "bench/micro/io_bench/contenders.h"
#include "bench/micro/io_bench/test_file.h"

namespace feedrate::io_bench {
namespace {

// A row of the table: contender `subject` of a measurement against its contender `reference`.
struct Comparison {
  std::size_t measurement = 0;
  std::size_t subject = 0;
  std::size_t reference = 0;
  double target = 0;  // the least ratio wanted; 0: for reference only
};

const std::vector<Comparison> kComparisons = {
    {0, 0, 1, 0.90},  // O_DIRECT random: io_uring vs fio
    {1, 0, 1, 0.90},  // O_DIRECT sequential: io_uring vs fio
    {2, 0, 2, 1.00},  // buffered warm: io_uring vs pread loop
    {2, 1, 2, 0},     // buffered warm: pread backend vs pread loop
    {2, 0, 3, 0},     // buffered warm: io_uring vs fio
};

}  // namespace

std::optional<double> median(const Contender& contender) {
  std::vector<double> values;
  for (const Run& run : contender.runs) {
    if (run.mb_per_s) values.push_back(*run.mb_per_s);
  }
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string detail(const Contender& contender) {
  return contender.runs.empty() ? std::string() : contender.runs.back().detail;
}

std::vector<Measurement> plan(const Setup& setup) {
  const auto contender = [](std::string name, std::function<Run()> run) {
    return Contender{std::move(name), std::move(run), {}};
  };
  const auto reader = [&](const Job& job, bool force_pread) {
    return contender(force_pread ? "pread backend" : "io_uring",
                     [&setup, job, force_pread] { return run_reader(setup, job, force_pread); });
  };
  const auto fio = [&](const Job& job) {
    return contender("fio io_uring", [&setup, job] { return run_fio(setup, job); });
  };
  const auto pread_loop = [&](const Job& job) {
    return contender("pread loop", [&setup, job] { return run_pread_loop(setup, job); });
  };
  const Job random_direct{Pattern::kRandom, 128 * kKiB, 32, true};
  const Job sequential_direct{Pattern::kSequential, kMiB, 8, true};
  const Job random_warm{Pattern::kRandom, 128 * kKiB, 32, false};
  return {
      {random_direct, {reader(random_direct, false), fio(random_direct)}},
      {sequential_direct, {reader(sequential_direct, false), fio(sequential_direct)}},
      {random_warm,
       {reader(random_warm, false), reader(random_warm, true), pread_loop(random_warm),
        fio(random_warm)}},
  };
}

double measure(const Setup& setup, int repeats, std::vector<Measurement>& measurements) {
  double resident = 1;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (Measurement& measurement : measurements) {
      if (!measurement.job.direct) resident = std::min(resident, warm_page_cache(setup));
      std::vector<Contender*> order;
      for (Contender& contender : measurement.contenders) order.push_back(&contender);
      if (repeat % 2 == 1) std::reverse(order.begin(), order.end());
      std::string line;
      for (Contender* contender : order) {
        contender->runs.push_back(contender->run());
        const Run& run = contender->runs.back();
        line += fmt::format("  {}: {}", contender->name,
                            run.mb_per_s ? fmt::format("{:.1f} MB/s", *run.mb_per_s) : run.detail);
      }
      fmt::print(stderr, "[{}/{}] {}:{}\n", repeat + 1, repeats, describe(measurement.job), line);
    }
  }
  return resident;
}

std::vector<Row> rows(const std::vector<Measurement>& measurements) {
  std::vector<Row> out;
  for (const Comparison& c : kComparisons) {
    const Measurement& m = measurements[c.measurement];
    Row row;
    row.measurement = describe(m.job);
    row.subject = m.contenders[c.subject].name;
    row.reference = m.contenders[c.reference].name;
    row.subject_mb_per_s = median(m.contenders[c.subject]);
    row.reference_mb_per_s = median(m.contenders[c.reference]);
    if (row.subject_mb_per_s && row.reference_mb_per_s && *row.reference_mb_per_s > 0) {
      row.ratio = *row.subject_mb_per_s / *row.reference_mb_per_s;
    }
    row.target = c.target;
    if (c.target > 0 && row.ratio) row.met = *row.ratio >= c.target;
    out.push_back(row);
  }
  return out;
}

}  // namespace feedrate::io_bench
