// feedrate-io-bench: the reader alone (io::Reader: no index, no decoding, no loader) against
// fio, side by side in one run, so that the I/O layer's cost is measured rather than guessed.
// In each measurement both read the same file with the same block size, queue depth and
// O_DIRECT flag, one after the other, and feedrate's MB/s is divided by the reference's:
//   1. O_DIRECT random reads, 128 KiB, queue depth 32: the io_uring reader against fio's
//      io_uring engine; target >= 0.90.
//   2. O_DIRECT sequential reads, 1 MiB, queue depth 8: the same; target >= 0.90.
//   3. Buffered random reads of a file in the page cache (read once first), 128 KiB, queue
//      depth 32: the io_uring reader against a single-threaded pread loop over the same offsets
//      into the same buffers (target >= 1.00); the pread backend against that loop, and the
//      io_uring reader against fio's buffered io_uring, for reference.
// feedrate is driven the way the loader drives it: --batch requests per Reader::read call into
// reused page-aligned buffers (HostBuffer), one buffer per request of the batch. Random offsets
// are block-aligned and uniform over the file, from a fixed seed. Every measurement runs
// --repeats times; within a repeat the contenders take turns, in reverse order on every other
// repeat so that drift on a shared machine favours none, and the medians are compared.
// MB = 10^6 bytes. Without fio, feedrate's figures are printed alone.
//
// Usage: feedrate-io-bench [--file PATH | --dir DIR --size-mb N] [--seconds S | --bytes N]
//                          [--repeats N] [--batch N] [--fio PATH] [--json]
#include <fcntl.h>
#include <fmt/core.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "feedrate/system_info.h"
#include "gpu/host_memory.h"
#include "io/block_device.h"
#include "io/file.h"
#include "io/page_cache.h"
#include "io/reader.h"
#include "io/temp_file.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace io = feedrate::io;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = kKiB * kKiB;
constexpr std::uint64_t kSeed = 0x5eed'f00d;  // every run reads the same offsets

struct Args {
  std::string file;
  std::string dir = "/var/tmp/feedrate-io-bench";
  std::uint64_t size_mb = 1024;
  double seconds = 5;
  std::uint64_t bytes = 0;
  int repeats = 3;
  std::size_t batch = 256;
  std::string fio = "fio";
  bool json = false;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(std::string text) {
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), blank));
  text.erase(std::find_if_not(text.rbegin(), text.rend(), blank).base(), text.end());
  return text;
}

std::string or_unknown(const std::string& text) {
  return text.empty() ? "unknown" : text;
}

// How long each run reads: `bytes` when non-zero, else `seconds`.
struct Budget {
  double seconds = 0;
  std::uint64_t bytes = 0;

  bool spent(std::uint64_t done, double elapsed) const {
    return bytes > 0 ? done >= bytes : elapsed >= seconds;
  }
  // Requests in the next batch: `batch`, fewer at the end of a byte budget.
  std::size_t next_batch(std::uint64_t done, std::size_t block, std::size_t batch) const {
    if (bytes == 0) return batch;
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(batch, (bytes - done + block - 1) / block));
  }
};

enum class Pattern { kRandom, kSequential };

// The I/O that every contender of a measurement runs.
struct Job {
  Pattern pattern = Pattern::kRandom;
  std::size_t block = 0;
  unsigned depth = 1;
  bool direct = false;
};

std::string describe(const Job& job) {
  const std::string block = job.block % kMiB == 0 ? fmt::format("{} MiB", job.block / kMiB)
                                                  : fmt::format("{} KiB", job.block / kKiB);
  return fmt::format("{} {} {}, qd {}", job.direct ? "O_DIRECT" : "buffered warm",
                     job.pattern == Pattern::kRandom ? "random" : "sequential", block, job.depth);
}

// What every run needs to know.
struct Setup {
  fs::path path;
  std::uint64_t file_bytes = 0;
  Budget budget;
  std::size_t batch = 0;
  std::string fio;          // the executable; empty when not found
  std::string fio_version;  // "fio-3.33"
};

// Block-aligned offsets into a file of `blocks` blocks: uniform from kSeed, or in order,
// starting over at the end of the file.
class Offsets {
 public:
  Offsets(Pattern pattern, std::uint64_t blocks, std::size_t block)
      : pattern_(pattern), block_(block), blocks_(blocks), pick_(0, blocks - 1) {}

