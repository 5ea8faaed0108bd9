#include "loader/dataset/dataset_reader.h"

#include <chrono>
#include <optional>
#include <span>

#include "feedrate/error.h"
#include "io/file.h"
#include "io/remote/range_fetcher.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {

struct DatasetReader::Files {
  std::vector<io::File> shared;          // one per file of a dataset whose files are shared
  std::optional<RemoteSettings> remote;  // a remote dataset's
};

namespace {

// A remote sample's bytes, one ranged GET; `error` set (io::RemoteErrc) on failure.
void fetch(const Dataset& dataset, const RemoteSettings& remote, const SampleRef& ref,
           std::vector<std::uint8_t>& bytes, std::error_code& error) {
  io::RangeFetcher fetcher(remote.s3, remote.fetch);
  io::FetchRequest request;
  request.url = dataset.files()[ref.file].string();
  request.offset = ref.offset;
  request.dest = std::as_writable_bytes(std::span(bytes));
  request.if_match = dataset.etag(ref.file);
  fetcher.submit(std::move(request));
  std::vector<io::FetchResult> done;
  while (done.empty()) fetcher.poll(std::chrono::milliseconds(100), done);
  error = done.front().error;
}

}  // namespace

DatasetReader::DatasetReader(const Dataset& dataset) : dataset_(dataset) {
  auto files = std::make_unique<Files>();
  if (dataset.is_remote()) {
    files->remote = remote_settings(dataset.files().front().string());
  } else if (dataset.files_are_shared()) {
    for (const std::filesystem::path& path : dataset.files()) {
      std::error_code error;
      files->shared.push_back(io::File::open(path, error));
      if (error) throw Error(path.string() + ": cannot open: " + error.message());
    }
  }
  files_ = std::move(files);
}

DatasetReader::~DatasetReader() = default;

void DatasetReader::read(std::size_t index, std::vector<std::uint8_t>& bytes,
                         std::error_code& error) const {
  const SampleRef& ref = dataset_.sample(index);
  bytes.resize(ref.size);
  error.clear();
  if (files_->remote) {
    fetch(dataset_, *files_->remote, ref, bytes, error);
    return;
  }
  if (!files_->shared.empty()) {
    io::pread_exact(files_->shared[ref.file].fd(), ref.offset, bytes.data(), ref.size, error);
    return;
  }
  const io::File file = io::File::open(dataset_.files()[ref.file], error);
  if (!error) io::pread_exact(file.fd(), ref.offset, bytes.data(), ref.size, error);
}

}  // namespace feedrate
