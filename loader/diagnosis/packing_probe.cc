#include "loader/diagnosis/packing_probe.h"

#include <algorithm>
#include <chrono>
#include <span>
#include <system_error>
#include <vector>

#include "decode/image_decoder.h"
#include "decode/jpeg_pack.h"
#include "decode/pack_choice.h"
#include "decode/random.h"
#include "loader/dataset/dataset_reader.h"
#include "loader/diagnosis/text.h"
#include "loader/diagnosis/verdict.h"
#include "loader/host/system_info.h"

namespace feedrate {
namespace {

// Fewer JPEGs than this that the packer takes say too little about the dataset.
constexpr std::size_t kMinimumPairs = 4;

double thread_cpu_ms() {
  return static_cast<double>(thread_cpu_ns()) / 1e6;
}

struct Pair {
  std::vector<std::uint8_t> original, packed;
  double original_ms = 0, packed_ms = 0;
  bool ok = true;
};

PackedDecodeCost skipped(std::string reason) {
  PackedDecodeCost cost;
  cost.state = "skipped";
  cost.reason = std::move(reason);
  return cost;
}

PackedDecodeCost measure(const Dataset& dataset, const TransformSpec& spec,
                         const TranscodeProbeOptions& options) {
  if (spec.kind != TransformKind::kTrain) {
    return skipped("the eval transform's centre crop decodes most of each image");
  }
  const std::size_t taken = std::min(options.samples, dataset.size());
  std::size_t jpegs = 0, packed_already = 0;
  std::vector<Pair> pairs;
  decode::JpegPacker packer;
  const DatasetReader reader(dataset);
  for (std::size_t i = 0; i < taken; ++i) {
    Pair pair;
    std::error_code error;
    reader.read(i * dataset.size() / taken, pair.original, error);
    if (error) continue;  // the run reports such samples itself
    const decode::PackChoice choice = decode::pack_choice(pair.original);
    if (choice == decode::PackChoice::kNotJpeg) continue;
    ++jpegs;
    if (choice == decode::PackChoice::kPackedAlready) {
      ++packed_already;
      continue;
    }
    if (packer.pack(pair.original, pair.packed).ok()) pairs.push_back(std::move(pair));
  }
  if (2 * jpegs < taken) {
    return skipped(
        text::format("not JPEG data (%zu of %zu sampled images are JPEGs)", jpegs, taken));
  }
  if (2 * packed_already >= jpegs) {
    PackedDecodeCost cost;
    cost.state = "packed";
    cost.samples = packed_already;
    cost.reason =
        text::format("%zu of %zu sampled JPEGs carry a restart index", packed_already, jpegs);
    return cost;
  }
  if (pairs.size() < kMinimumPairs) {
    return skipped(
        text::format("too few JPEGs the packer takes (%zu of %zu)", pairs.size(), jpegs));
  }

  decode::ImageDecoder decoder;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(spec.size) * spec.size * 3);
  auto timed = [&](const std::vector<std::uint8_t>& jpeg, std::uint64_t seed, double& total) {
    const double start = thread_cpu_ms();
    const bool ok = decoder.decode(jpeg, spec, seed, out).ok();
    total += thread_cpu_ms() - start;
    return ok;
  };
  double unused = 0;  // the decoder's scratch grows on its first images: not timed
  timed(pairs.front().original, 0, unused);
  timed(pairs.front().packed, 0, unused);
  for (int round = 0; round < options.rounds; ++round) {
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      Pair& p = pairs[i];
      // The same crop both ways; which goes first alternates, so neither gains from a warm cache.
      const std::uint64_t seed = decode::sample_seed(0, static_cast<std::uint64_t>(round), i);
      if ((i + static_cast<std::size_t>(round)) % 2 == 0) {
        p.ok = timed(p.original, seed, p.original_ms) && timed(p.packed, seed, p.packed_ms) && p.ok;
      } else {
        p.ok = timed(p.packed, seed, p.packed_ms) && timed(p.original, seed, p.original_ms) && p.ok;
      }
    }
  }
  PackedDecodeCost cost;
  for (const Pair& p : pairs) {
    if (!p.ok) continue;
    ++cost.samples;
    cost.original_ms += p.original_ms;
    cost.packed_ms += p.packed_ms;
    cost.original_bytes += static_cast<double>(p.original.size());
    cost.packed_bytes += static_cast<double>(p.packed.size());
  }
  if (cost.samples < kMinimumPairs) {
    return skipped(text::format("too few sampled JPEGs decode (%zu of %zu)", cost.samples, jpegs));
  }
  const double n = static_cast<double>(cost.samples);
  cost.state = "measured";
  cost.original_ms /= n * options.rounds;
  cost.packed_ms /= n * options.rounds;
  cost.original_bytes /= n;
  cost.packed_bytes /= n;
  return cost;
}

}  // namespace

PackedDecodeCost probe_packed_decode(const Dataset& dataset, const TransformSpec& spec,
                                     const TranscodeProbeOptions& options) {
  if (dataset.member_fields() > 0) {
    // feedrate pack writes each sample's image and class: the fields the run reads would be lost.
    PackedDecodeCost cost;
    cost.state = "skipped";
    cost.reason = "its samples carry fields (captions, metadata) that a pack does not keep";
    return cost;
  }
  if (dataset.annotations() != nullptr) {
    // A detection sample decodes whole, and a pack keeps no annotations.
    PackedDecodeCost cost;
    cost.state = "skipped";
    cost.reason = "a detection dataset decodes whole images, and a pack keeps no annotations";
    return cost;
  }
  const auto start = std::chrono::steady_clock::now();
  PackedDecodeCost cost = measure(dataset, spec, options);
  cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return cost;
}

std::string describe(const PackedDecodeCost& cost) {
  if (cost.measured()) {
    return text::format(
        "%zu of its JPEGs packed in memory: a train crop decodes in %.2f ms instead of %.2f on "
        "one thread (%.2fx), %.2fx the bytes (%.2f s to measure)",
        cost.samples, cost.packed_ms, cost.original_ms, cost.decode_ratio(), cost.bytes_ratio(),
        cost.seconds);
  }
  if (cost.state.empty()) return "";
  return (cost.state == "packed" ? "packed already: " : "not measured: ") + cost.reason;
}

void add_packing(Report& report, const PackedDecodeCost& packed) {
  report.costs.packed = packed;
  if (report.verdict.bottleneck == Resource::kCpu && packed.measured() &&
      packed.decode_ratio() < 1) {
    report.verdict.advice.push_back(
        packing_advice(report, {packed.decode_ratio(), packed.bytes_ratio(), packed.samples}));
  }
}

}  // namespace feedrate
