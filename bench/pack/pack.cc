#include "bench/pack/pack.h"

#include <fmt/core.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "decode/decoder.h"
#include "decode/format.h"
#include "decode/jpeg_pack.h"
#include "decode/pack_choice.h"
#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "io/tar_writer.h"
#include "loader/dataset/dataset_reader.h"
#include "loader/dataset/pack_index.h"

namespace feedrate::bench {
namespace {

namespace fs = std::filesystem;

// Samples packed in parallel before they are written in order: enough to keep the workers
// busy, few enough that their bytes stay small (about 128 x 150 KB).
constexpr std::size_t kBatch = 128;

enum class Kind { kLossless, kResized, kUnchanged, kBad };

struct Packed {
  Kind kind = Kind::kBad;
  std::vector<std::uint8_t> bytes;  // the member's content
  const char* extension = "jpg";
  std::string error;
  int source_width = 0, source_height = 0;  // kResized only
};

// One per worker thread: codec state and scratch reused from sample to sample.
struct Worker {
  explicit Worker(int restart_mcus) : packer({}, restart_mcus) {}
  decode::JpegPacker packer;
  decode::Decoder decoder;
  std::vector<std::uint8_t> source, rgb;
};

const char* extension_of(decode::ImageFormat format, std::span<const std::uint8_t> bytes) {
  switch (format) {
    case decode::ImageFormat::kPng:
      return "png";
    case decode::ImageFormat::kWebp:
      return "webp";
    case decode::ImageFormat::kTiff:
      return "tif";
    case decode::ImageFormat::kBmp:
      return "bmp";
    case decode::ImageFormat::kPnm:
      return bytes.size() > 1 && bytes[1] == '5' ? "pgm" : "ppm";
    default:
      return "jpg";
  }
}

// A pack output's own files: those a restart removes.
bool is_pack_file(const std::string& name) {
  const bool shard =
      name.starts_with("shard-") && (name.ends_with(".tar") || name.ends_with(".tar.tmp"));
  return shard || name == kPackIndexFile || name == std::string(kPackIndexFile) + ".tmp";
}

void prepare_output(const fs::path& out) {
  std::error_code error;
  if (!fs::exists(out, error)) {
    fs::create_directories(out, error);
    if (error) throw Error(out.string() + ": cannot create: " + error.message());
    return;
  }
  if (!fs::is_directory(out, error)) throw Error(out.string() + ": exists and is not a folder");
  std::vector<fs::path> stale;
  for (const fs::directory_entry& entry : fs::directory_iterator(out, error)) {
    const std::string name = entry.path().filename().string();
    if (!is_pack_file(name)) {
      throw Error(out.string() + ": holds " + name +
                  ", which is not part of a feedrate pack; give a new or empty folder");
    }
    stale.push_back(entry.path());
  }
  if (error) throw Error(out.string() + ": cannot list: " + error.message());
  for (const fs::path& path : stale) {
    fs::remove(path, error);
    if (error) throw Error(path.string() + ": cannot remove: " + error.message());
  }
}

Packed pack_one(Worker& worker, const DatasetReader& reader, std::size_t index,
                const PackOptions& options) {
  Packed result;
  std::error_code error;
  reader.read(index, worker.source, error);
  if (error) {
    result.error = "cannot read: " + error.message();
    return result;
  }
  const std::span<const std::uint8_t> bytes = worker.source;
  const decode::PackChoice choice = decode::pack_choice(bytes);
  // A JPEG packed already is kept too, unless --max-side may have to resample it.
  if (choice == decode::PackChoice::kNotJpeg ||
      (choice == decode::PackChoice::kPackedAlready && options.max_side == 0)) {
    // Stored unchanged, once it is known to decode.
    const decode::DecodeStatus status = worker.decoder.decode_full(bytes, worker.rgb);
    if (!status.ok()) {
      result.error = status.message;
      return result;
    }
    result.kind = Kind::kUnchanged;
    result.extension = extension_of(decode::sniff_format(bytes), bytes);
    result.bytes.assign(bytes.begin(), bytes.end());
    return result;
  }
  const decode::DecodeStatus status =
      options.max_side > 0
          ? worker.packer.pack_resized(bytes, options.max_side, options.quality, result.bytes)
          : worker.packer.pack(bytes, result.bytes);
  if (status.ok()) {
    result.kind = worker.packer.resized() ? Kind::kResized : Kind::kLossless;
    result.source_width = worker.packer.source_width();
    result.source_height = worker.packer.source_height();
  } else if (decode::store_unchanged(status)) {
    result.kind = Kind::kUnchanged;
    result.bytes.assign(bytes.begin(), bytes.end());
  } else {
    result.error = status.message;
  }
  return result;
}

// The shard being written: name.tar.tmp until close() renames it.
class ShardWriter {
 public:
  ShardWriter(fs::path out, std::uint64_t limit_bytes)
      : out_(std::move(out)), limit_(limit_bytes) {}
  ~ShardWriter() {
    if (tar_) {
      tar_.reset();
      std::error_code ignored;
      fs::remove(tmp_, ignored);
    }
  }

