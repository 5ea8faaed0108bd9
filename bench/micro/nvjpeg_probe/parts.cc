#include "bench/micro/nvjpeg_probe/parts.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "bench/micro/nvjpeg_probe/pixels.h"

namespace feedrate::probe {
namespace {

using nlohmann::json;

const BackendName& find_backend(const std::string& name) {
  for (const BackendName& b : kBackends) {
    if (name == b.name) return b;
  }
  throw std::invalid_argument("no nvJPEG backend '" + name + "' (hardware, gpu_hybrid, hybrid)");
}

// The stream-ordering check without and with a host wait.
void check_order(const NvJpeg& api, const BackendName& b, nvjpegHandle_t handle,
                 const std::vector<Jpeg>& jpegs, const std::vector<std::size_t>& use, json& out) {
  for (const bool wait : {false, true}) {
    trace(wait ? "stream order, host wait" : "stream order, no host wait");
    const OrderFigures order = check_stream_order(api, handle, jpegs, use, b.batched, wait);
    std::printf(
        "%-11s stream order, %s host wait: %zu of %zu bytes read after the decode wrote them "
        "(the decode call took %.1f ms of the kernel's %.0f ms wait)%s%s\n",
        b.name, wait ? "with" : "without", order.changed, order.bytes, order.decode_call_ms,
        order.spin_ms, order.error.empty() ? "" : "  ERROR ", order.error.c_str());
    out[wait ? "stream_order_with_host_wait" : "stream_order_without_host_wait"] = {
        {"bytes", order.bytes},
        {"changed", order.changed},
        {"corrupted", order.changed > 0},
        {"decode_call_ms", order.decode_call_ms},
        {"kernel_wait_ms", order.spin_ms},
        {"error", order.error}};
  }
}

// The first `compare` images decoded by the backend against libjpeg-turbo's two upsamplings of
// the chroma: the default (smooth, "fancy") and TJFLAG_FASTUPSAMPLE (each chroma sample copied
// to the pixels it covers). A GPU decoder that upsamples like one of them is near it.
void check_pixels(const NvJpeg& api, const BackendName& b, nvjpegHandle_t handle,
                  const std::vector<Jpeg>& jpegs, const std::vector<std::size_t>& use,
                  std::size_t compare, json& out) {
  const std::vector<std::size_t> sample(
      use.begin(), use.begin() + static_cast<std::ptrdiff_t>(std::min(compare, use.size())));
  std::string error;
  trace("pixels");
  const auto pixels = decode_to_host(api, handle, jpegs, sample, b.batched, error);
  json references = json::object();
  struct Reference {
    const char* key;
    int flags;
    const char* flag_names;
  };
  for (const Reference& r :
       {Reference{"accurate_dct", TJFLAG_ACCURATEDCT, "TJFLAG_ACCURATEDCT"},
        Reference{"accurate_dct_fast_upsample", TJFLAG_ACCURATEDCT | TJFLAG_FASTUPSAMPLE,
                  "TJFLAG_ACCURATEDCT | TJFLAG_FASTUPSAMPLE"}}) {
    const PixelDifference diff = compare_with_turbo(jpegs, sample, pixels, r.flags);
    references[r.key] = {{"images", diff.images},
                         {"max_abs_diff", diff.max},
                         {"mean_abs_diff", diff.mean},
                         {"reference", std::string("tjDecompress2 TJPF_RGB ") + r.flag_names}};
    std::printf("%-11s pixels against libjpeg-turbo (%s) over %zu images: max %d, mean %.4f%s%s\n",
                b.name, r.flag_names, diff.images, diff.max, diff.mean,
                error.empty() ? "" : "  ERROR ", error.c_str());
  }
  references["error"] = error;
  out["pixels_vs_libjpeg_turbo"] = references;
}

}  // namespace

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

json run_part_here(const NvJpeg& api, const std::string& backend, const std::string& part,
                   const std::vector<Jpeg>& jpegs, std::size_t compare) {
  const BackendName& b = find_backend(backend);
  int batch = 0, threads = 0;
  const bool runs = std::sscanf(part.c_str(), "runs:%d:%d", &batch, &threads) == 2;
  if (runs ? !b.batched || batch < 1 || threads < 1
           : part != "checks" && !(part == "single" && !b.batched)) {
    throw std::invalid_argument("no part '" + part + "' for the " + backend + " backend");
  }
  json out{{"backend", b.name}};
  nvjpegHandle_t handle = nullptr;
  const nvjpegStatus_t created = api.CreateEx(b.backend, nullptr, nullptr, 0, &handle);
  out["handle"] = status_name(created);
  if (created != NVJPEG_STATUS_SUCCESS) {
    std::printf("%-11s handle: %s\n", b.name, status_name(created));
    return out;
  }
  if (b.backend == NVJPEG_BACKEND_HARDWARE) {
    unsigned engines = 0, cores = 0;
    const nvjpegStatus_t info = api.GetHardwareDecoderInfo(handle, &engines, &cores);
    out["engines"] = engines;
    out["cores_per_engine"] = cores;
    out["decoder_info"] = status_name(info);
  }
  std::vector<std::size_t> use(jpegs.size());
  for (std::size_t i = 0; i < use.size(); ++i) use[i] = i;
  if (b.batched) use = batched_supported(api, handle, jpegs);
  out["images"] = jpegs.size();
  out["refused"] = jpegs.size() - use.size();
  if (runs) {
    trace(part.c_str());
    const RunFigures r = run_batched(api, handle, jpegs, use, batch, threads);
    print_run(b.name, r);
    out["run"] = run_json(r);
  } else if (part == "single") {
    const RunFigures r = run_single(api, handle, jpegs, use);
    print_run(b.name, r);
    out["run"] = run_json(r);
  } else {
    check_order(api, b, handle, jpegs, use, out);
    check_pixels(api, b, handle, jpegs, use, compare, out);
  }
  api.Destroy(handle);
  return out;
}

}  // namespace feedrate::probe
