#include <sys/resource.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "bench/micro/nvjpeg_probe/device_outputs.h"
#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {
namespace {

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string nvjpeg_failure(const char* what, nvjpegStatus_t status) {
  return std::string(what) + ": " + status_name(status);
}

std::string cuda_failure(const char* what, cudaError_t status) {
  return std::string(what) + ": " + cudaGetErrorString(status);
}

// One submitting thread of a batched run: its own state and stream, the batches
// first, first + threads, ... of `use`.
struct Submitter {
  const NvJpeg& api;
  nvjpegHandle_t handle;
  const std::vector<Jpeg>& jpegs;
  const std::vector<std::size_t>& use;
  int batch;
  std::string error;
  std::size_t decoded = 0;

  void run(int first, int threads, std::barrier<>& start, std::barrier<>& warm) {
    nvjpegJpegState_t state = nullptr;
    cudaStream_t stream = nullptr;
    Outputs outputs(static_cast<std::size_t>(batch), largest_output(jpegs, use));
    std::vector<const unsigned char*> data(static_cast<std::size_t>(batch));
    std::vector<std::size_t> lengths(static_cast<std::size_t>(batch));
    const auto decode = [&](std::size_t at) {
      for (int k = 0; k < batch; ++k) {
        const Jpeg& jpeg = jpegs[use[at + static_cast<std::size_t>(k)]];
        data[static_cast<std::size_t>(k)] = jpeg.bytes.data();
        lengths[static_cast<std::size_t>(k)] = jpeg.bytes.size();
      }
      const nvjpegStatus_t status =
          api.DecodeBatched(handle, state, data.data(), lengths.data(),
                            outputs.views(jpegs, use, at, static_cast<std::size_t>(batch)), stream);
      if (status != NVJPEG_STATUS_SUCCESS && error.empty()) {
        error = nvjpeg_failure("nvjpegDecodeBatched", status);
      }
    };
    const std::size_t batches = use.size() / static_cast<std::size_t>(batch);
    if (outputs.status() != cudaSuccess) error = cuda_failure("cudaMalloc", outputs.status());
    trace("nvjpegJpegStateCreate", first);
    nvjpegStatus_t status = api.JpegStateCreate(handle, &state);
    if (status != NVJPEG_STATUS_SUCCESS) error = nvjpeg_failure("nvjpegJpegStateCreate", status);
    if (error.empty()) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (error.empty()) {
      trace("nvjpegDecodeBatchedInitialize", first);
      status = api.DecodeBatchedInitialize(handle, state, batch, 1, NVJPEG_OUTPUT_RGBI);
      if (status != NVJPEG_STATUS_SUCCESS) {
        error = nvjpeg_failure("nvjpegDecodeBatchedInitialize", status);
      }
    }
    trace("warm-up nvjpegDecodeBatched", first);
    if (error.empty() && batches > 0) decode(static_cast<std::size_t>(first) * batch);  // warm-up
    trace("warm-up cudaStreamSynchronize", first);
    if (stream != nullptr) cudaStreamSynchronize(stream);
    trace(error.empty() ? "warm" : error.c_str(), first);
    warm.arrive_and_wait();
    start.arrive_and_wait();
    // One batch in flight per state: on an H200 (nvJPEG 13.3.2), a state given batch after batch
    // without waiting hung in the hardware backend after a few (32 batches of 64 on one thread,
    // 4 of 64 on each of 4 threads), and the batched decode writes its outputs when called
    // anyway, so a batch's buffers may be reused only after its stream is done.
    for (std::size_t b = static_cast<std::size_t>(first); error.empty() && b < batches;
         b += static_cast<std::size_t>(threads)) {
      decode(b * static_cast<std::size_t>(batch));
      const cudaError_t synced = cudaStreamSynchronize(stream);
      if (synced != cudaSuccess && error.empty()) error = cuda_failure("decode", synced);
      decoded += static_cast<std::size_t>(batch);
    }
    trace("timed batches submitted; cudaStreamSynchronize", first);
    if (stream != nullptr) {
      const cudaError_t synced = cudaStreamSynchronize(stream);
      if (synced != cudaSuccess && error.empty()) error = cuda_failure("decode", synced);
      cudaStreamDestroy(stream);
    }
    if (state != nullptr) api.JpegStateDestroy(state);
  }
};

}  // namespace

void trace(const char* what, int thread) {
  static const bool on = std::getenv("FEEDRATE_PROBE_TRACE") != nullptr;
  static const auto start = std::chrono::steady_clock::now();
  if (!on) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "[%8.3f s] thread %d: %s\n", s, thread, what);
}

std::vector<std::size_t> batched_supported(const NvJpeg& api, nvjpegHandle_t handle,
                                           const std::vector<Jpeg>& jpegs) {
  std::vector<std::size_t> supported;
  nvjpegJpegStream_t stream = nullptr;
  if (api.JpegStreamCreate(handle, &stream) != NVJPEG_STATUS_SUCCESS) return supported;
  for (std::size_t i = 0; i < jpegs.size(); ++i) {
    int refused = 1;  // nvJPEG: 0 when the decoder can decode it
    if (api.JpegStreamParse(handle, jpegs[i].bytes.data(), jpegs[i].bytes.size(), 0, 0, stream) ==
            NVJPEG_STATUS_SUCCESS &&
        api.DecodeBatchedSupported(handle, stream, &refused) == NVJPEG_STATUS_SUCCESS &&
        refused == 0) {
      supported.push_back(i);
    }
  }
  api.JpegStreamDestroy(stream);
  return supported;
}

