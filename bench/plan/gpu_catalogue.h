// GPUs a training job may rent, with their data-sheet figures and a rough estimate of training
// images/s per GPU for `feedrate plan` (docs/domain.md lists the figures and their sources).
// The estimate is not a measurement; measure the training step and pass --rate instead:
//   data-centre cards (tensor cores): kImagesPerTensorTflop x dense FP16 tensor TFLOPS,
//     calibrated on NVIDIA's DeepLearningExamples ResNet-50 v1.5 figure of about 2,500 images/s
//     on one A100 80 GB (312 TFLOPS) with mixed precision; it assumes the step scales with
//     tensor throughput, which overstates the newest cards (memory-bound layers do not scale);
//   the buying guide's workstation cards: kImagesPerFp32Tflop x FP32 TFLOPS (a V100 at 15.7
//     TFLOPS: ~1,000 images/s).
// Thread-safety: reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace feedrate::bench {

inline constexpr double kImagesPerFp32Tflop = 64;
inline constexpr double kImagesPerTensorTflop = 2500.0 / 312.0;

struct GpuModel {
  std::string name;
  double memory_gb = 0;
  double fp32_tflops = 0;         // 0: not published where the catalogue took it from
  double fp16_tensor_tflops = 0;  // dense; 0 for the workstation table (no estimate from it)
  double memory_bandwidth_gb_s = 0;
  std::string host_link;  // "PCIe 4", ...; "" when not listed
  double power_w = 0;

  double estimated_images_per_s() const {
    if (fp16_tensor_tflops > 0) return kImagesPerTensorTflop * fp16_tensor_tflops;
    return kImagesPerFp32Tflop * fp32_tflops;
  }
};

const std::vector<GpuModel>& gpu_catalogue();

// Finds a GPU by name, ignoring case, spaces and the "GeForce" / "NVIDIA" / "Tesla" prefixes
// ("rtx3090", "V100S PCIe", "t4", "h100 sxm"). Throws std::invalid_argument listing the names
// and the option to use instead (--rate) otherwise.
const GpuModel& find_gpu(std::string_view name);

}  // namespace feedrate::bench
