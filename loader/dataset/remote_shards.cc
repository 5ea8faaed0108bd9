#include "loader/dataset/remote_shards.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "feedrate/error.h"
#include "io/remote/range_fetcher.h"

namespace feedrate {
namespace {

constexpr std::uint64_t kRangeBytes = std::uint64_t{8} << 20;
constexpr std::size_t kShardsHeld = 4;

// One shard's bytes in an anonymous in-memory file, mapped for the fetcher to write into.
class HeldShard {
 public:
  explicit HeldShard(const io::ObjectInfo& object) : object_(object) {
    fd_ = ::memfd_create("feedrate-shard", MFD_CLOEXEC);
    if (fd_ < 0) throw Error(object.url + ": cannot hold the shard: " + std::strerror(errno));
    if (object.size > 0) {
      if (::ftruncate(fd_, static_cast<off_t>(object.size)) != 0) {
        ::close(fd_);
        throw Error(object.url + ": cannot hold the shard: " + std::strerror(errno));
      }
      void* map = ::mmap(nullptr, object.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
      if (map == MAP_FAILED) {
        ::close(fd_);
        throw Error(object.url + ": cannot hold the shard: " + std::strerror(errno));
      }
      bytes_ = static_cast<std::byte*>(map);
    }
    ranges_left_ = (object.size + kRangeBytes - 1) / kRangeBytes;
  }
  ~HeldShard() {
    if (bytes_ != nullptr) ::munmap(bytes_, object_.size);
    ::close(fd_);
  }
  HeldShard(const HeldShard&) = delete;
  HeldShard& operator=(const HeldShard&) = delete;

  const io::ObjectInfo& object() const { return object_; }
  int fd() const { return fd_; }
  std::span<std::byte> range(std::uint64_t k) const {
    const std::uint64_t offset = k * kRangeBytes;
    return {bytes_ + offset,
            static_cast<std::size_t>(std::min(kRangeBytes, object_.size - offset))};
  }
  std::uint64_t ranges() const { return (object_.size + kRangeBytes - 1) / kRangeBytes; }
  // One range arrived; true when it was the last.
  bool arrived() { return --ranges_left_ == 0; }
  bool done() const { return ranges_left_ == 0; }

 private:
  io::ObjectInfo object_;
  int fd_ = -1;
  std::byte* bytes_ = nullptr;
  std::uint64_t ranges_left_ = 0;
};

// The progress line, drawn in place on a terminal at most every half second.
class IndexProgress {
 public:
  explicit IndexProgress(std::size_t shards)
      : shards_(shards), on_terminal_(::isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  void update(std::size_t done, std::uint64_t bytes, bool last) {
    if (!on_terminal_) return;
    const auto now = Clock::now();
    if (!last && now - drawn_ < std::chrono::milliseconds(500)) return;
    drawn_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\rfeedrate: indexing tar shards %zu/%zu, %.1f MB, %.1f MB/s%s", done,
                 shards_, static_cast<double>(bytes) / 1e6,
                 seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0, last ? "\n" : "");
  }

 private:
  using Clock = std::chrono::steady_clock;
  const std::size_t shards_;
  const bool on_terminal_;
  const Clock::time_point start_;
  Clock::time_point drawn_{};
};

}  // namespace

void index_remote_shards(const RemoteSettings& settings, const std::vector<io::ObjectInfo>& shards,
                         const std::function<void(const io::ObjectInfo&, int fd)>& index) {
  io::RangeFetcher fetcher(settings.s3, settings.fetch);
  std::deque<std::unique_ptr<HeldShard>> held;  // shards[first_held, first_held + held.size())
  std::size_t first_held = 0;
  std::size_t next_shard = 0;
  std::uint64_t bytes = 0;
  IndexProgress progress(shards.size());
  std::vector<io::FetchResult> completed;
  while (first_held < shards.size()) {
    while (next_shard < shards.size() && held.size() < kShardsHeld) {
      held.push_back(std::make_unique<HeldShard>(shards[next_shard]));
      HeldShard& shard = *held.back();
      for (std::uint64_t k = 0; k < shard.ranges(); ++k) {
        io::FetchRequest request;
        request.url = shard.object().url;
        request.offset = k * kRangeBytes;
        request.dest = shard.range(k);
        request.tag = next_shard;
        request.if_match = shard.object().etag;
        fetcher.submit(std::move(request));
      }
      ++next_shard;
    }
    // The shards in order whose bytes are all here are indexed and let go.
    while (!held.empty() && held.front()->done()) {
      index(held.front()->object(), held.front()->fd());
      held.pop_front();
      ++first_held;
      progress.update(first_held, bytes, first_held == shards.size());
    }
    if (first_held == shards.size() || fetcher.pending() == 0) continue;
    completed.clear();
    fetcher.poll(std::chrono::milliseconds(200), completed);
    for (const io::FetchResult& result : completed) {
      if (result.error) throw Error(result.message);
      bytes += result.bytes;
      held[result.tag - first_held]->arrived();
    }
    progress.update(first_held, bytes, false);
  }
}

}  // namespace feedrate
