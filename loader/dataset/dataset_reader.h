// Reads single samples of a Dataset outside the pipeline, for the tools that take samples one by
// one (the packer, the packing probe): a tar shard's file is opened once and kept, any other
// sample's file is opened for its read. A remote dataset's sample is one ranged GET of the
// object's indexed version, with the loader's retries.
//
// A front-end header (`feedrate pack`, the packing probe). Thread-safety: read() may run on any
// number of threads at once (positional reads). The reader refers to `dataset`, which must outlive
// it. Errors: the constructor throws feedrate::Error naming a shard it cannot open; read() reports
// a sample it cannot read through `error` (the caller decides: skip it or fail naming
// dataset.describe(index)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <system_error>
#include <vector>

#include "feedrate/dataset.h"

namespace feedrate {

class DatasetReader {
 public:
  explicit DatasetReader(const Dataset& dataset);
  ~DatasetReader();
  DatasetReader(const DatasetReader&) = delete;
  DatasetReader& operator=(const DatasetReader&) = delete;

  // Sample `index`'s bytes into `bytes` (resized to the sample's size); `error` set on failure.
  void read(std::size_t index, std::vector<std::uint8_t>& bytes, std::error_code& error) const;

 private:
  struct Files;  // the open files and a remote source's settings (loader/dataset/)
  const Dataset& dataset_;
  std::unique_ptr<const Files> files_;
};

}  // namespace feedrate
