// The index.json that `feedrate pack` writes beside its shards, and the only code that writes or
// reads it: the packer (`feedrate pack`) and `feedrate index` write it, the tar-shards index
// checks each shard against it, a remote source reads it instead of listing. The file format
// (docs/pack-index.md) is public: it says `"format": "feedrate-pack"` and a version; this header
// reads kPackIndexVersion and older.
//
// Errors: read_pack_index() throws feedrate::Error naming the file and the problem for an
// index.json that is not JSON, a feedrate-pack index of a newer version, or a field that is
// missing or mistyped. An index.json that is a JSON object without the feedrate-pack format is
// another tool's file and reads as no index. write_pack_index() throws feedrate::Error naming the
// file on a write error.
// Thread-safety: plain values and reentrant functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feedrate/dataset.h"

namespace feedrate {

// Version 2 adds each shard's members (optional): a loader then indexes the shards without
// reading them, which matters for a remote source. Version 3 adds each shard's whole archive
// listing (optional, `tar`), from which a loader makes samples of any fields (image-text
// shards included) without reading the shards.
inline constexpr int kPackIndexVersion = 3;
inline constexpr std::string_view kPackIndexFile = "index.json";

struct PackIndex {
  struct Member {              // one sample of a shard, as the tar-shards index reads it
    std::string name;          // the image member's name in the archive
    std::uint64_t offset = 0;  // of its first data byte
    std::uint64_t size = 0;
    std::int32_t label = 0;
  };
  struct TarEntry {            // one member of a shard's archive
    std::string name;          // its path in the archive
    std::uint64_t offset = 0;  // of its first data byte
    std::uint64_t size = 0;
    std::string text;  // a .cls member's bytes (a label is read from them); empty otherwise
  };
  struct Shard {
    std::string name;         // file name in the pack's folder: shard-000000.tar, ...
    std::uint64_t first = 0;  // the packed set's index of its first sample
    std::uint64_t samples = 0;
    std::uint64_t bytes = 0;      // the file's size
    std::vector<Member> members;  // in archive order; empty when the index does not list them
    std::vector<TarEntry> tar;    // every member, in archive order; empty when not listed
  };
  struct Skipped {            // a bad sample left out under --on-bad skip
    std::uint64_t index = 0;  // in the source
    std::string source;       // where it was: "path" or "shard.tar:member"
    std::string error;
  };
  struct Resized {            // a JPEG resampled under max_side
    std::uint64_t index = 0;  // in the packed set
    int source_width = 0, source_height = 0;
  };
  struct Options {
    int max_side = 0, quality = 0, restart_mcus = 0, shard_mb = 0;
  };
  struct Counts {
    std::uint64_t lossless = 0, resized = 0, unchanged = 0, skipped = 0;
  };

  int version = kPackIndexVersion;
  std::string source;                // the dataset packed, as given
  std::uint64_t source_samples = 0;  // in the source
  std::uint64_t samples = 0;         // written
  Options options;
  std::vector<Shard> shards;  // in order
  Counts counts;
  std::vector<Skipped> skipped;
  std::vector<Resized> resized;
  std::uint64_t source_bytes = 0;  // the samples' bytes in the source
  std::uint64_t image_bytes = 0;   // the packed samples' bytes
  std::uint64_t shard_bytes = 0;   // the shards' bytes on disk

  // The entry of the shard named `name`; null when the index does not list it.
  const Shard* shard(std::string_view name) const;
};

// Writes folder/index.json through index.json.tmp and a rename, so that a reader never sees a
// partial index.
void write_pack_index(const std::filesystem::path& folder, const PackIndex& index);
// The same to any file (`feedrate index --out FILE`), through FILE.tmp and a rename.
void write_pack_index_file(const std::filesystem::path& file, const PackIndex& index);

// Reads folder/index.json; nullopt when the folder has none or it is another tool's file.
std::optional<PackIndex> read_pack_index(const std::filesystem::path& folder);
// The same from the file's text (a remote index.json); `file` names it in errors.
std::optional<PackIndex> parse_pack_index(const std::string& text, const std::string& file);
// index.json's text, as write_pack_index() writes it.
std::string pack_index_text(const PackIndex& index);

// The index of existing tar shards, with their members (`feedrate index`): what a loader
// reads instead of the shards themselves. `source` is recorded as given. Local shards are also
// listed whole (Shard::tar), each .cls member with its bytes; remote ones when `listings` gives
// each shard's (archive_of on the bytes SampleSpec::streamed_shard saw). Throws
// feedrate::Error when `dataset` is not tar shards in one folder, or a local shard cannot be
// read.
PackIndex shard_index_of(const Dataset& dataset, const std::string& source,
                         const std::vector<std::vector<PackIndex::TarEntry>>* listings = nullptr);

// Every member of the tar archive open at `fd` (`shard` names it in errors), each .cls one with
// its bytes (short ones: a label is a short number). Throws feedrate::Error for a malformed
// archive or a read that fails.
std::vector<PackIndex::TarEntry> archive_of(int fd, const std::filesystem::path& shard);

// Whether the index lists every shard's archive (Shard::tar).
bool lists_archives(const PackIndex& index);

}  // namespace feedrate
