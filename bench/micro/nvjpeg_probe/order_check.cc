#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "bench/micro/nvjpeg_probe/device_outputs.h"
#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {

// The kernel queued first copies `from` to `to` after 100 ms; the decode queued after it writes
// its first image into `from`. In stream order the kernel copies the pattern; a decode that
// ignores stream order writes first, and `to` holds decoded bytes.
OrderFigures check_stream_order(const NvJpeg& api, nvjpegHandle_t handle,
                                const std::vector<Jpeg>& jpegs, const std::vector<std::size_t>& use,
                                bool batched, bool host_wait) {
  constexpr unsigned char kPattern = 0x5a;
  constexpr double kSpinMs = 100;
  OrderFigures figures;
  figures.host_wait = host_wait;
  figures.spin_ms = kSpinMs;
  const std::size_t batch = std::min<std::size_t>(batched ? 64 : 1, use.size());
  if (batch == 0) {
    figures.error = "no image the backend decodes";
    return figures;
  }
  const Jpeg& first = jpegs[use[0]];
  figures.bytes = static_cast<std::size_t>(first.width) * first.height * 3;
  Outputs outputs(batch, largest_output(jpegs, use));
  unsigned char* to = nullptr;
  nvjpegJpegState_t state = nullptr;
  cudaStream_t stream = nullptr;
  const auto fail = [&](const std::string& what) {
    if (figures.error.empty()) figures.error = what;
  };
  if (outputs.status() != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&to), figures.bytes) != cudaSuccess) {
    fail("cudaMalloc failed");
  }
  if (figures.error.empty() && api.JpegStateCreate(handle, &state) != NVJPEG_STATUS_SUCCESS) {
    fail("nvjpegJpegStateCreate failed");
  }
  if (figures.error.empty() && batched &&
      api.DecodeBatchedInitialize(handle, state, static_cast<int>(batch), 1, NVJPEG_OUTPUT_RGBI) !=
          NVJPEG_STATUS_SUCCESS) {
    fail("nvjpegDecodeBatchedInitialize failed");
  }
  if (figures.error.empty()) {
    unsigned char* from = outputs.buffer(0);
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMemset(from, kPattern, figures.bytes);
    cudaMemset(to, 0, figures.bytes);
    cudaDeviceSynchronize();
    if (launch_spin_then_copy(from, to, figures.bytes, kSpinMs, stream) != cudaSuccess) {
      fail("the spinning kernel did not launch");
    }
    if (host_wait) cudaStreamSynchronize(stream);
    std::vector<const unsigned char*> data;
    std::vector<std::size_t> lengths;
    for (std::size_t k = 0; k < batch; ++k) {
      data.push_back(jpegs[use[k]].bytes.data());
      lengths.push_back(jpegs[use[k]].bytes.size());
    }
    nvjpegImage_t* views = outputs.views(jpegs, use, 0, batch);
    const auto called = std::chrono::steady_clock::now();
    const nvjpegStatus_t status =
        batched ? api.DecodeBatched(handle, state, data.data(), lengths.data(), views, stream)
                : api.Decode(handle, state, data[0], lengths[0], NVJPEG_OUTPUT_RGBI, views, stream);
    figures.decode_call_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - called)
            .count();
    if (status != NVJPEG_STATUS_SUCCESS) {
      fail(std::string(batched ? "nvjpegDecodeBatched: " : "nvjpegDecode: ") + status_name(status));
    }
    if (cudaStreamSynchronize(stream) != cudaSuccess) fail("the stream failed");
    std::vector<unsigned char> copied(figures.bytes);
    cudaMemcpy(copied.data(), to, figures.bytes, cudaMemcpyDeviceToHost);
    figures.changed = static_cast<std::size_t>(
        std::count_if(copied.begin(), copied.end(), [](unsigned char b) { return b != kPattern; }));
  }
  if (stream != nullptr) cudaStreamDestroy(stream);
  if (state != nullptr) api.JpegStateDestroy(state);
  cudaFree(to);
  return figures;
}

}  // namespace feedrate::probe
