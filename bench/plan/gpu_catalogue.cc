#include "bench/plan/gpu_catalogue.h"

#include <cctype>
#include <stdexcept>
#include <string>
#include <utility>

namespace feedrate::bench {
namespace {

std::string simplify(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (const std::string prefix : {"geforce", "nvidia", "tesla"}) {
    if (out.rfind(prefix, 0) == 0) out = out.substr(prefix.size());
  }
  return out;
}

// A card the buying guide's table lists with its memory and FP32 TFLOPS only.
GpuModel listed(std::string name, double memory_gb, double fp32_tflops) {
  GpuModel gpu;
  gpu.name = std::move(name);
  gpu.memory_gb = memory_gb;
  gpu.fp32_tflops = fp32_tflops;
  return gpu;
}

}  // namespace

const std::vector<GpuModel>& gpu_catalogue() {
  // docs/domain.md gives each figure's source. First the data-centre cards instance sellers rent
  // for training (NVIDIA data sheets), then a GPU-server buying guide's table (memory GB, FP32
  // TFLOPS), then the rentable cards it names with their memory only (no estimate).
  static const std::vector<GpuModel> catalogue = {
      {"A10", 24, 31.2, 125, 600, "PCIe 4", 150},
      // AWS's A10 variant: NVIDIA publishes no data sheet of its own; the A10's figures.
      {"A10G", 24, 31.2, 125, 600, "PCIe 4", 150},
      {"L4", 24, 30.3, 121, 300, "PCIe 4", 72},
      {"L40", 48, 90.5, 181, 864, "PCIe 4", 300},
      {"L40S", 48, 91.6, 362, 864, "PCIe 4", 350},
      {"A100 40GB SXM", 40, 19.5, 312, 1555, "PCIe 4", 400},
      {"A100 80GB SXM", 80, 19.5, 312, 2039, "PCIe 4", 400},
      {"A100 80GB PCIe", 80, 19.5, 312, 1935, "PCIe 4", 300},
      {"A800", 80, 19.5, 312, 2039, "PCIe 4", 400},
      {"H100 SXM", 80, 67, 989, 3350, "PCIe 5", 700},
      {"H100 PCIe", 80, 51, 756, 2000, "PCIe 5", 350},
      {"H800", 80, 67, 989, 3350, "PCIe 5", 700},
      {"H200", 141, 67, 989, 4800, "PCIe 5", 700},
      listed("GeForce RTX 3090 Ti", 24, 40.0),
      listed("GeForce RTX 3090", 24, 35.58),
      listed("GeForce RTX 3080 Ti", 12, 34.71),
      listed("GeForce RTX 3080", 12, 29.77),
      listed("NVIDIA RTX A5000", 24, 27.77),
      listed("GeForce RTX 3070", 8, 20.31),
      listed("GeForce RTX 3060 Ti", 8, 16.20),
      listed("Tesla V100S PCIe", 32, 16.4),
      listed("Tesla V100 NVLink", 32, 15.7),
      listed("GeForce RTX 2080 Ti", 11, 13.4),
      listed("GeForce RTX 3060", 12, 12.74),
      listed("Quadro RTX 5000", 16, 11.15),
      listed("Tesla P100 PCIe", 16, 10.6),
      listed("Tesla T4", 16, 8.141),
      listed("GeForce GTX TITAN X", 12, 6.691),
      listed("NVIDIA L20", 48, 59.35),
      listed("RTX 4090", 24, 0),
      listed("Quadro RTX 8000", 48, 0),
      listed("Titan RTX", 24, 0),
      listed("Quadro RTX 6000", 24, 0),
  };
  return catalogue;
}

const GpuModel& find_gpu(std::string_view name) {
  const std::string wanted = simplify(name);
  for (const GpuModel& gpu : gpu_catalogue()) {
    if (simplify(gpu.name) == wanted) return gpu;
  }
  // A unique prefix ("v100s", "a5000") is enough.
  const GpuModel* match = nullptr;
  for (const GpuModel& gpu : gpu_catalogue()) {
    if (!wanted.empty() && simplify(gpu.name).find(wanted) != std::string::npos) {
      if (match != nullptr) {
        throw std::invalid_argument("GPU \"" + std::string(name) +
                                    "\" is ambiguous: " + match->name + ", " + gpu.name + ", ...");
      }
      match = &gpu;
    }
  }
  if (match != nullptr) return *match;
  std::string names;
  for (const GpuModel& gpu : gpu_catalogue()) names += (names.empty() ? "" : ", ") + gpu.name;
  throw std::invalid_argument(
      "GPU \"" + std::string(name) + "\" is not in the catalogue (" + names +
      "): give the training rate of one GPU with --rate IMAGES_PER_S instead");
}

}  // namespace feedrate::bench
