// `feedrate index SOURCE`: writes the index of existing tar shards (index.json, the pack index
// format with each shard's members), so that a loader starts without reading the shards: for a
// remote source (s3://, https://) that is the difference between a listing and a download of
// the whole dataset before the first batch (docs/remote.md).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "io/remote/url.h"
#include "loader/dataset/pack_index.h"

namespace feedrate::bench {
namespace {

namespace fs = std::filesystem;

struct IndexArgs {
  std::string source;
  std::string out;
};

int run_index(const IndexArgs& args) {
  // Checked before the source is opened, which for a URL reads every shard.
  if (args.out.empty() && io::is_url(args.source)) {
    throw Error(args.source +
                ": option --out is required for a URL: a remote source's index is written "
                "locally (--out FILE), then uploaded beside the shards as index.json");
  }
  // Shards are indexed whole (each archive listed, each key's .cls read from it), so that
  // shards without .cls (image-text) index too: their samples are every key with an image.
  // Remote shards are read through once: each archive is listed from the bytes that pass
  // builds the samples from.
  SampleSpec images;
  images.fields.clear();
  std::vector<std::vector<PackIndex::TarEntry>> listings;
  if (io::is_url(args.source)) {
    images.streamed_shard = [&](std::uint32_t shard, const std::string& url, int fd) {
      listings.resize(std::max<std::size_t>(listings.size(), shard + 1));
      listings[shard] = archive_of(fd, url);
    };
  }
  const Dataset dataset = Dataset::open(args.source, false, false, images);
  const PackIndex index = shard_index_of(dataset, args.source, &listings);
  const fs::path out = args.out.empty() ? dataset.files().front().parent_path() / kPackIndexFile
                                        : fs::path(args.out);
  if (std::ifstream existing(out); existing) {
    const std::string text((std::istreambuf_iterator<char>(existing)),
                           std::istreambuf_iterator<char>());
    bool ours = true;
    try {
      ours = parse_pack_index(text, out.string()).has_value();
    } catch (const Error&) {
      // A damaged feedrate index: written anew.
    }
    if (!ours) throw Error(out.string() + ": exists and is not a feedrate index: not overwritten");
  }
  write_pack_index_file(out, index);
  fmt::print("index     {}: {} shards, {} samples, {:.1f} MB\n", out.string(), index.shards.size(),
             index.samples, static_cast<double>(index.shard_bytes) / 1e6);
  return 0;
}

}  // namespace

Command add_index_command(CLI::App& app) {
  auto args = std::make_shared<IndexArgs>();
  CLI::App* sub = app.add_subcommand(
      "index",
      "Write the index of existing tar shards (index.json, with each shard's members) so that "
      "loaders start without reading the shards (above all remote ones)");
  sub->add_option("SOURCE", args->source, "Tar shards: a folder, a glob or a URL")->required();
  sub->add_option("--out", args->out,
                  "File to write (default: index.json beside local shards; required for a URL)");
  return [args] { return run_index(*args); };
}

}  // namespace feedrate::bench
