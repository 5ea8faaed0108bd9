#include "loader/dataset/remote_annotation_files.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

#include "feedrate/error.h"

namespace feedrate {

namespace fs = std::filesystem;

namespace {

// GETs in flight while a folder is mirrored: label files are small, so the round trips, not the
// bytes, set the time.
constexpr std::size_t kFetchThreads = 16;

}  // namespace

RemoteAnnotationFiles::RemoteAnnotationFiles() {
  std::string pattern = (fs::temp_directory_path() / "feedrate-annotations-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(pattern + ": cannot make a folder for the remote annotations: " +
                std::generic_category().message(errno));
  }
  root_ = pattern;
}

RemoteAnnotationFiles::~RemoteAnnotationFiles() {
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

void RemoteAnnotationFiles::write(const fs::path& path, std::string_view bytes) const {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  std::FILE* out = error ? nullptr : std::fopen(path.c_str(), "wb");
  const bool written =
      out != nullptr && std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  if (out == nullptr || std::fclose(out) != 0 || !written) {
    throw Error(path.string() + ": cannot write the local copy of a remote annotation file");
  }
}

fs::path RemoteAnnotationFiles::fetch(io::ObjectStore& store, const std::string& url,
                                      const std::string& name) {
  io::RemoteResult<std::string> bytes = store.get(url);
  if (!bytes.ok()) throw Error(bytes.message);
  const fs::path path = root_ / name;
  write(path, bytes.value);
  return path;
}

void RemoteAnnotationFiles::mirror(const RemoteSettings& settings, const std::string& prefix,
                                   const std::vector<io::ObjectInfo>& objects,
                                   const std::string& into,
                                   const std::function<bool(std::string_view)>& with_bytes) {
  const fs::path folder = root_ / into;
  std::vector<const io::ObjectInfo*> fetched;
  for (const io::ObjectInfo& object : objects) {
    const std::string_view key = std::string_view(object.url).substr(prefix.size());
    if (with_bytes(key)) {
      fetched.push_back(&object);
    } else {
      write(folder / key, {});
    }
  }
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  const auto work = [&] {
    try {
      io::ObjectStore store(settings.s3, settings.store);
      for (std::size_t i = next++; i < fetched.size(); i = next++) {
        const std::string& url = fetched[i]->url;
        io::RemoteResult<std::string> bytes = store.get(url);
        if (!bytes.ok()) throw Error(bytes.message);
        write(folder / url.substr(prefix.size()), bytes.value);
      }
    } catch (const std::exception& e) {
      const std::lock_guard lock(failure_mutex);
      if (failure.empty()) failure = e.what();
      next = fetched.size();  // the others stop at their next object
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < std::min(kFetchThreads, fetched.size()); ++t) {
    threads.emplace_back(work);
  }
  work();
  for (std::thread& thread : threads) thread.join();
  if (!failure.empty()) throw Error(failure);
}

}  // namespace feedrate
