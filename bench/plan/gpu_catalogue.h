// GPUs a training job may rent, from DOMAIN.md, with a rough estimate of training images/s per
// GPU for `feedrate plan`. The estimate is not a measurement: ResNet-50-class image training
// at about kImagesPerFp32Tflop images/s per FP32 TFLOPS (a V100 at 15.7 TFLOPS: ~1,000
// images/s). Override it with --gpu-rate, or better measure the training step and pass --rate.
// Thread-safety: reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace feedrate::bench {

inline constexpr double kImagesPerFp32Tflop = 64;

struct GpuModel {
  std::string name;  // as DOMAIN.md writes it
  double memory_gb = 0;
  double fp32_tflops = 0;  // 0: not in the catalogue's table (no estimate)
  double estimated_images_per_s() const { return kImagesPerFp32Tflop * fp32_tflops; }
};

const std::vector<GpuModel>& gpu_catalogue();

// Finds a GPU by name, ignoring case, spaces and the "GeForce" / "NVIDIA" / "Tesla" prefixes
// ("rtx3090", "V100S PCIe", "t4"). Throws std::invalid_argument listing the names otherwise.
const GpuModel& find_gpu(std::string_view name);

}  // namespace feedrate::bench