  std::uint64_t next() {
    if (pattern_ == Pattern::kRandom) return pick_(random_) * block_;
    const std::uint64_t offset = next_ * block_;
    next_ = (next_ + 1) % blocks_;
    return offset;
  }

 private:
  Pattern pattern_;
  std::size_t block_;
  std::uint64_t blocks_;
  std::uint64_t next_ = 0;
  std::mt19937_64 random_{kSeed};
  std::uniform_int_distribution<std::uint64_t> pick_;
};

// The outcome of one run.
struct Run {
  std::optional<double> mb_per_s;  // empty when the run failed or could not start
  std::string detail;              // how it read, or why it failed
};

// Destination buffers for `batch` requests of `block` bytes, touched so that page faults
// happen before the clock starts.
feedrate::gpu::HostBuffer make_buffers(std::size_t batch, std::size_t block) {
  feedrate::gpu::HostBuffer buffer(batch * block);
  std::memset(buffer.data(), 0, buffer.size());
  return buffer;
}

// feedrate's reader: batches through Reader::read until the budget is spent.
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
  std::uint64_t done = 0;
  double elapsed = 0;
  const Clock::time_point start = Clock::now();
  while (!setup.budget.spent(done, elapsed)) {
    const std::size_t count = setup.budget.next_batch(done, job.block, setup.batch);
    for (std::size_t i = 0; i < count; ++i) {
      requests[i].fd = file.fd();
      requests[i].offset = offsets.next();
      requests[i].dest = {buffer.data() + i * job.block, job.block};
    }
    reader->read({requests.data(), count});
    for (std::size_t i = 0; i < count; ++i) {
      if (requests[i].error) {
        return {std::nullopt, fmt::format("read of {} bytes at {}: {}", job.block,
                                          requests[i].offset, requests[i].error.message())};
      }
    }
    done += count * job.block;
    elapsed = seconds_since(start);
  }
  const io::ReadStats& stats = reader->stats();
  std::string detail = fmt::format(
      "{}, {:.1f} reads in flight on average (peak {}), latency p50 {:.0f} us, p99 "
      "{:.0f} us",
      stats.backend_description, stats.average_in_flight, stats.peak_in_flight,
      stats.latency_p50_us, stats.latency_p99_us);
  if (!force_pread && !fallback.empty()) detail += "; " + fallback;
  if (stats.direct_io_fallbacks > 0) detail += "; " + stats.direct_io_fallback_reason;
  return {done / elapsed / 1e6, detail};
}

// The baseline: one thread calling pread(2) over the same offsets into the same buffers.
Run run_pread_loop(const Setup& setup, const Job& job) {
  std::error_code error;
  const io::File file = io::File::open(setup.path, error, job.direct);
  if (error) return {std::nullopt, "open: " + error.message()};
  const feedrate::gpu::HostBuffer buffer = make_buffers(setup.batch, job.block);
  Offsets offsets(job.pattern, setup.file_bytes / job.block, job.block);
  std::uint64_t done = 0;
  double elapsed = 0;
  const Clock::time_point start = Clock::now();
  while (!setup.budget.spent(done, elapsed)) {
    const std::size_t count = setup.budget.next_batch(done, job.block, setup.batch);
    for (std::size_t i = 0; i < count; ++i) {
      std::byte* dest = buffer.data() + i * job.block;
      const std::uint64_t offset = offsets.next();
      for (std::size_t got = 0; got < job.block;) {
        const ssize_t n =
            ::pread(file.fd(), dest + got, job.block - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          return {std::nullopt,
                  fmt::format("pread at {}: {}", offset + got,
                              n == 0 ? "unexpected end of file" : std::strerror(errno))};
        }
        got += static_cast<std::size_t>(n);
      }
    }
    done += count * job.block;
    elapsed = seconds_since(start);
  }
  return {done / elapsed / 1e6, "pread(2), one thread"};
}