  void add(std::uint64_t sample, const std::string& key, const Packed& packed, std::int32_t label) {
    const std::uint64_t member_bytes = 3 * io::kTarBlockSize + packed.bytes.size();
    if (tar_ && samples_ > 0 && tar_->bytes_written() + member_bytes > limit_) close();
    if (!tar_) {
      const std::string name = fmt::format("shard-{:06}.tar", shards_.size());
      tmp_ = out_ / (name + ".tmp");
      tar_.emplace(tmp_);
      first_ = sample;
      samples_ = 0;
      members_.clear();
    }
    // A member is one header block, then its data: names here are far below ustar's 100 bytes.
    const std::string name = key + "." + packed.extension;
    members_.push_back(
        {name, tar_->bytes_written() + io::kTarBlockSize, packed.bytes.size(), label});
    tar_->add(name, packed.bytes);
    const std::string text = std::to_string(label) + "\n";
    tar_->add(key + ".cls",
              std::span(reinterpret_cast<const unsigned char*>(text.data()), text.size()));
    ++samples_;
  }

  void close() {
    if (!tar_) return;
    tar_->finish();
    const std::uint64_t bytes = tar_->bytes_written();
    tar_.reset();
    fs::path final_path = tmp_;
    final_path.replace_extension();  // drops ".tmp"
    std::error_code error;
    fs::rename(tmp_, final_path, error);
    if (error) throw Error(tmp_.string() + ": cannot rename: " + error.message());
    shards_.push_back(
        {final_path.filename().string(), first_, samples_, bytes, std::move(members_), {}});
    members_.clear();
    total_bytes_ += bytes;
  }

  const std::vector<PackIndex::Shard>& shards() const { return shards_; }
  std::uint64_t total_bytes() const { return total_bytes_; }

 private:
  fs::path out_, tmp_;
  std::uint64_t limit_;
  std::optional<io::TarWriter> tar_;
  std::uint64_t first_ = 0, samples_ = 0, total_bytes_ = 0;
  std::vector<PackIndex::Member> members_;  // of the shard being written
  std::vector<PackIndex::Shard> shards_;
};

}  // namespace

PackSummary pack_dataset(const PackOptions& options, const PackProgress& progress) {
  const Dataset dataset = Dataset::open(options.source);
  prepare_output(options.out);
  const DatasetReader reader(dataset);
  const int workers = options.workers > 0
                          ? options.workers
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  tbb::task_arena arena(workers);
  tbb::enumerable_thread_specific<std::unique_ptr<Worker>> per_thread;
  ShardWriter writer(options.out, static_cast<std::uint64_t>(options.shard_mb) << 20);
  PackSummary summary;
  PackIndex index;
  index.source = options.source;
  index.options = {options.max_side, options.quality, options.restart_mcus, options.shard_mb};
  std::vector<Packed> batch(kBatch);
  const std::size_t total = dataset.size();
  std::uint64_t written = 0;
  for (std::size_t begin = 0; begin < total; begin += kBatch) {
    const std::size_t end = std::min(total, begin + kBatch);
    arena.execute([&] {
      tbb::parallel_for(begin, end, [&](std::size_t i) {
        std::unique_ptr<Worker>& worker = per_thread.local();
        if (!worker) worker = std::make_unique<Worker>(options.restart_mcus);
        batch[i - begin] = pack_one(*worker, reader, i, options);
      });
    });
    for (std::size_t i = begin; i < end; ++i) {
      Packed& packed = batch[i - begin];
      summary.source_bytes += dataset.sample(i).size;
      if (packed.kind == Kind::kBad) {
        if (!options.skip_bad) throw Error(dataset.describe(i) + ": " + packed.error);
        index.skipped.push_back({i, dataset.describe(i), packed.error});
        ++summary.skipped;
        continue;
      }
      if (packed.kind == Kind::kLossless) ++summary.lossless;
      if (packed.kind == Kind::kUnchanged) ++summary.unchanged;
      if (packed.kind == Kind::kResized) {
        ++summary.resized;
        index.resized.push_back({written, packed.source_width, packed.source_height});
      }
      writer.add(written, fmt::format("{:08}", i), packed, dataset.sample(i).label);
      summary.image_bytes += packed.bytes.size();
      ++written;
      packed = Packed{};
    }
    if (progress) progress(end, total);
  }
  writer.close();
  summary.samples = written;
  summary.shards = writer.shards().size();
  summary.shard_bytes = writer.total_bytes();
  index.source_samples = total;
  index.samples = written;
  index.shards = writer.shards();
  index.counts = {summary.lossless, summary.resized, summary.unchanged, summary.skipped};
  index.source_bytes = summary.source_bytes;
  index.image_bytes = summary.image_bytes;
  index.shard_bytes = summary.shard_bytes;
  write_pack_index(options.out, index);
  return summary;
}

}  // namespace feedrate::bench
