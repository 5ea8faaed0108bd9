#include "loader/cache/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "feedrate/error.h"
#include "loader/cache/key.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

PackCacheStore::PackCacheStore(const fs::path& cache_dir, const Dataset& dataset,
                               const std::string& source)
    : dataset_(dataset), entries_(dataset.size()) {
  const std::string name_key = source_name_key(source);
  const std::string key = source_key(dataset, kFormatVersion);
  open_folder(cache_dir, name_key, key);
  retire_stale_folders(cache_dir, name_key, key);
  remove_stale_files(folder_);
}

PackCacheStore::~PackCacheStore() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void PackCacheStore::open_folder(const fs::path& cache_dir, const std::string& name_key,
                                 const std::string& key) {
  folder_ = cache_dir / (name_key + "-" + key);
  const fs::path lock = folder_ / "lock";
  // A loader retiring this folder may delete it between its creation and the lock: then the
  // lock file taken is not the folder's any more, and the folder is made again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::error_code error;
    fs::create_directories(folder_, error);
    if (error)
      throw Error("option cache_dir: " + folder_.string() + ": cannot create: " + error.message());
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) {
      if (errno == ENOENT) continue;
      throw Error("option cache_dir: " + lock.string() + ": cannot open: " + errno_text());
    }
    if (::flock(lock_fd_, LOCK_SH) != 0) {
      throw Error("option cache_dir: " + lock.string() + ": cannot lock: " + errno_text());
    }
    struct stat held {
    }, named{};
    if (::fstat(lock_fd_, &held) == 0 && ::stat(lock.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
      return;
    }
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  throw Error("option cache_dir: " + folder_.string() + ": deleted by another process each time");
}

void PackCacheStore::retire_stale_folders(const fs::path& cache_dir, const std::string& name_key,
                                          const std::string& key) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(cache_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(name_key + "-") || name == name_key + "-" + key) continue;
    const int fd = ::open((entry.path() / "lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) fs::remove_all(entry.path(), error);
    ::close(fd);
  }
}

void PackCacheStore::load(std::vector<std::string>& warnings) {
  std::vector<std::string> fresh;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder_, error)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".idx") && !loaded_.count(name)) fresh.push_back(name);
  }
  if (error) {
    cache_warning(folder_.string() + ": cannot list: " + error.message(), warnings);
    return;
  }
  std::sort(fresh.begin(), fresh.end());
  SegmentIndex index;
  for (const std::string& name : fresh) {
    loaded_.insert(name);
    const fs::path index_file = folder_ / name;
    std::string problem = read_segment_index(index_file, entries_.size(), index);
    io::File file;
    if (problem.empty()) {
      std::error_code open_error;
      file = io::File::open(index.data, open_error);
      if (open_error) problem = index.data.string() + ": cannot open: " + open_error.message();
    }
    if (!problem.empty()) {
      // A segment that does not check is of no use to anyone: removed, so that no later run
      // stumbles on it again.
      cache_warning("segment removed: " + problem, warnings);
      fs::path data = index_file;
      data.replace_extension(".dat");
      fs::remove(index_file, error);
      fs::remove(data, error);
      continue;
    }
    const auto segment = static_cast<std::uint32_t>(segments_.size());
    segments_.push_back({index.data, std::move(file)});
    disk_bytes_ += index.bytes;
    for (const SegmentEntry& e : index.entries) {
      Entry& slot = entries_[e.sample];
      if (slot.segment == kNone) {
        ++samples_;
        source_bytes_ += dataset_.sample(e.sample).size;
      } else {
        entry_bytes_ -= slot.size;
      }
      slot = {segment, e.size, e.offset, e.checksum};
      entry_bytes_ += e.size;
    }
  }
}

std::string PackCacheStore::describe(const Entry& entry) const {
  return segments_[entry.segment].data.string() + " at byte " + std::to_string(entry.offset);
}

void PackCacheStore::forget(std::uint32_t sample) {
  Entry& entry = entries_[sample];
  if (entry.segment == kNone) return;
  --samples_;
  entry_bytes_ -= entry.size;
  source_bytes_ -= dataset_.sample(sample).size;
  entry = Entry{};
}

std::string PackCacheStore::new_segment_name() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  char name[96];
  std::snprintf(name, sizeof(name), "seg-%016llx-%d-%llu",
                static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()),
                static_cast<int>(::getpid()), static_cast<unsigned long long>(names_made_++));
  return name;
}

}  // namespace feedrate
