#include "loader/dataset/dataset_reader.h"

#include "feedrate/error.h"

namespace feedrate {

DatasetReader::DatasetReader(const Dataset& dataset) : dataset_(dataset) {
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
  if (!shared_files_.empty()) {
    io::pread_exact(shared_files_[ref.file].fd(), ref.offset, bytes.data(), ref.size, error);
    return;
  }
  const io::File file = io::File::open(dataset_.files()[ref.file], error);
  if (!error) io::pread_exact(file.fd(), ref.offset, bytes.data(), ref.size, error);
}

}  // namespace feedrate
