// The resources a run may be held back by, as codes, and their words: the one vocabulary of the
// verdict (include/feedrate/report.h's capacities), `feedrate plan`'s projections and `feedrate
// tune`, written once here and rendered only at the edge (JSON, text, Python).
//   io        the disk (or its emulation)
//   cpu       decoding: the decode threads and the cores
//   ram       the batches in flight that the memory budget allows
//   h2d       the copy to the GPU
//   consumer  the training step (the GPUs): the loader keeps up
// Thread-safety: constants and pure functions.
#pragma once

#include <array>
#include <optional>

namespace feedrate {

enum class Resource { kIo, kCpu, kRam, kH2d, kConsumer };

// In the order reports list them.
inline constexpr std::array<Resource, 5> kAllResources{
    Resource::kIo, Resource::kCpu, Resource::kRam, Resource::kH2d, Resource::kConsumer};

constexpr const char* resource_name(Resource resource) {
  switch (resource) {
    case Resource::kIo:
      return "io";
    case Resource::kCpu:
      return "cpu";
    case Resource::kRam:
      return "ram";
    case Resource::kH2d:
      return "h2d";
    case Resource::kConsumer:
      return "consumer";
  }
  return "unknown";
}

// The word of a resource that may be absent (a verdict's bottleneck before anything was
// measured, a runner-up when none is close): `absent` then.
constexpr const char* resource_name(std::optional<Resource> resource, const char* absent) {
  return resource ? resource_name(*resource) : absent;
}

}  // namespace feedrate
