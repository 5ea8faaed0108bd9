// feedrate-nvjpeg-probe: can nvJPEG's hardware JPEG engine feed a GPU for a fraction of a host
// core? Measures the backends on a folder of JPEGs (probe.h says what and how) and writes one
// JSON document (--json) and a table. Exit status: 0 measured; 2 no CUDA device ("no CUDA
// device" on the console, as bench/device/gpu_check.sh's dry run expects); 3 nvJPEG cannot be
// loaded; 1 no JPEG (CLI11 its own code for bad arguments).
//
//   feedrate-nvjpeg-probe --images DIR [--count 2048] [--assisted-count 512]
//                         [--batches 64,128,256] [--threads 1,2,4] [--compare 128] [--json OUT]
// The backends whose Huffman decode runs on the host (GPU_HYBRID, HYBRID) take the first
// --assisted-count JPEGs only, so that the whole probe stays within a couple of minutes.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <turbojpeg.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/micro/nvjpeg_probe/pixels.h"
#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {
namespace {

using nlohmann::json;

// The first `count` JPEGs under `dir` in path order, with their dimensions.
std::vector<Jpeg> read_jpegs(const std::filesystem::path& dir, std::size_t count) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".JPEG")) {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  if (paths.size() > count) paths.resize(count);
  std::vector<Jpeg> jpegs;
  tjhandle turbo = tjInitDecompress();
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    Jpeg jpeg{path.string(), {std::istreambuf_iterator<char>(in), {}}, 0, 0};
    int subsampling = 0, colorspace = 0;
    if (tjDecompressHeader3(turbo, jpeg.bytes.data(), jpeg.bytes.size(), &jpeg.width, &jpeg.height,
                            &subsampling, &colorspace) == 0) {
      jpegs.push_back(std::move(jpeg));
    }
  }
  tjDestroy(turbo);
  return jpegs;
}

json run_json(const RunFigures& r) {
  return {{"batch", r.batch},
          {"threads", r.threads},
          {"images", r.images},
          {"wall_s", r.wall_s},
          {"cpu_s", r.cpu_s},
          {"images_per_s", r.images_per_s()},
          {"cpu_s_per_image", r.cpu_s_per_image()},
          {"host_cores", r.wall_s > 0 ? r.cpu_s / r.wall_s : 0},
          {"error", r.error}};
}

void print_run(const std::string& backend, const RunFigures& r) {
  std::printf("%-11s batch %4d threads %d: %8.0f images/s, %7.3f ms CPU/image (%.2f cores)%s%s\n",
              backend.c_str(), r.batch, r.threads, r.images_per_s(), r.cpu_s_per_image() * 1e3,
              r.wall_s > 0 ? r.cpu_s / r.wall_s : 0.0, r.error.empty() ? "" : "  ERROR ",
              r.error.c_str());
}

// One backend: its handle, what it refuses, its runs, its pixels and (batched) stream order.
json probe_backend(const NvJpeg& api, const char* name, nvjpegBackend_t backend,
                   const std::vector<Jpeg>& jpegs, const std::vector<int>& batches,
                   const std::vector<int>& threads, std::size_t compare, bool batched) {
  json out{{"backend", name}};
  nvjpegHandle_t handle = nullptr;
  const nvjpegStatus_t created = api.CreateEx(backend, nullptr, nullptr, 0, &handle);
  out["handle"] = status_name(created);
  std::printf("%-11s handle: %s\n", name, status_name(created));
  if (created != NVJPEG_STATUS_SUCCESS) return out;
  if (backend == NVJPEG_BACKEND_HARDWARE) {
    unsigned engines = 0, cores = 0;
    const nvjpegStatus_t info = api.GetHardwareDecoderInfo(handle, &engines, &cores);
    out["engines"] = engines;
    out["cores_per_engine"] = cores;
    out["decoder_info"] = status_name(info);
    std::printf("%-11s %u engine(s), %u core(s) each (%s)\n", name, engines, cores,
                status_name(info));
  }
  std::vector<std::size_t> use(jpegs.size());
  for (std::size_t i = 0; i < use.size(); ++i) use[i] = i;
  if (batched) use = batched_supported(api, handle, jpegs);
  out["images"] = jpegs.size();
  out["refused"] = jpegs.size() - use.size();
  out["refused_handling"] = "left out of this backend's runs";
  std::printf("%-11s refuses %zu of %zu images\n", name, jpegs.size() - use.size(), jpegs.size());
  json runs = json::array();
  if (batched) {
    for (const int b : batches) {
      for (const int t : threads) {
        trace(fmt::format("{} batch {} threads {}", name, b, t).c_str());
        const RunFigures r = run_batched(api, handle, jpegs, use, b, t);
        print_run(name, r);
        runs.push_back(run_json(r));
      }
    }
    for (const bool wait : {false, true}) {
      trace(wait ? "stream order, host wait" : "stream order, no host wait");
      const OrderFigures order = check_stream_order(api, handle, jpegs, use, wait);
      std::printf(
          "%-11s stream order, %s host wait: %zu of %zu bytes read after the decode wrote "
          "them%s%s\n",
          name, wait ? "with" : "without", order.changed, order.bytes,
          order.error.empty() ? "" : "  ERROR ", order.error.c_str());
      out[wait ? "stream_order_with_host_wait" : "stream_order_without_host_wait"] = {
          {"bytes", order.bytes},
          {"changed", order.changed},
          {"corrupted", order.changed > 0},
          {"error", order.error}};
    }
  } else {
    const RunFigures r = run_single(api, handle, jpegs, use);
    print_run(name, r);
    runs.push_back(run_json(r));
  }
  out["runs"] = runs;
  const std::vector<std::size_t> sample(
      use.begin(), use.begin() + static_cast<std::ptrdiff_t>(std::min(compare, use.size())));
  std::string error;
  trace("pixels");
  const auto pixels = decode_to_host(api, handle, jpegs, sample, batched, error);
  const PixelDifference diff = compare_with_turbo(jpegs, sample, pixels);
  out["pixels_vs_libjpeg_turbo"] = {{"images", diff.images},
                                    {"max_abs_diff", diff.max},
                                    {"mean_abs_diff", diff.mean},
                                    {"reference", "tjDecompress2 TJPF_RGB TJFLAG_ACCURATEDCT"},
                                    {"error", error}};
  std::printf("%-11s pixels against libjpeg-turbo over %zu images: max %d, mean %.4f%s%s\n", name,
              diff.images, diff.max, diff.mean, error.empty() ? "" : "  ERROR ", error.c_str());
  api.Destroy(handle);
  return out;
}

