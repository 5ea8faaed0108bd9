// feedrate-h2d: host-to-device copy benchmark (CUDA builds), run by bench/device/gpu_check.sh.
// Side by side in one run, for batch-sized buffers (uint8 N x 224 x 224 x 3):
//   * pageable vs pinned cudaMemcpyAsync bandwidth;
//   * feedrate's copier (gpu::Transfer: pinned slot ring, events, consumer-stream waits) against
//     a plain cudaMemcpyAsync loop of the same sizes, uint8 and with the float16 conversion;
//   * the whole loader delivering to the GPU, images/s and GB/s, next to the host path.
// Prints one table. Usage: feedrate-h2d [DATASET] [--batch N] [--iterations N]
#include <cuda_runtime.h>
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/cli/default_dataset.h"
#include "bench/cli/process_stats.h"
#include "feedrate/loader.h"
#include "gpu/device.h"
#include "gpu/transfer.h"
#include "loader/host/system_info.h"

namespace {

using Clock = std::chrono::steady_clock;
using feedrate::gpu::ElementType;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// GB/s of `iterations` copies of `bytes` from `source`, rotating over `slots` device buffers.
double memcpy_loop(const void* source, std::size_t bytes, int iterations, cudaStream_t stream,
                   std::vector<void*>& device) {
  check(cudaMemcpyAsync(device[0], source, bytes, cudaMemcpyHostToDevice, stream), "warm-up");
  check(cudaStreamSynchronize(stream), "sync");
  const auto start = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    check(cudaMemcpyAsync(device[i % device.size()], source, bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
  }
  check(cudaStreamSynchronize(stream), "sync");
  return bytes * static_cast<double>(iterations) / seconds_since(start) / 1e9;
}

// GB/s (of uint8 input) through feedrate's copier, as the loader drives it.
double transfer_loop(ElementType dtype, std::size_t batch, int iterations, cudaStream_t consumer) {
  feedrate::gpu::TransferOptions options;
  options.device = feedrate::gpu::parse_device("cuda:0");
  options.slots = 3;
  options.batch_size = batch;
  options.dtype = dtype;
  auto transfer = feedrate::gpu::make_transfer(options);
  const std::size_t bytes = batch * 224 * 224 * 3;
  std::vector<feedrate::gpu::HostBuffer> staging;
  for (std::size_t s = 0; s < options.slots; ++s) {
    staging.push_back(transfer->allocate_staging(bytes));
    std::fill_n(reinterpret_cast<unsigned char*>(staging.back().data()), bytes, 7);
  }
  std::vector<std::int32_t> labels(batch, 1);
  auto run = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const std::size_t slot = static_cast<std::size_t>(i) % options.slots;
      while (!transfer->staging_idle(slot)) std::this_thread::yield();  // as the loader polls
      transfer->submit(slot, staging[slot], labels.data(), batch, 224 * 224);
      transfer->wait(slot, consumer);
      transfer->release(slot);
    }
    check(cudaStreamSynchronize(consumer), "sync");
  };
  run(3);
  const auto start = Clock::now();
  run(iterations);
  return bytes * static_cast<double>(iterations) / seconds_since(start) / 1e9;
}

struct LoaderFigures {
  double images_per_s = 0;
  double gb_per_s = 0;
};

LoaderFigures loader_run(const std::string& dataset, const std::string& device,
                         feedrate::OutputLayout layout, std::size_t batch, cudaStream_t stream) {
  feedrate::LoaderOptions options;
  options.source = dataset;
  options.device = device;
  options.layout = layout;
  options.batch_size = batch;
  options.num_workers = feedrate::available_cpus();
  const bool on_gpu = feedrate::gpu::parse_device(device).is_cuda();
  feedrate::Loader loader(options);
  const auto start = Clock::now();
  std::uint64_t images = 0;
  while (std::optional<feedrate::Batch> b = loader.next()) {
    b->wait(on_gpu ? stream : nullptr);
    images += b->size();
  }
  if (on_gpu) check(cudaStreamSynchronize(stream), "sync");
  const double seconds = seconds_since(start);
  return {images / seconds, images * 224.0 * 224 * 3 / seconds / 1e9};
}