// Runs `argv` with stdout and stderr appended to `log`. Returns the exit status (128 + the
// signal when killed); throws when the program cannot be started.
int spawn(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "cannot start " + argv[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// `name` as execvp would find it; empty when it is not an executable file.
std::string find_executable(const std::string& name) {
  const auto executable = [](const fs::path& path) {
    std::error_code error;
    return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return executable(name) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (executable(candidate)) return candidate.string();
  }
  return {};
}

// The last non-empty line of `text`, for error messages.
std::string last_line(const std::string& text) {
  std::stringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    if (!trim(line).empty()) last = trim(line);
  }
  return last;
}

// fio with the same job, its JSON report parsed for read.bw_bytes.
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

// Writes a file of `bytes` pseudo-random bytes (no zero pages or repeats that a compressing or
// deduplicating layer could shortcut) in 8 MiB writes, fsyncs it, and renames it into place so
// that an interrupted run never leaves a file of the right size behind.
void create_file(const fs::path& path, std::uint64_t bytes) {
  const fs::path partial = path.string() + ".partial";
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "create " + partial.string());
  const auto fail = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    throw std::system_error(saved, std::generic_category(), what + (" " + partial.string()));
  };
  std::vector<std::uint64_t> chunk(8 * kMiB / sizeof(std::uint64_t));
  std::uint64_t state = kSeed;
  for (std::uint64_t written = 0; written < bytes;) {
    for (std::uint64_t& word : chunk) {  // splitmix64
      std::uint64_t z = (state += 0x9e3779b97f4a7c15);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      word = z ^ (z >> 31);
    }
    const auto* data = reinterpret_cast<const char*>(chunk.data());
    const std::size_t length = static_cast<std::size_t>(
        std::min<std::uint64_t>(chunk.size() * sizeof(std::uint64_t), bytes - written));
    for (std::size_t put = 0; put < length;) {
      const ssize_t n = ::write(fd, data + put, length - put);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write");
      put += static_cast<std::size_t>(n);
    }
    written += length;
  }
  if (::fsync(fd) != 0) fail("fsync");
  ::close(fd);
  fs::rename(partial, path);
}

// --file as given, or the generated file under --dir, reused when it has the right size.
fs::path prepare_file(const Args& args, std::string* origin) {
  if (!args.file.empty()) {
    *origin = "given";
    return args.file;
  }
  const std::uint64_t bytes = args.size_mb * kMiB;
  const fs::path path = fs::path(args.dir) / fmt::format("test-{}MiB.bin", args.size_mb);
  std::error_code error;
  if (fs::is_regular_file(path, error) && fs::file_size(path, error) == bytes && !error) {
    *origin = "reused";
    return path;
  }
  fs::create_directories(args.dir);
  fmt::print(stderr, "feedrate-io-bench: writing {} ({} MiB)...\n", path.string(), args.size_mb);
  create_file(path, bytes);
  *origin = "created";
  return path;
}

