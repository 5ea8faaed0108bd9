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
// The parts: job.h (what a measurement runs), contenders.h (feedrate, the pread loop, fio),
// measurements.h (the plan, the repeats, the comparisons), test_file.h, report.h.
//
// Usage: feedrate-io-bench [--file PATH | --dir DIR --size-mb N] [--seconds S | --bytes N]
//                          [--repeats N] [--batch N] [--fio PATH] [--json]
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/micro/io_bench/job.h"
#include "bench/micro/io_bench/measurements.h"
#include "bench/micro/io_bench/report.h"
#include "bench/micro/io_bench/subprocess.h"
#include "bench/micro/io_bench/test_file.h"

namespace feedrate::io_bench {
namespace {

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

int run(const Args& args) {
  Setup setup;
  std::string origin;
  setup.path = prepare_file(args.file, args.dir, args.size_mb, &origin);
  setup.file_bytes = fs::file_size(setup.path);
  if (setup.file_bytes < kMiB) {
    throw std::runtime_error(setup.path.string() + " is shorter than the largest block (1 MiB)");
  }
  setup.budget = args.bytes > 0 ? Budget{0, args.bytes} : Budget{args.seconds, 0};
  setup.batch = args.batch;
  setup.fio = find_executable(args.fio);

  Environment env = environment(setup, origin);
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
}  // namespace feedrate::io_bench

int main(int argc, char** argv) {
  feedrate::io_bench::Args args;
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
    return feedrate::io_bench::run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate-io-bench: {}\n", e.what());
    return 1;
  }
}
