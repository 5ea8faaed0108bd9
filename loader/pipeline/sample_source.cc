#include "loader/pipeline/sample_source.h"

#include "feedrate/error.h"

namespace feedrate {

void SampleSource::read_outside(detail::Slot& slot) {
  read(slot);
}

bool SampleSource::read_ahead(std::size_t) {
  return false;
}

std::uint64_t SampleSource::held_bytes_limit() const {
  return 0;
}

void SampleSource::attach(Report&) const {}

std::string read_failure(const Dataset& dataset, std::uint32_t index,
                         const io::ReadRequest& request) {
  const bool short_file = request.error == io::ReadErrc::kUnexpectedEof;
  return dataset.describe(index) + ": read failed at byte " +
         std::to_string(request.offset + request.bytes_read) + ": " +
         (short_file
              ? "unexpected end of file after " + std::to_string(request.bytes_read) + " of " +
                    std::to_string(request.dest.size()) + " bytes (file changed since indexing?)"
              : request.error.message());
}

std::vector<io::File> open_shards(const Dataset& dataset, io::Reader& reader) {
  std::vector<io::File> files;
  for (const auto& path : dataset.files()) {
    std::error_code error;
    files.push_back(reader.open(path, error));
    if (error) throw Error(path.string() + ": cannot open: " + error.message());
  }
  return files;
}

void reserve_encoded(detail::Slot& slot, std::uint64_t bytes) {
  if (slot.encoded.size() < bytes) slot.encoded = gpu::HostBuffer(bytes + bytes / 4);
}

}  // namespace feedrate
