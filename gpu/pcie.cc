#include "gpu/pcie.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace feedrate::gpu {
namespace {

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::string pcie_link(const std::string& pci_bus_id) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  // CUDA prints an 8-digit domain ("00000000:3B:00.0"); sysfs uses four.
  if (const auto colon = id.find(':'); colon > 4 && colon != std::string::npos) {
    id = id.substr(colon - 4);
  }
  const std::filesystem::path device = std::filesystem::path("/sys/bus/pci/devices") / id;
  const std::string speed = read_line(device / "current_link_speed");
  const std::string width = read_line(device / "current_link_width");
  if (speed.empty() || width.empty()) return "";
  std::string link = speed + " x" + width;
  const std::string max_speed = read_line(device / "max_link_speed");
  const std::string max_width = read_line(device / "max_link_width");
  if (!max_speed.empty() && (max_speed != speed || max_width != width)) {
    link += " (max " + max_speed + " x" + max_width + ")";
  }
  return link;
}

}  // namespace feedrate::gpu
