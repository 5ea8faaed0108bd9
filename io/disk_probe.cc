#include "io/disk_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <random>
#include <span>
#include <system_error>
#include <vector>

#include "io/clock.h"
#include "io/page_cache.h"
#include "io/reader.h"
#include "io/temp_file.h"

namespace feedrate::io {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kSequentialRead = std::size_t{1} << 20;
constexpr unsigned kSequentialDepth = 8;
constexpr std::size_t kRandomRead = 4096;
constexpr unsigned kRandomDepth = 32;

// Fills `path` with `bytes` of random data, flushed to the device and evicted from the page cache.
void write_probe_file(const fs::path& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "opening " + path.string());
  std::vector<unsigned char> chunk(kSequentialRead);
  std::mt19937_64 random(bytes);
  for (auto& byte : chunk) byte = static_cast<unsigned char>(random());
  for (std::uint64_t written = 0; written < bytes;) {
    const ssize_t n = ::write(fd, chunk.data(), chunk.size());
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::close(fd);
      throw std::system_error(error, std::generic_category(), "writing " + path.string());
    }
    written += static_cast<std::uint64_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  evict_from_page_cache(path);  // best effort: matters only if O_DIRECT is refused
}

void check(std::span<const ReadRequest> requests, const fs::path& path) {
  for (const ReadRequest& r : requests) {
    if (r.error) throw std::system_error(r.error, "reading " + path.string());
  }
}

// Reads batches of requests from `next_offset` until `seconds` pass; returns (requests, seconds).
template <typename NextOffset>
std::pair<std::uint64_t, double> read_for(Reader& reader, int fd, const fs::path& path,
                                          std::size_t read_size, std::size_t batch, double seconds,
                                          NextOffset next_offset) {
  std::vector<std::byte> buffer(read_size * batch);
  std::vector<ReadRequest> requests(batch);
  std::uint64_t done = 0;
  const auto start = Clock::real().now();
  double elapsed = 0;
  while (elapsed < seconds) {
    for (std::size_t i = 0; i < batch; ++i) {
      requests[i] = ReadRequest{};
      requests[i].fd = fd;
      requests[i].offset = next_offset();
      requests[i].dest = {buffer.data() + i * read_size, read_size};
    }
    reader.read(requests);
    check(requests, path);
    done += batch;
    elapsed = std::chrono::duration<double>(Clock::real().now() - start).count();
  }
  return {done, elapsed};
}

}  // namespace

DiskProbe probe_disk(const fs::path& directory, const DiskProbeOptions& options) {
  const auto start = Clock::real().now();
  const std::uint64_t blocks = std::max<std::uint64_t>(1, options.file_bytes / kSequentialRead);
  const TempFile file(directory, "feedrate-doctor");
  write_probe_file(file.path(), blocks * kSequentialRead);
  DiskProbe probe;

  ReaderOptions reader_options;
  reader_options.direct_io = true;
  reader_options.queue_depth = kSequentialDepth;
  std::unique_ptr<Reader> sequential = Reader::create(reader_options, nullptr);
  std::error_code error;
  File fd = sequential->open(file.path(), error);
  if (error) throw std::system_error(error, "opening " + file.path().string());
  probe.direct = fd.direct();
  std::uint64_t block = 0;
  const auto [seq_reads, seq_s] =
      read_for(*sequential, fd.fd(), file.path(), kSequentialRead, 4 * kSequentialDepth,
               options.seconds_per_test, [&] { return (block++ % blocks) * kSequentialRead; });
  probe.sequential_mb_per_s = seq_reads * kSequentialRead / 1e6 / seq_s;
  probe.backend = sequential->describe_backend();

  reader_options.queue_depth = kRandomDepth;
  std::unique_ptr<Reader> random_reader = Reader::create(reader_options, nullptr);
  std::mt19937_64 random(options.seed);
  const std::uint64_t pages = blocks * kSequentialRead / kRandomRead;
  std::uniform_int_distribution<std::uint64_t> page(0, pages - 1);
  const auto [random_reads, random_s] =
      read_for(*random_reader, fd.fd(), file.path(), kRandomRead, 8 * kRandomDepth,
               options.seconds_per_test, [&] { return page(random) * kRandomRead; });
  probe.random_iops = random_reads / random_s;
  probe.random_latency_p50_us = random_reader->stats().latency_p50_us;
  probe.seconds = std::chrono::duration<double>(Clock::real().now() - start).count();
  return probe;
}

}  // namespace feedrate::io
