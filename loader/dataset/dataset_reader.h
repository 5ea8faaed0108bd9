// Reads single samples of a Dataset outside the pipeline, for the tools that take samples one by
// one (the packer, the packing probe): a tar shard's file is opened once and kept, any other
// sample's file is opened for its read. A remote dataset's sample is one ranged GET of the
// object's indexed version (io/remote/range_fetcher.h, with its retries).
//
// Thread-safety: read() may run on any number of threads at once (positional reads).
// Errors: the constructor throws feedrate::Error naming a shard it cannot open; read() reports a
// sample it cannot read through `error` (the caller decides: skip it or fail naming
// dataset.describe(index)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <system_error>
#include <vector>

#include "feedrate/dataset.h"
#include "io/file.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {

class DatasetReader {
 public:
  explicit DatasetReader(const Dataset& dataset);

  // Sample `index`'s bytes into `bytes` (resized to the sample's size); `error` set on failure.
  void read(std::size_t index, std::vector<std::uint8_t>& bytes, std::error_code& error) const;

 private:
  // A remote sample's bytes; `error` set (io::RemoteErrc) on failure.
  void fetch(const SampleRef& ref, std::vector<std::uint8_t>& bytes, std::error_code& error) const;

  const Dataset& dataset_;
  std::vector<io::File> shared_files_;    // one per file of a dataset whose files are shared
  std::optional<RemoteSettings> remote_;  // a remote dataset's
};

}  // namespace feedrate
