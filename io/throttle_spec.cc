#include "io/throttle_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace feedrate::io {
namespace {

// Throws for `text`, whose field `field` has `problem`.
[[noreturn]] void reject(std::string_view text, std::string_view field, const char* problem) {
  std::string message = "invalid throttle \"";
  message.append(text).append("\": \"").append(field).append("\" ").append(problem);
  message += " (expected hdd, sata-ssd, network, nvme or MBPS[,IOPS[,LATENCY_US]])";
  throw std::invalid_argument(message);
}

std::string format_number(double value) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), value, std::chars_format::fixed);
  return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

}  // namespace

const ThrottleSpec& validated(const ThrottleSpec& spec) {
  for (const double value : {spec.mb_per_s, spec.iops, spec.latency_us}) {
    if (!std::isfinite(value) || value < 0) {
      throw std::invalid_argument("throttle limits must be finite and >= 0, got " +
                                  format_number(spec.mb_per_s) + " MB/s, " +
                                  format_number(spec.iops) + " IOPS, " +
                                  format_number(spec.latency_us) + " us");
    }
  }
  return spec;
}

ThrottleSpec parse_throttle(std::string_view text) {
  if (text == "hdd") return {200, 150, 4000};
  if (text == "sata-ssd") return {500, 50'000, 100};
  if (text == "network") return {1200, 0, 500};
  if (text == "nvme") return {2400, 400'000, 20};
  std::vector<double> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view field = text.substr(start, comma - start);
    if (fields.size() == 3) reject(text, field, "is a fourth field");
    double value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
      reject(text, field, "is not a number");
    }
    if (!std::isfinite(value) || value < 0) {
      reject(text, field, "is not a finite number >= 0");
    }
    fields.push_back(value);
    if (comma == text.size()) break;
    start = comma + 1;
  }
  fields.resize(3, 0);
  return {fields[0], fields[1], fields[2]};
}

std::string describe(const ThrottleSpec& spec) {
  if (!spec.limited()) return "unlimited";
  std::string text;
  const auto add = [&text](double value, const char* unit) {
    if (value <= 0) return;
    if (!text.empty()) text += ", ";
    text += format_number(value) + unit;
  };
  add(spec.mb_per_s, " MB/s");
  add(spec.iops, " IOPS");
  add(spec.latency_us, " us latency");
  return text;
}

}  // namespace feedrate::io
