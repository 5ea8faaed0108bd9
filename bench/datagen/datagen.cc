// Dataset layout (make_dataset): image sizes and seeds per index, the ImageFolder and tar shard
// layouts, and the build-in-a-temporary-directory-then-rename protocol.

#include "bench/datagen/datagen.h"

#include <fcntl.h>   // AT_FDCWD
#include <stdio.h>   // renameat2, RENAME_NOREPLACE
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "bench/datagen/image_formats.h"
#include "bench/datagen/random.h"
#include "io/tar_writer.h"

namespace feedrate::datagen {
namespace {

namespace fs = std::filesystem;

// Images are generated in batches by all threads, then written in order by the calling thread:
// files (and tar members) come out in a fixed order while encoding uses every core.
constexpr int kBatch = 64;

std::runtime_error io_error(const std::string& what, const fs::path& path, int error) {
  return std::runtime_error("make_dataset: " + what + " " + path.string() + ": " +
                            std::strerror(error));
}

int decimal_digits(int n) {
  int digits = 1;
  for (; n >= 10; n /= 10) ++digits;
  return digits;
}

// prefix + value zero-padded to `width` digits.
std::string padded(const char* prefix, int value, int width) {
  std::string digits = std::to_string(value);
  return prefix + std::string(std::max(0, width - static_cast<int>(digits.size())), '0') + digits;
}

void write_file(const fs::path& path, const std::vector<unsigned char>& data) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw io_error("cannot create", path, errno);
  const bool written = std::fwrite(data.data(), 1, data.size(), file) == data.size();
  const int write_errno = errno;
  if (std::fclose(file) != 0 || !written) {
    throw io_error("cannot write", path, written ? errno : write_errno);
  }
}

// The temporary directory next to the target; removed unless release()d, so that a failed run
// leaves nothing behind.
class TempDir {
 public:
  explicit TempDir(const fs::path& target) {
    std::string name = target.string() + ".tmp-XXXXXX";
    if (!mkdtemp(name.data())) throw io_error("cannot create a directory like", name, errno);
    path_ = name;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

// Moves `from` to `to` unless `to` exists, atomically where the filesystem supports it.
void rename_no_replace(const fs::path& from, const fs::path& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  if (errno == EEXIST) throw std::runtime_error("make_dataset: " + to.string() + " already exists");
  // Filesystems without RENAME_NOREPLACE: plain rename would silently replace an empty
  // directory, so check first and accept the small race.
  if (errno != EINVAL && errno != ENOSYS) throw io_error("cannot rename to", to, errno);
  if (fs::exists(fs::symlink_status(to))) {
    throw std::runtime_error("make_dataset: " + to.string() + " already exists");
  }
  fs::rename(from, to);
}

// Encodes images [first, first + n) of the dataset on `threads` threads.
std::vector<std::vector<unsigned char>> encode_batch(const DatasetSpec& spec, int first, int n,
                                                     int threads) {
  std::vector<std::vector<unsigned char>> jpegs(n);
  threads = std::min(threads, n);
  std::atomic<int> next{0};
  std::vector<std::exception_ptr> errors(threads);
  const auto work = [&](int worker) {
    try {
      for (int i = next++; i < n; i = next++) {
        const int index = first + i;
        const ImageSize size = dataset_image_size(spec.seed, index);
        JpegSpec jpeg;
        jpeg.width = size.width;
        jpeg.height = size.height;
        jpeg.quality = spec.quality;
        const std::uint64_t seed =
            derive_seed(spec.seed, 2 * static_cast<std::uint64_t>(index) + 1);
        jpegs[i] = spec.mixed_formats
                       ? encode_mixed(seed, index, size.width, size.height, spec.quality)
                       : make_jpeg(seed, jpeg);
      }
    } catch (...) {
      errors[worker] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return jpegs;
}

void validate(const DatasetSpec& spec) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("make_dataset: " + what);
  };
  if (spec.out.empty()) fail("empty output path");
  if (spec.count < 0) fail("negative image count " + std::to_string(spec.count));
  if (spec.classes < 1) fail("class count " + std::to_string(spec.classes) + " < 1");
  if (spec.quality < 1 || spec.quality > 100) {
    fail("quality " + std::to_string(spec.quality) + " outside [1, 100]");
  }
  if (spec.format == Format::kTar && spec.images_per_shard < 1) {
    fail("images_per_shard " + std::to_string(spec.images_per_shard) + " < 1");
  }
  if (spec.threads < 0) fail("negative thread count " + std::to_string(spec.threads));
}

}  // namespace

ImageSize dataset_image_size(std::uint64_t seed, int index) {
  Rng rng(derive_seed(seed, 2 * static_cast<std::uint64_t>(index)));
  const int bucket = rng.uniform_int(0, 99);
  if (bucket < 70) return {500, 375};
  if (bucket < 90) return {375, 500};
  const int width = rng.uniform_int(200, 800);
  return {width, rng.uniform_int(200, 800)};
}

DatasetSummary make_dataset(const DatasetSpec& spec) {
  validate(spec);
  // "data/" names the directory "data": the temporary sibling must be "data.tmp-*", not
  // "data/.tmp-*".
  const fs::path out = spec.out.has_filename() ? spec.out : spec.out.parent_path();
  if (fs::exists(fs::symlink_status(out))) {
    throw std::runtime_error("make_dataset: " + out.string() + " already exists");
  }
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  TempDir tmp(out);

  DatasetSummary summary;
  summary.classes = spec.classes;
  const int class_width = std::max(3, decimal_digits(spec.classes - 1));
  const int image_width = std::max(6, decimal_digits(std::max(0, spec.count - 1)));
  const int threads = spec.threads > 0
                          ? spec.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const auto class_dir = [&](int label) { return padded("class_", label, class_width); };

  if (spec.format == Format::kFolder) {
    for (int c = 0; c < spec.classes; ++c) fs::create_directory(tmp.path() / class_dir(c));
    if (spec.mixed_formats) {
      const std::string note = "not an image: a loader must count this file and leave it out\n";
      write_file(tmp.path() / class_dir(0) / "notes.txt",
                 std::vector<unsigned char>(note.begin(), note.end()));
    }
  }
  std::unique_ptr<io::TarWriter> shard;
  for (int first = 0; first < spec.count; first += kBatch) {
    const int n = std::min(kBatch, spec.count - first);
    const auto jpegs = encode_batch(spec, first, n, threads);
    for (int i = 0; i < n; ++i) {
      const int index = first + i;
      const int label =
          spec.class_order
              ? static_cast<int>(static_cast<std::int64_t>(index) * spec.classes / spec.count)
              : index % spec.classes;
      const std::string key = padded("img_", index, image_width);
      const std::vector<unsigned char>& jpeg = jpegs[i];
      summary.jpeg_bytes += jpeg.size();
      const std::string extension = spec.mixed_formats ? mixed_kind(index).extension : ".jpg";
      if (spec.format == Format::kFolder) {
        const fs::path relative = fs::path(class_dir(label)) / (key + extension);
        write_file(tmp.path() / relative, jpeg);
        summary.files.push_back(out / relative);
        summary.bytes += jpeg.size();
        continue;
      }
      if (index % spec.images_per_shard == 0) {
        if (shard) {
          shard->finish();
          summary.bytes += shard->bytes_written();
        }
        const std::string name = padded("shard_", index / spec.images_per_shard, 6) + ".tar";
        shard = std::make_unique<io::TarWriter>(tmp.path() / name);
        summary.files.push_back(out / name);
      }
      const std::string label_text = std::to_string(label) + "\n";
      std::string member = key + extension;
      std::transform(member.begin(), member.end(), member.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      shard->add(member, jpeg);
      shard->add(key + ".cls", std::span(reinterpret_cast<const unsigned char*>(label_text.data()),
                                         label_text.size()));
    }
  }
  if (shard) {
    shard->finish();
    summary.bytes += shard->bytes_written();
  }
  summary.images = static_cast<std::size_t>(spec.count);

  rename_no_replace(tmp.path(), out);
  tmp.release();
  return summary;
}

}  // namespace feedrate::datagen
