#include "loader/diagnosis/verdict_text.h"

#include <cmath>
#include <cstddef>
#include <string>

#include "loader/diagnosis/text.h"

namespace feedrate {
namespace {

using text::format;
using text::thousands;

// What delivers `resource`'s capacity, as the subject of a sentence.
std::string subject(Resource resource, const Report& report) {
  const RunSetting& run = report.run;
  switch (resource) {
    case Resource::kIo:
      if (report.store.remote) return format("the store (%s)", report.store.scheme.c_str());
      return run.throttle.empty() ? "the disk" : "the emulated disk";
    case Resource::kCpu:
      if (run.num_workers == 0) return "decoding on the consumer's thread";
      return format("the %d decode thread%s", run.num_workers, run.num_workers == 1 ? "" : "s");
    case Resource::kRam:
      return format("the %zu batch%s in flight", run.prefetch_batches,
                    run.prefetch_batches == 1 ? "" : "es");
    case Resource::kH2d:
      return "the copy to the GPU";
    case Resource::kConsumer:
      break;
  }
  return "training";
}

// "deliver" after a plural subject, "delivers" after a singular one.
std::string deliver(Resource resource, const RunSetting& run) {
  switch (resource) {
    case Resource::kConsumer:
      return "takes";
    case Resource::kRam:
      return run.prefetch_batches > 1 ? "allow" : "allows";
    case Resource::kCpu:
      return run.num_workers > 1 ? "deliver" : "delivers";
    case Resource::kIo:
    case Resource::kH2d:
      break;
  }
  return "delivers";
}

std::string times(double ratio) {
  return ratio < 10 ? format("%.1fx", ratio) : thousands(ratio) + "x";
}

}  // namespace

std::string verdict_summary(const Report& report) {
  const Verdict& v = report.verdict;
  if (!v.bottleneck) return "nothing measured yet";
  const Resource bottleneck = *v.bottleneck;
  const Capacities& c = report.capacities;
  const Capacity& binding = c.of(bottleneck);
  const double rate = binding.measured ? binding.images_per_s : c.delivered;
  std::string sentence = std::string(resource_name(bottleneck)) + ": " +
                         subject(bottleneck, report) + " " + deliver(bottleneck, report.run) + " " +
                         thousands(rate) + " images/s";
  // The runner-up: the lowest other measured capacity.
  const Capacity* next = nullptr;
  for (const Capacity& capacity : c.resources) {
    if (!capacity.measured || capacity.resource == v.bottleneck) continue;
    if (!next || capacity.images_per_s < next->images_per_s) next = &capacity;
  }
  if (next == nullptr || rate <= 0) return sentence;
  if (!std::isfinite(next->images_per_s)) {
    return sentence + "; nothing else measured limits the run";
  }
  const std::string close = next->resource == v.runner_up ? ", close behind" : "";
  sentence += "; ";
  sentence += subject(next->resource, report);
  // A runner-up whose estimate lies below the bottleneck's: the verdict's evidence settled a tie.
  if (next->images_per_s < rate && !close.empty()) {
    return sentence + " " + deliver(next->resource, report.run) + " about as many (" +
           thousands(next->images_per_s) + " images/s" + close + ")";
  }
  sentence += " could do ";
  sentence += times(next->images_per_s / rate);
  sentence += " more";
  if (!close.empty()) sentence += " (close behind)";
  return sentence;
}

std::string remedy_text(const Advice& a, OptionSpelling spell) {
  std::string text = a.remedy;
  for (std::size_t i = 0; i < a.settings.size(); ++i) {
    const std::string marker = format("{%zu}", i);
    for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) {
      const std::string spelled = spell(a.settings[i]);
      text.replace(at, marker.size(), spelled);
      at += spelled.size();
    }
  }
  return text;
}

std::string advice_text(const Advice& a, double delivered, OptionSpelling spell) {
  std::string line = a.cause;
  if (a.remedy.empty()) return line;
  if (!line.empty()) line += "; ";
  line += remedy_text(a, spell);
  if (a.projected_images_per_s > 0) {
    line += format(": about %s images/s", thousands(a.projected_images_per_s).c_str());
    if (delivered > 0 && std::isfinite(a.projected_images_per_s)) {
      line += format(" (%.1fx now)", a.projected_images_per_s / delivered);
    }
  }
  if (!a.cost.empty()) line += "; costs: " + a.cost;
  return line;
}

std::string capacities_text(const Capacities& c, const Verdict& v) {
  std::string line;
  for (const Capacity& capacity : c.resources) {
    if (!line.empty()) line += " · ";
    line += resource_name(capacity.resource);
    line += " ";
    if (!capacity.measured) {
      line += "not measured";
    } else if (capacity.resource == v.bottleneck) {
      line += thousands(capacity.images_per_s) + " images/s (binds)";
    } else {
      line += thousands(capacity.images_per_s) +
              (std::isfinite(capacity.headroom) ? format(" (%.1fx)", capacity.headroom) : "");
    }
  }
  return line;
}

}  // namespace feedrate
