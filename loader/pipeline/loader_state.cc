#include "feedrate/loader_state.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "decode/random.h"
#include "feedrate/error.h"

namespace feedrate {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "feedrate.loader_state";

// FNV-1a over the canonical text, mixed: a damaged or edited state is noticed.
std::string checksum_of(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(decode::mix64(hash)));
  return hex;
}

json body(const LoaderState& s) {
  json out = {
      {"format", kFormat},
      {"version", s.version},
      {"dataset", {{"samples", s.samples}, {"index_hash", s.index_hash}}},
      {"seed", s.seed},
      {"epoch", s.epoch},
      {"shuffle",
       {{"mode", s.shuffle}, {"block_bytes", s.block_bytes}, {"window_blocks", s.window_blocks}}},
      {"rank", s.rank},
      {"world_size", s.world_size},
      {"batch_size", s.batch_size},
      {"drop_last", s.drop_last},
      {"pad_shards", s.pad_shards},
      {"batches_received", s.batches_received},
      {"dealt_from", {{"sample", s.dealt_from_sample}, {"batch", s.dealt_from_batch}}}};
  if (s.version > 2) out["shuffle"]["world_size"] = s.blocks_world_size;
  if (s.version > 3) out["stream"] = {{"reads", s.stream_reads}, {"taken", s.stream_taken}};
  return out;
}

const json& field(const json& object, const char* name, const char* where) {
  const auto it = object.find(name);
  if (it == object.end()) {
    throw Error(std::string("loader state: missing field '") + where + name + "'");
  }
  return *it;
}

std::uint64_t unsigned_field(const json& object, const char* name, const char* where = "") {
  const json& value = field(object, name, where);
  if (!value.is_number_unsigned() &&
      !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
    throw Error(std::string("loader state: field '") + where + name +
                "' must be a non-negative integer, not " + value.dump());
  }
  return value.get<std::uint64_t>();
}

bool bool_field(const json& object, const char* name) {
  const json& value = field(object, name, "");
  if (!value.is_boolean()) {
    throw Error(std::string("loader state: field '") + name + "' must be true or false, not " +
                value.dump());
  }
  return value.get<bool>();
}

int int_field(const json& object, const char* name, std::uint64_t max, const char* where = "") {
  const std::uint64_t value = unsigned_field(object, name, where);
  if (value > max) {
    throw Error(std::string("loader state: field '") + where + name + "' is " +
                std::to_string(value) + ", above " + std::to_string(max));
  }
  return static_cast<int>(value);
}

}  // namespace

std::string LoaderState::to_json() const {
  json out = body(*this);
  out["checksum"] = checksum_of(out.dump());
  return out.dump();
}

LoaderState LoaderState::from_json(std::string_view text) {
  json in;
  try {
    in = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(std::string("loader state: not valid JSON (truncated?): ") + e.what());
  }
  if (!in.is_object()) throw Error("loader state: expected a JSON object, got " + in.dump());
  const json& format = field(in, "format", "");
  if (format != kFormat) {
    throw Error("loader state: format is " + format.dump() + ", expected \"" + kFormat + "\"");
  }
  const std::uint64_t version = unsigned_field(in, "version");
  if (version < 2 || version > kFormatVersion) {
    throw Error("loader state: version " + std::to_string(version) +
                " is not supported (this feedrate reads versions 2 to " +
                std::to_string(kFormatVersion) + ")");
  }
  LoaderState s;
  s.version = static_cast<int>(version);
  const json& dataset = field(in, "dataset", "");
  if (!dataset.is_object()) throw Error("loader state: field 'dataset' must be an object");
  s.samples = unsigned_field(dataset, "samples", "dataset.");
  const json& hash = field(dataset, "index_hash", "dataset.");
  if (!hash.is_string()) throw Error("loader state: field 'dataset.index_hash' must be a string");
  s.index_hash = hash.get<std::string>();
  s.seed = unsigned_field(in, "seed");
  s.epoch = unsigned_field(in, "epoch");
  const json& shuffle = field(in, "shuffle", "");
  if (!shuffle.is_object()) throw Error("loader state: field 'shuffle' must be an object");
  const json& mode = field(shuffle, "mode", "shuffle.");
  if (!mode.is_string()) throw Error("loader state: field 'shuffle.mode' must be a string");
  s.shuffle = mode.get<std::string>();
  s.block_bytes = unsigned_field(shuffle, "block_bytes", "shuffle.");
  s.window_blocks = unsigned_field(shuffle, "window_blocks", "shuffle.");
  constexpr std::uint64_t kMaxWorld = 1 << 20;
  if (s.version > 2) s.blocks_world_size = int_field(shuffle, "world_size", kMaxWorld, "shuffle.");
  s.world_size = int_field(in, "world_size", kMaxWorld);
  s.rank = int_field(in, "rank", kMaxWorld);
  s.batch_size = unsigned_field(in, "batch_size");
  s.drop_last = bool_field(in, "drop_last");
  s.pad_shards = bool_field(in, "pad_shards");
  s.batches_received = unsigned_field(in, "batches_received");
  const json& dealt = field(in, "dealt_from", "");
  if (!dealt.is_object()) throw Error("loader state: field 'dealt_from' must be an object");
  s.dealt_from_sample = unsigned_field(dealt, "sample", "dealt_from.");
  s.dealt_from_batch = unsigned_field(dealt, "batch", "dealt_from.");
  if (s.version > 3) {
    const json& stream = field(in, "stream", "");
    if (!stream.is_object()) throw Error("loader state: field 'stream' must be an object");
    s.stream_reads = unsigned_field(stream, "reads", "stream.");
    s.stream_taken = unsigned_field(stream, "taken", "stream.");
  }

  const json& checksum = field(in, "checksum", "");
  if (!checksum.is_string() || checksum.get<std::string>() != checksum_of(body(s).dump()) ||
      in.size() != body(s).size() + 1) {
    throw Error("loader state: checksum mismatch: the state was edited or damaged");
  }
  if (s.version == 2 && s.shuffle == "blocks") {
    throw Error(
        "loader state: version 2 with shuffle \"blocks\" is not supported: that order changed in "
        "version 3 (the first window goes part by part), so the rest of the epoch would not be "
        "what was left");
  }
  if (s.world_size == 0 || s.rank >= s.world_size) {
    throw Error("loader state: rank " + std::to_string(s.rank) + " of world size " +
                std::to_string(s.world_size));
  }
  if (s.batch_size == 0) throw Error("loader state: batch_size is 0");
  if (s.stream_taken >= s.batch_size) {
    throw Error("loader state: stream.taken " + std::to_string(s.stream_taken) +
                " is not below batch_size " + std::to_string(s.batch_size));
  }
  if (s.dealt_from_sample > s.samples || s.dealt_from_batch > s.batches_received) {
    throw Error("loader state: dealt_from lies beyond the samples or batches received");
  }
  return s;
}

}  // namespace feedrate