int run(int argc, char** argv) {
  CLI::App app{"feedrate-h2d: host-to-device copy benchmark"};
  std::string dataset;
  std::size_t batch = 64;
  int iterations = 200;
  app.add_option("DATASET", dataset, "Dataset for the end-to-end rows (default: generated)");
  app.add_option("--batch", batch, "Images per batch")->check(CLI::Range(1, 4096));
  app.add_option("--iterations", iterations, "Copies per measurement")
      ->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);

  const auto devices = feedrate::gpu::cuda_devices();
  if (devices.empty()) {
    fmt::print(stderr, "feedrate-h2d: no CUDA device on this machine\n");
    return 1;
  }
  fmt::print(
      "device    {} ({:.1f} GB, compute {}.{}), batch {} x 224 x 224 x 3 uint8 = {:.1f} MB\n",
      devices[0].name, devices[0].memory_bytes / 1e9, devices[0].compute_major,
      devices[0].compute_minor, batch, batch * 224 * 224 * 3 / 1e6);
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const std::size_t bytes = batch * 224 * 224 * 3;
  std::vector<void*> device(3);
  for (void*& d : device) check(cudaMalloc(&d, bytes), "cudaMalloc");
  std::vector<unsigned char> pageable(bytes, 7);
  void* pinned = nullptr;
  check(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  std::fill_n(static_cast<unsigned char*>(pinned), bytes, 7);

  const double pageable_gbs = memcpy_loop(pageable.data(), bytes, iterations, stream, device);
  const double pinned_gbs = memcpy_loop(pinned, bytes, iterations, stream, device);
  const double copier_u8 = transfer_loop(ElementType::kUint8, batch, iterations, stream);
  const double copier_f16 = transfer_loop(ElementType::kFloat16, batch, iterations, stream);

  fmt::print("\n{:<52} {:>10} {:>10}\n", "measurement", "GB/s", "ratio");
  fmt::print("{:<52} {:>10.2f} {:>10}\n", "cudaMemcpyAsync from pageable memory", pageable_gbs, "");
  fmt::print("{:<52} {:>10.2f} {:>9.2f}x\n", "cudaMemcpyAsync from pinned memory", pinned_gbs,
             pinned_gbs / pageable_gbs);
  fmt::print("{:<52} {:>10.2f} {:>9.1f}%\n", "feedrate copier, uint8 (vs pinned loop)", copier_u8,
             100 * copier_u8 / pinned_gbs);
  fmt::print("{:<52} {:>10.2f} {:>9.1f}%\n", "feedrate copier, uint8 -> float16 NCHW on device",
             copier_f16, 100 * copier_f16 / pinned_gbs);

  const std::string data = dataset.empty() ? feedrate::bench::default_dataset().string() : dataset;
  const LoaderFigures host =
      loader_run(data, "cpu", feedrate::OutputLayout::kUint8NHWC, batch, stream);
  const LoaderFigures gpu_u8 =
      loader_run(data, "cuda:0", feedrate::OutputLayout::kUint8NHWC, batch, stream);
  const LoaderFigures gpu_f16 =
      loader_run(data, "cuda:0", feedrate::OutputLayout::kFloat16NCHW, batch, stream);
  fmt::print("\n{:<52} {:>10} {:>10}\n",
             fmt::format("loader end to end ({} workers)", feedrate::available_cpus()), "images/s",
             "GB/s");
  fmt::print("{:<52} {:>10.0f} {:>10.2f}\n", "host, uint8", host.images_per_s, host.gb_per_s);
  fmt::print("{:<52} {:>10.0f} {:>10.2f}\n", "cuda:0, uint8", gpu_u8.images_per_s, gpu_u8.gb_per_s);
  fmt::print("{:<52} {:>10.0f} {:>10.2f}\n", "cuda:0, float16 NCHW", gpu_f16.images_per_s,
             gpu_f16.gb_per_s);

  for (void* d : device) cudaFree(d);
  cudaFreeHost(pinned);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate-h2d: error: {}\n", e.what());
    return 1;
  }
}
