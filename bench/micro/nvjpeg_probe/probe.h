// The nvJPEG probe's measurements (bench/micro/nvjpeg_probe; main.cc runs them): can nvJPEG's
// hardware JPEG engine (A100, H100, H200) or its GPU-assisted backend decode for a GPU at the
// rate training needs for a fraction of a host core? Each figure is measured over the same
// JPEGs, read into memory first, with one warm-up pass:
//   - batched decode (nvjpegDecodeBatched, interleaved RGB out) at several batch sizes and
//     submitting threads (each with its own state and stream, the JPEGs split between them, one
//     batch in flight per thread: it waits for its stream before the next):
//     images/s from the first submit to the last stream's end, and the process's CPU seconds
//     (user + system, nvJPEG's own threads included) per image;
//   - one image at a time (nvjpegDecode) for the HYBRID backend;
//   - the pixels against libjpeg-turbo's (RGB, accurate DCT, with its default and its fast
//     chroma upsampling);
//   - whether a decode writes into a buffer that a kernel queued before it on the same stream
//     still reads (the hardware engine is said to ignore stream order), with and without a host
//     wait between them.
// Waits on the host sleep (main.cc sets cudaDeviceScheduleBlockingSync in each part's process):
// a thread that spins in cudaStreamSynchronize would count its wait as decode CPU.
// Images a backend refuses (nvjpegDecodeBatchedSupported) are counted and left out of its runs.
// Thread-safety: each function runs its own threads and joins them.
#pragma once

#include <cuda_runtime_api.h>
#include <nvjpeg.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/micro/nvjpeg_probe/nvjpeg_library.h"

namespace feedrate::probe {

struct Jpeg {
  std::string path;
  std::vector<unsigned char> bytes;
  int width = 0, height = 0;
};

// The first `count` JPEGs under `dir` (recursively; .jpg, .jpeg, .JPEG) in path order whose
// header TurboJPEG reads, with their dimensions (jpegs.cc). Throws std::runtime_error naming a
// file that cannot be read.
std::vector<Jpeg> read_jpegs(const std::string& dir, std::size_t count);

// One timed run.
struct RunFigures {
  int batch = 1;
  int threads = 1;
  std::size_t images = 0;  // decoded in the timed part
  double wall_s = 0;
  double cpu_s = 0;   // the process's user + system time over the timed part
  std::string error;  // the first nvJPEG or CUDA failure, if any

  double images_per_s() const { return wall_s > 0 ? images / wall_s : 0; }
  double cpu_s_per_image() const { return images > 0 ? cpu_s / images : 0; }
};

// With FEEDRATE_PROBE_TRACE set, each step of a run is written to stderr as it begins, with the
// seconds since the probe started: where a run stops, the trace says in which call.
void trace(const char* what, int thread = -1);

// The JPEGs that a batched decode on `handle` accepts (indices into `jpegs`).
std::vector<std::size_t> batched_supported(const NvJpeg& api, nvjpegHandle_t handle,
                                           const std::vector<Jpeg>& jpegs);

// Batched decodes of `use` (full batches only) on `threads` threads.
RunFigures run_batched(const NvJpeg& api, nvjpegHandle_t handle, const std::vector<Jpeg>& jpegs,
                       const std::vector<std::size_t>& use, int batch, int threads);
// nvjpegDecode, one image at a time, on one thread.
RunFigures run_single(const NvJpeg& api, nvjpegHandle_t handle, const std::vector<Jpeg>& jpegs,
                      const std::vector<std::size_t>& use);

// The decoded pixels of `use` (RGB, width x height x 3 each), batched or one at a time.
std::vector<std::vector<unsigned char>> decode_to_host(const NvJpeg& api, nvjpegHandle_t handle,
                                                       const std::vector<Jpeg>& jpegs,
                                                       const std::vector<std::size_t>& use,
                                                       bool batched, std::string& error);

// Launches, on `stream`, a kernel that spins for `ms` milliseconds and then copies `bytes`
// bytes from `from` to `to` (stream_order.cu).
cudaError_t launch_spin_then_copy(const unsigned char* from, unsigned char* to, std::size_t bytes,
                                  double ms, cudaStream_t stream);

// The stream-ordering check: `to` receives what `from` held when the queued kernel copied it;
// bytes that differ from the pattern written before were written by the decode first. The
// decode is a batch of up to 64 of `use` (batched) or its first image (nvjpegDecode).
struct OrderFigures {
  bool host_wait = false;
  std::size_t bytes = 0;
  std::size_t changed = 0;  // bytes the kernel read after the decode had written them
  double spin_ms = 0;       // how long the kernel waits before it copies
  // The host's time in the decode call: far below spin_ms with `changed` > 0, the decode wrote
  // while the kernel queued before it was still waiting; near spin_ms, the call itself waited.
  double decode_call_ms = 0;
  std::string error;
};
OrderFigures check_stream_order(const NvJpeg& api, nvjpegHandle_t handle,
                                const std::vector<Jpeg>& jpegs, const std::vector<std::size_t>& use,
                                bool batched, bool host_wait);

}  // namespace feedrate::probe
