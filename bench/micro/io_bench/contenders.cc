#include "bench/micro/io_bench/contenders.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>
#include <vector>

#include "bench/micro/io_bench/subprocess.h"
#include "gpu/host_memory.h"
#include "io/file.h"
#include "io/reader.h"
#include "io/temp_file.h"

namespace feedrate::io_bench {
namespace {

// Destination buffers for `batch` requests of `block` bytes, touched so that page faults
// happen before the clock starts.
feedrate::gpu::HostBuffer make_buffers(std::size_t batch, std::size_t block) {
  feedrate::gpu::HostBuffer buffer(batch * block);
  std::memset(buffer.data(), 0, buffer.size());
  return buffer;
}

// Calls `read_batch(count)`, which reads `count` blocks into the buffers and returns an error
// message ("" when they all read), until the budget is spent. Returns MB/s; empty, with *error
// set, when a batch failed.
std::optional<double> read_until_spent(const Setup& setup, const Job& job,
                                       const std::function<std::string(std::size_t)>& read_batch,
                                       std::string* error) {
  std::uint64_t done = 0;
  double elapsed = 0;
  const Clock::time_point start = Clock::now();
  while (!setup.budget.spent(done, elapsed)) {
    const std::size_t count = setup.budget.next_batch(done, job.block, setup.batch);
    *error = read_batch(count);
    if (!error->empty()) return std::nullopt;
    done += count * job.block;
    elapsed = seconds_since(start);
  }
  return done / elapsed / 1e6;
}

}  // namespace

Run run_reader(const Setup& setup, const Job& job, bool force_pread) {
  io::ReaderOptions options;
  options.queue_depth = job.depth;
  options.force_pread = force_pread;
  options.direct_io = job.direct;
  std::string fallback;
  const auto reader = io::Reader::create(options, &fallback);
  std::error_code error;
  const io::File file = reader->open(setup.path, error);
  if (error) return {std::nullopt, "open: " + error.message()};
  const feedrate::gpu::HostBuffer buffer = make_buffers(setup.batch, job.block);
  std::vector<io::ReadRequest> requests(setup.batch);
  Offsets offsets(job.pattern, setup.file_bytes / job.block, job.block);
  std::string failure;
  const std::optional<double> mb_per_s = read_until_spent(
      setup, job,
      [&](std::size_t count) -> std::string {
        for (std::size_t i = 0; i < count; ++i) {
          requests[i].fd = file.fd();
          requests[i].offset = offsets.next();
          requests[i].dest = {buffer.data() + i * job.block, job.block};
        }
        reader->read({requests.data(), count});
        for (std::size_t i = 0; i < count; ++i) {
          if (requests[i].error) {
            return fmt::format("read of {} bytes at {}: {}", job.block, requests[i].offset,
                               requests[i].error.message());
          }
        }
        return {};
      },
      &failure);
  if (!mb_per_s) return {std::nullopt, failure};
  const io::ReadStats& stats = reader->stats();
  std::string detail = fmt::format(
      "{}, {:.1f} reads in flight on average (peak {}), latency p50 {:.0f} us, p99 "
      "{:.0f} us",
      stats.backend_description, stats.average_in_flight, stats.peak_in_flight,
      stats.latency_p50_us, stats.latency_p99_us);
  if (!force_pread && !fallback.empty()) detail += "; " + fallback;
  if (stats.direct_io_fallbacks > 0) detail += "; " + stats.direct_io_fallback_reason;
  return {mb_per_s, detail};
}

Run run_pread_loop(const Setup& setup, const Job& job) {
  std::error_code error;
  const io::File file = io::File::open(setup.path, error, job.direct);
  if (error) return {std::nullopt, "open: " + error.message()};
  const feedrate::gpu::HostBuffer buffer = make_buffers(setup.batch, job.block);
  Offsets offsets(job.pattern, setup.file_bytes / job.block, job.block);
  std::string failure;
  const std::optional<double> mb_per_s = read_until_spent(
      setup, job,
      [&](std::size_t count) -> std::string {
        for (std::size_t i = 0; i < count; ++i) {
          std::byte* dest = buffer.data() + i * job.block;
          const std::uint64_t offset = offsets.next();
          for (std::size_t got = 0; got < job.block;) {
            const ssize_t n =
                ::pread(file.fd(), dest + got, job.block - got, static_cast<off_t>(offset + got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
              return fmt::format("pread at {}: {}", offset + got,
                                 n == 0 ? "unexpected end of file" : std::strerror(errno));
            }
            got += static_cast<std::size_t>(n);
          }
        }
        return {};
      },
      &failure);
  if (!mb_per_s) return {std::nullopt, failure};
  return {mb_per_s, "pread(2), one thread"};
}

Run run_fio(const Setup& setup, const Job& job) {
  if (setup.fio.empty()) return {std::nullopt, "fio missing"};
  // fio separates file names with ':'.
  std::string filename;
  for (const char c : setup.path.string()) {
    if (c == ':') filename += '\\';
    filename += c;
  }
  const io::TempFile output(fs::temp_directory_path(), "feedrate-io-bench-fio-json");
  const io::TempFile log(fs::temp_directory_path(), "feedrate-io-bench-fio-log");
  std::vector<std::string> argv = {
      setup.fio,
      "--name=feedrate-io-bench",
      "--filename=" + filename,
      "--readonly",
      "--ioengine=io_uring",
      fmt::format("--rw={}", job.pattern == Pattern::kRandom ? "randread" : "read"),
      fmt::format("--bs={}", job.block),
      fmt::format("--iodepth={}", job.depth),
      fmt::format("--direct={}", job.direct ? 1 : 0),
      fmt::format("--size={}", setup.file_bytes / job.block * job.block),
      "--invalidate=0",  // keep the page cache as it is, as feedrate does
      "--output-format=json",
      "--output=" + output.path().string()};
  if (setup.budget.bytes > 0) {
    argv.push_back(fmt::format("--io_size={}", setup.budget.bytes));
  } else {
    argv.push_back(fmt::format("--runtime={}ms", std::llround(setup.budget.seconds * 1000)));
    argv.push_back("--time_based");
  }
  const int status = spawn(argv, log.path());
  const std::string report = read_text(output.path());
  if (status != 0) {
    std::string why = last_line(read_text(log.path()));
    if (why.empty()) why = last_line(report);
    return {std::nullopt, fmt::format("fio exited with status {}: {}", status, why)};
  }
  // fio may print notices ahead of the JSON object.
  const std::size_t brace = report.find('{');
  try {
    const nlohmann::json json =
        nlohmann::json::parse(report.substr(std::min(brace, report.size())));
    const double bytes_per_s = json.at("jobs").at(0).at("read").at("bw_bytes").get<double>();
    return {bytes_per_s / 1e6,
            fmt::format("{}, ioengine=io_uring, direct={}", setup.fio_version, job.direct ? 1 : 0)};
  } catch (const nlohmann::json::exception& e) {
    return {std::nullopt, std::string("cannot read fio's JSON report: ") + e.what()};
  }
}

std::string fio_version(const std::string& fio) {
  const io::TempFile log(fs::temp_directory_path(), "feedrate-io-bench-fio-version");
  if (spawn({fio, "--version"}, log.path()) != 0) return "unknown version";
  return last_line(read_text(log.path()));
}

}  // namespace feedrate::io_bench
