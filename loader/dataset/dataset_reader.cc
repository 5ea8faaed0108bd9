#include "loader/dataset/dataset_reader.h"

#include <chrono>
#include <span>

#include "feedrate/error.h"
#include "io/remote/range_fetcher.h"

namespace feedrate {

DatasetReader::DatasetReader(const Dataset& dataset) : dataset_(dataset) {
  if (dataset.is_remote()) {
    remote_ = remote_settings(dataset.files().front().string());
    return;
  }
  if (!dataset.files_are_shared()) return;
  for (const std::filesystem::path& path : dataset.files()) {
    std::error_code error;
    shared_files_.push_back(io::File::open(path, error));
    if (error) throw Error(path.string() + ": cannot open: " + error.message());
  }
}

void DatasetReader::read(std::size_t index, std::vector<std::uint8_t>& bytes,
                         std::error_code& error) const {
  const SampleRef& ref = dataset_.sample(index);
  bytes.resize(ref.size);
  error.clear();
  if (remote_) {
    fetch(ref, bytes, error);
    return;
  }
  if (!shared_files_.empty()) {
    io::pread_exact(shared_files_[ref.file].fd(), ref.offset, bytes.data(), ref.size, error);
    return;
  }
  const io::File file = io::File::open(dataset_.files()[ref.file], error);
  if (!error) io::pread_exact(file.fd(), ref.offset, bytes.data(), ref.size, error);
}

void DatasetReader::fetch(const SampleRef& ref, std::vector<std::uint8_t>& bytes,
                          std::error_code& error) const {
  io::RangeFetcher fetcher(remote_->s3, remote_->fetch);
  io::FetchRequest request;
  request.url = dataset_.files()[ref.file].string();
  request.offset = ref.offset;
  request.dest = std::as_writable_bytes(std::span(bytes));
  request.if_match = dataset_.etag(ref.file);
  fetcher.submit(std::move(request));
  std::vector<io::FetchResult> done;
  while (done.empty()) fetcher.poll(std::chrono::milliseconds(100), done);
  error = done.front().error;
}

}  // namespace feedrate