// Reads the whole file once, buffered, so that buffered runs find it in the page cache.
// Returns the fraction of it resident afterwards (below 1 when memory is short).
double warm_page_cache(const Setup& setup) {
  std::error_code error;
  const io::File file = io::File::open(setup.path, error);
  if (error) throw std::system_error(error, "open " + setup.path.string());
  std::vector<char> chunk(8 * kMiB);
  for (off_t offset = 0;;) {
    const ssize_t n = ::pread(file.fd(), chunk.data(), chunk.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::system_error(errno, std::generic_category(), "read " + setup.path.string());
    if (n == 0) break;
    offset += n;
  }
  return static_cast<double>(io::resident_bytes(setup.path)) /
         static_cast<double>(setup.file_bytes);
}

// ---- The machine, for the report's heading.

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

// ---- Measurements.

struct Contender {
  std::string name;
  std::function<Run()> run;
  std::vector<Run> runs;  // one per repeat
};

struct Measurement {
  Job job;
  std::vector<Contender> contenders;
};

// A row of the table: contender `subject` of a measurement against its contender `reference`.
struct Comparison {
  std::size_t measurement = 0;
  std::size_t subject = 0;
  std::size_t reference = 0;
  double target = 0;  // the least ratio wanted; 0: for reference only
};

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

// The detail of the contender's latest run, which says why when it failed.
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

const std::vector<Comparison> kComparisons = {
    {0, 0, 1, 0.90},  // O_DIRECT random: io_uring vs fio
    {1, 0, 1, 0.90},  // O_DIRECT sequential: io_uring vs fio
    {2, 0, 2, 1.00},  // buffered warm: io_uring vs pread loop
    {2, 1, 2, 0},     // buffered warm: pread backend vs pread loop
    {2, 0, 3, 0},     // buffered warm: io_uring vs fio
};

// Runs every measurement `repeats` times; returns the least resident fraction of the file
// seen before a buffered measurement.
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

// ---- Reports.

struct Row {
  std::string measurement, subject, reference;
  std::optional<double> subject_mb_per_s, reference_mb_per_s, ratio;
  double target = 0;
  std::optional<bool> met;  // empty without a target or a ratio
};

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

struct Environment {
  std::string cpu, memory, kernel, file, file_system, device, fio, runs;
};

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

int run(const Args& args) {
  Setup setup;
  std::string origin;
  setup.path = prepare_file(args, &origin);
  setup.file_bytes = fs::file_size(setup.path);
  if (setup.file_bytes < kMiB) {
    throw std::runtime_error(setup.path.string() + " is shorter than the largest block (1 MiB)");
  }
  setup.budget = args.bytes > 0 ? Budget{0, args.bytes} : Budget{args.seconds, 0};
  setup.batch = args.batch;
  setup.fio = find_executable(args.fio);

  Environment env;
  const feedrate::CpuInfo cpu = feedrate::cpu_info();
  env.cpu = fmt::format("{} ({} CPUs available)", or_unknown(cpu.model), cpu.available);
  env.memory = fmt::format("{:.1f} GiB", feedrate::memory_limit_bytes() / double(kMiB * kKiB));
  env.kernel = kernel();
  env.file = fmt::format("{} ({:.0f} MiB, {})", setup.path.string(),
                         setup.file_bytes / double(kMiB), origin);
  const io::BlockDevice where = io::block_device_of(setup.path);
  env.file_system = file_system(where);
  env.device = block_device(where);
  if (setup.fio.empty()) {
    env.fio = fmt::format("'{}' not found (Debian package fio): feedrate's figures only", args.fio);
    fmt::print(stderr, "feedrate-io-bench: fio is missing: {}\n", env.fio);
  } else {
    setup.fio_version = fio_version(setup.fio);
    env.fio = fmt::format("{} ({})", setup.fio_version, setup.fio);
  }
  env.runs = fmt::format(
      "{} per run, median of {} repeat(s), order reversed every other repeat; feedrate reads "
      "{} requests per Reader::read; MB = 10^6 bytes",
      args.bytes > 0 ? fmt::format("{} bytes", args.bytes) : fmt::format("{:g} s", args.seconds),
      args.repeats, args.batch);

  std::vector<Measurement> measurements = plan(setup);
  const double resident = measure(setup, args.repeats, measurements);
  if (args.json) {
    fmt::print("{}\n", to_json(env, measurements, resident).dump(2));
  } else {
    print_text(env, measurements, resident);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App app{
      "feedrate-io-bench: feedrate's reader alone against fio, with the same block size, queue "
      "depth and O_DIRECT flag"};
  auto* file = app.add_option("--file", args.file,
                              "File to read (default: a generated test file under --dir)")
                   ->check(CLI::ExistingFile);
  auto* dir = app.add_option("--dir", args.dir,
                             "Folder of the generated test file, reused when "
                             "present with the right size")
                  ->capture_default_str();
  auto* size = app.add_option("--size-mb", args.size_mb, "Size of the generated test file, MiB")
                   ->capture_default_str()
                   ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
  file->excludes(dir)->excludes(size);
  auto* seconds = app.add_option("--seconds", args.seconds, "Seconds per run")
                      ->capture_default_str()
                      ->check(CLI::PositiveNumber);
  app.add_option("--bytes", args.bytes, "Bytes per run, instead of --seconds")
      ->check(CLI::PositiveNumber)
      ->excludes(seconds);
  app.add_option("--repeats", args.repeats, "Runs of each contender; the median is quoted")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--batch", args.batch, "Requests per Reader::read call")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
  app.add_option("--fio", args.fio, "fio executable")->capture_default_str();
  app.add_flag("--json", args.json, "Print one JSON object instead of text");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate-io-bench: {}\n", e.what());
    return 1;
  }
}
