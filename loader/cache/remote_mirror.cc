#include "loader/cache/remote_mirror.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "feedrate/error.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// The folder's name: the source, the index and each object's size and ETag.
std::string mirror_key(const std::string& source, const Dataset& dataset) {
  XXH64_state_t* state = XXH64_createState();
  XXH64_reset(state, 0);
  const auto add = [&](const std::string& text) {
    XXH64_update(state, text.c_str(), text.size() + 1);
  };
  add(source);
  add(dataset.index_hash());
  for (std::uint32_t file = 0; file < dataset.files().size(); ++file) {
    add(dataset.files()[file].string());
    add(dataset.etag(file));
  }
  for (std::size_t i = 0; i < dataset.size(); ++i) {
    const SampleRef& ref = dataset.sample(i);
    const std::uint64_t fields[] = {ref.file, ref.offset, ref.size};
    XXH64_update(state, fields, sizeof(fields));
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(XXH64_digest(state)));
  XXH64_freeState(state);
  return hex;
}

int open_or_throw(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(path.string() + ": cannot open the cache file: " + std::strerror(errno));
  return fd;
}

}  // namespace

RemoteMirror::RemoteMirror(const fs::path& cache_dir, const std::string& source,
                           const Dataset& dataset, double cache_gb)
    : dataset_(dataset),
      cache_bytes_cap_(cache_gb * 1e9),
      folder_(cache_dir / ("remote-" + mirror_key(source, dataset))),
      present_(std::make_unique<std::atomic<bool>[]>(dataset.size())),
      hashes_(dataset.size(), 0) {
  std::error_code error;
  fs::create_directories(folder_ / "objects", error);
  if (error) throw Error(folder_.string() + ": cannot create the cache folder: " + error.message());
  for (std::uint32_t file = 0; file < dataset.files().size(); ++file) {
    fds_.push_back(open_or_throw(folder_ / "objects" / std::to_string(file), O_RDWR | O_CREAT));
  }
  log_ = open_or_throw(folder_ / "present", O_RDWR | O_CREAT | O_APPEND);
  for (const auto& entry : fs::directory_iterator(folder_ / "objects", error)) {
    struct stat st;
    if (::stat(entry.path().c_str(), &st) == 0) folder_bytes_ += st.st_blocks * 512ull;
  }
  refresh();
}

RemoteMirror::~RemoteMirror() {
  for (const int fd : fds_) ::close(fd);
  if (log_ >= 0) ::close(log_);
}

void RemoteMirror::take_record(const Record& record) {
  if (record.index >= dataset_.size() || record.size != dataset_.sample(record.index).size) return;
  std::lock_guard lock(mutex_);
  hashes_[record.index] = record.hash;
  if (!present_[record.index].exchange(true, std::memory_order_release)) ++stats_.present;
}

void RemoteMirror::refresh() {
  Record record{};
  while (::pread(log_, &record, sizeof(record), static_cast<off_t>(log_read_)) ==
         static_cast<ssize_t>(sizeof(record))) {
    log_read_ += sizeof(record);
    take_record(record);
  }
}

void RemoteMirror::stop_storing(std::string why) {
  if (stats_.stopped.empty()) stats_.stopped = std::move(why);
}

void RemoteMirror::store(std::uint32_t index, std::span<const std::byte> bytes) {
  {
    std::lock_guard lock(mutex_);
    if (!stats_.stopped.empty() || present_[index].load(std::memory_order_acquire)) return;
    if (cache_bytes_cap_ > 0 &&
        static_cast<double>(folder_bytes_ + bytes.size()) > cache_bytes_cap_) {
      stop_storing("the cache folder reached cache_gb");
      return;
    }
    since_space_check_ += bytes.size();
    if (folder_bytes_ == 0 || since_space_check_ > (std::uint64_t{64} << 20)) {
      since_space_check_ = 0;
      struct statvfs disk;
      if (::statvfs(folder_.c_str(), &disk) == 0 &&
          static_cast<double>(disk.f_bavail) < 0.05 * static_cast<double>(disk.f_blocks)) {
        stop_storing("less than 5% of the cache's disk is free");
        return;
      }
    }
  }
  const SampleRef& ref = dataset_.sample(index);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fds_[ref.file], bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(ref.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::lock_guard lock(mutex_);
      stop_storing(folder_.string() + ": write failed: " + std::strerror(n < 0 ? errno : EIO));
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  const Record record{index, static_cast<std::uint32_t>(bytes.size()),
                      XXH64(bytes.data(), bytes.size(), 0)};
  if (::write(log_, &record, sizeof(record)) != static_cast<ssize_t>(sizeof(record))) {
    std::lock_guard lock(mutex_);
    stop_storing(folder_.string() + ": cannot record a sample: " + std::strerror(errno));
    return;
  }
  std::lock_guard lock(mutex_);
  ++stats_.stored;
  stats_.stored_bytes += bytes.size();
  folder_bytes_ += bytes.size();
  hashes_[index] = record.hash;
  if (!present_[index].exchange(true, std::memory_order_release)) ++stats_.present;
}

bool RemoteMirror::verify(std::uint32_t index, std::span<const std::byte> bytes) {
  std::lock_guard lock(mutex_);
  const bool good = bytes.size() == dataset_.sample(index).size &&
                    XXH64(bytes.data(), bytes.size(), 0) == hashes_[index];
  if (!good) ++stats_.verify_failures;
  return good;
}

void RemoteMirror::forget(std::uint32_t index) {
  std::lock_guard lock(mutex_);
  if (present_[index].exchange(false, std::memory_order_release)) --stats_.present;
}

void RemoteMirror::count(std::uint64_t hits, std::uint64_t misses) {
  std::lock_guard lock(mutex_);
  stats_.hits += hits;
  stats_.misses += misses;
}

RemoteMirrorStats RemoteMirror::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

CacheFigures mirror_figures(const RemoteMirror& mirror, const Dataset& dataset) {
  const RemoteMirrorStats stats = mirror.stats();
  CacheFigures figures;
  figures.enabled = true;
  figures.folder = mirror.folder().string();
  figures.samples = stats.present;
  figures.dataset_samples = dataset.size();
  for (std::uint32_t index = 0; index < dataset.size(); ++index) {
    if (mirror.contains(index)) figures.bytes += dataset.sample(index).size;
  }
  figures.source_bytes = figures.bytes;  // stored unchanged
  figures.disk_bytes = figures.bytes;
  figures.hits = stats.hits;
  figures.misses = stats.misses;
  figures.hit_rate =
      stats.hits + stats.misses > 0
          ? static_cast<double>(stats.hits) / static_cast<double>(stats.hits + stats.misses)
          : 0;
  figures.fallbacks = stats.verify_failures;
  figures.unchanged = stats.stored;
  figures.written_bytes = stats.stored_bytes;
  figures.stopped = !stats.stopped.empty();
  if (figures.stopped) figures.warnings.push_back(stats.stopped);
  return figures;
}

}  // namespace feedrate