RunFigures run_batched(const NvJpeg& api, nvjpegHandle_t handle, const std::vector<Jpeg>& jpegs,
                       const std::vector<std::size_t>& use, int batch, int threads) {
  RunFigures figures;
  figures.batch = batch;
  figures.threads = threads;
  std::barrier warm(threads + 1);
  std::barrier start(threads + 1);
  std::vector<Submitter> submitters(static_cast<std::size_t>(threads),
                                    Submitter{api, handle, jpegs, use, batch, {}, 0});
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back(
        [&, t] { submitters[static_cast<std::size_t>(t)].run(t, threads, start, warm); });
  }
  warm.arrive_and_wait();
  const double cpu_before = cpu_seconds();
  const auto wall_before = std::chrono::steady_clock::now();
  start.arrive_and_wait();
  for (std::thread& thread : running) thread.join();
  figures.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  figures.cpu_s = cpu_seconds() - cpu_before;
  for (const Submitter& submitter : submitters) {
    figures.images += submitter.decoded;
    if (figures.error.empty()) figures.error = submitter.error;
  }
  return figures;
}

RunFigures run_single(const NvJpeg& api, nvjpegHandle_t handle, const std::vector<Jpeg>& jpegs,
                      const std::vector<std::size_t>& use) {
  RunFigures figures;
  nvjpegJpegState_t state = nullptr;
  cudaStream_t stream = nullptr;
  Outputs outputs(1, largest_output(jpegs, use));
  nvjpegStatus_t status = api.JpegStateCreate(handle, &state);
  if (status != NVJPEG_STATUS_SUCCESS || outputs.status() != cudaSuccess) {
    figures.error = status != NVJPEG_STATUS_SUCCESS
                        ? nvjpeg_failure("nvjpegJpegStateCreate", status)
                        : cuda_failure("cudaMalloc", outputs.status());
    return figures;
  }
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const auto decode = [&](std::size_t k) {
    const Jpeg& jpeg = jpegs[use[k]];
    status = api.Decode(handle, state, jpeg.bytes.data(), jpeg.bytes.size(), NVJPEG_OUTPUT_RGBI,
                        outputs.views(jpegs, use, k, 1), stream);
    if (status != NVJPEG_STATUS_SUCCESS && figures.error.empty()) {
      figures.error = nvjpeg_failure("nvjpegDecode", status);
    }
  };
  if (!use.empty()) decode(0);  // warm-up
  cudaStreamSynchronize(stream);
  const double cpu_before = cpu_seconds();
  const auto wall_before = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < use.size() && figures.error.empty(); ++k) {
    decode(k);
    ++figures.images;
  }
  cudaStreamSynchronize(stream);
  figures.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  figures.cpu_s = cpu_seconds() - cpu_before;
  cudaStreamDestroy(stream);
  api.JpegStateDestroy(state);
  return figures;
}

std::vector<std::vector<unsigned char>> decode_to_host(const NvJpeg& api, nvjpegHandle_t handle,
                                                       const std::vector<Jpeg>& jpegs,
                                                       const std::vector<std::size_t>& use,
                                                       bool batched, std::string& error) {
  std::vector<std::vector<unsigned char>> pixels;
  nvjpegJpegState_t state = nullptr;
  nvjpegStatus_t status = api.JpegStateCreate(handle, &state);
  Outputs outputs(use.size(), largest_output(jpegs, use));
  if (status != NVJPEG_STATUS_SUCCESS || outputs.status() != cudaSuccess || use.empty()) {
    error = status != NVJPEG_STATUS_SUCCESS ? nvjpeg_failure("nvjpegJpegStateCreate", status)
                                            : cuda_failure("cudaMalloc", outputs.status());
    if (state != nullptr) api.JpegStateDestroy(state);
    return pixels;
  }
  nvjpegImage_t* views = outputs.views(jpegs, use, 0, use.size());
  if (batched) {
    std::vector<const unsigned char*> data;
    std::vector<std::size_t> lengths;
    for (const std::size_t i : use) {
      data.push_back(jpegs[i].bytes.data());
      lengths.push_back(jpegs[i].bytes.size());
    }
    status = api.DecodeBatchedInitialize(handle, state, static_cast<int>(use.size()), 1,
                                         NVJPEG_OUTPUT_RGBI);
    if (status == NVJPEG_STATUS_SUCCESS) {
      status = api.DecodeBatched(handle, state, data.data(), lengths.data(), views, nullptr);
    }
  } else {
    for (std::size_t k = 0; k < use.size() && status == NVJPEG_STATUS_SUCCESS; ++k) {
      const Jpeg& jpeg = jpegs[use[k]];
      status = api.Decode(handle, state, jpeg.bytes.data(), jpeg.bytes.size(), NVJPEG_OUTPUT_RGBI,
                          &views[k], nullptr);
    }
  }
  const cudaError_t synced = cudaDeviceSynchronize();
  if (status != NVJPEG_STATUS_SUCCESS || synced != cudaSuccess) {
    error = status != NVJPEG_STATUS_SUCCESS ? nvjpeg_failure("decode", status)
                                            : cuda_failure("decode", synced);
  } else {
    for (std::size_t k = 0; k < use.size(); ++k) {
      const Jpeg& jpeg = jpegs[use[k]];
      pixels.emplace_back(static_cast<std::size_t>(jpeg.width) * jpeg.height * 3);
      cudaMemcpy(pixels.back().data(), outputs.buffer(k), pixels.back().size(),
                 cudaMemcpyDeviceToHost);
    }
  }
  api.JpegStateDestroy(state);
  return pixels;
}

}  // namespace feedrate::probe