std::vector<int> numbers(const std::string& list) {
  std::vector<int> out;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    out.push_back(std::stoi(list.substr(at, end - at)));
    at = end + 1;
  }
  return out;
}

}  // namespace
}  // namespace feedrate::probe

int main(int argc, char** argv) {
  using namespace feedrate::probe;
  CLI::App app{"nvJPEG's backends on a folder of JPEGs: images/s, host CPU, pixels, stream order"};
  std::string images_dir, json_path, batches = "64,128,256", threads = "1,2,4";
  std::size_t count = 2048, assisted_count = 512, compare = 128;
  app.add_option("--images", images_dir, "Folder of JPEGs (searched recursively)")->required();
  app.add_option("--count", count, "JPEGs to use, the first in path order")
      ->check(CLI::PositiveNumber);
  app.add_option("--assisted-count", assisted_count,
                 "JPEGs for the backends that decode Huffman on the host (GPU_HYBRID, HYBRID)")
      ->check(CLI::PositiveNumber);
  app.add_option("--batches", batches, "Batch sizes, comma-separated");
  app.add_option("--threads", threads, "Submitting threads, comma-separated");
  app.add_option("--compare", compare, "Images compared with libjpeg-turbo per backend");
  app.add_option("--json", json_path, "Write the results here");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured, also into a pipe

  json out;
  const auto finish = [&](int status) {
    if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
    return status;
  };
  int devices = 0;
  const cudaError_t found = cudaGetDeviceCount(&devices);
  if (found != cudaSuccess || devices == 0) {
    std::printf("nvjpeg-probe: no CUDA device (%s)\n",
                found != cudaSuccess ? cudaGetErrorString(found) : "none found");
    out = {{"status", "no-gpu"}};
    return finish(2);
  }
  NvJpeg api;
  std::string error;
  if (!load(api, error)) {
    std::printf("nvjpeg-probe: nvJPEG cannot be loaded: %s\n", error.c_str());
    out = {{"status", "no-nvjpeg"}, {"error", error}};
    return finish(3);
  }
  const std::vector<Jpeg> jpegs = read_jpegs(images_dir, count);
  if (jpegs.empty()) {
    std::fprintf(stderr, "nvjpeg-probe: %s: no JPEG\n", images_dir.c_str());
    return 1;
  }
  cudaDeviceProp props{};
  cudaGetDeviceProperties(&props, 0);
  int driver = 0, runtime = 0, major = 0, minor = 0, patch = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  api.GetProperty(MAJOR_VERSION, &major);
  api.GetProperty(MINOR_VERSION, &minor);
  api.GetProperty(PATCH_LEVEL, &patch);
  std::string nvcuvid_error;
  const bool nvcuvid = loadable("libnvcuvid.so.1", nvcuvid_error);
  std::size_t bytes = 0;
  for (const Jpeg& jpeg : jpegs) bytes += jpeg.bytes.size();
  out = {{"status", "measured"},
         {"device", props.name},
         {"driver_version", driver},
         {"runtime_version", runtime},
         {"nvjpeg",
          {{"library", api.path}, {"version", fmt::format("{}.{}.{}", major, minor, patch)}}},
         {"libnvcuvid_so_1", nvcuvid ? "loadable" : "absent: " + nvcuvid_error},
         {"images", jpegs.size()},
         {"mean_jpeg_bytes", static_cast<double>(bytes) / jpegs.size()}};
  std::printf("%s, driver %d, runtime %d, nvJPEG %d.%d.%d (%s); libnvcuvid.so.1 %s\n", props.name,
              driver, runtime, major, minor, patch, api.path.c_str(),
              nvcuvid ? "loadable" : ("absent: " + nvcuvid_error).c_str());
  std::printf("%zu JPEGs, %.0f bytes each on average\n", jpegs.size(),
              static_cast<double>(bytes) / jpegs.size());
  const std::vector<int> b = numbers(batches), t = numbers(threads);
  const std::vector<Jpeg> assisted(
      jpegs.begin(),
      jpegs.begin() + static_cast<std::ptrdiff_t>(std::min(assisted_count, jpegs.size())));
  out["backends"] = json::array();
  // Written after each backend, so that a probe stopped by a timeout keeps what it measured.
  out["backends"].push_back(
      probe_backend(api, "hardware", NVJPEG_BACKEND_HARDWARE, jpegs, b, t, compare, true));
  finish(0);
  out["backends"].push_back(
      probe_backend(api, "gpu_hybrid", NVJPEG_BACKEND_GPU_HYBRID, assisted, b, t, compare, true));
  finish(0);
  out["backends"].push_back(
      probe_backend(api, "hybrid", NVJPEG_BACKEND_HYBRID, assisted, b, t, compare, false));
  return finish(0);
}
