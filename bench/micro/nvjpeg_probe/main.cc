// feedrate-nvjpeg-probe: can nvJPEG's hardware JPEG engine feed a GPU for a fraction of a host
// core? Measures the backends on a folder of JPEGs (probe.h says what and how) and writes one
// JSON document (--json, rewritten after each part, so that a probe stopped early keeps what it
// measured) and a table.
//
//   feedrate-nvjpeg-probe --images DIR [--count 2048] [--assisted-count 512]
//                         [--batches 64,128,256] [--threads 1,2,4] [--compare 128]
//                         [--part-timeout 20] [--json OUT]
//
// Each part (a timed configuration, or a backend's checks: parts.h) runs as this program again
// (--backend NAME --part PART --part-json FILE) for at most --part-timeout seconds: a part that
// hangs or crashes is recorded as such and the others still run (isolation.h says why); a
// backend that hung twice is given no more parts. The backends whose Huffman decode runs on the
// host (GPU_HYBRID, HYBRID) take the first --assisted-count JPEGs only, so that the whole probe
// stays within a couple of minutes.
// Exit status: 0 measured (the JSON names any part that failed); 2 no CUDA device ("no CUDA
// device" on the console, as bench/device/gpu_check.sh's dry run expects); 3 nvJPEG cannot be
// loaded; 1 no JPEG, an unreadable file or a bad part (CLI11 its own code for bad arguments).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/micro/nvjpeg_probe/isolation.h"
#include "bench/micro/nvjpeg_probe/parts.h"
#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {
namespace {

using nlohmann::json;

constexpr int kHangsPerBackend = 2;  // then the backend's other parts are not run

struct Options {
  std::string images, json_path, backend, part, part_json;
  std::size_t count = 2048, assisted_count = 512, compare = 128;
  std::vector<int> batches{64, 128, 256}, threads{1, 2, 4};
  double part_timeout = 20;
};

// In a part's own process: measure it and write its JSON.
int part_main(const Options& o) {
  // Before the context exists: a waiting thread sleeps instead of spinning, so that host CPU
  // counts the decode's work, not its waits.
  cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
  NvJpeg api;
  std::string error;
  if (!load(api, error)) {
    std::printf("nvjpeg-probe: nvJPEG cannot be loaded: %s\n", error.c_str());
    return 3;
  }
  const json out = run_part_here(api, o.backend, o.part, read_jpegs(o.images, o.count), o.compare);
  std::ofstream(o.part_json) << out.dump() << "\n";
  return 0;
}

// One backend's parts, each in a child process, into `out` (saved after each).
void probe_backend(const Options& o, const BackendName& b, json& out, const auto& save) {
  struct Part {
    std::string name;
    int batch = 1, threads = 1;
  };
  // The checks first: they answer their own questions (stream order, pixels) with one batch and
  // host waits, whatever a timed run does to the backend after them.
  std::vector<Part> parts{{"checks"}};
  if (b.batched) {
    for (const int batch : o.batches) {
      for (const int threads : o.threads) {
        parts.push_back({fmt::format("runs:{}:{}", batch, threads), batch, threads});
      }
    }
  } else {
    parts.push_back({"single"});
  }
  const std::size_t count = b.backend == NVJPEG_BACKEND_HARDWARE ? o.count : o.assisted_count;
  const std::string self = self_path();
  out["runs"] = json::array();
  out["failures"] = json::array();
  int hangs = 0;
  for (const Part& part : parts) {
    PartOutcome outcome;
    if (hangs >= kHangsPerBackend) {
      outcome.failure = fmt::format("not run: the backend hung {} times", hangs);
    } else {
      outcome = run_part(self,
                         {"--images", o.images, "--count", std::to_string(count), "--compare",
                          std::to_string(o.compare), "--backend", b.name, "--part", part.name},
                         o.part_timeout);
    }
    hangs += outcome.hung ? 1 : 0;
    const json figures = outcome.figures.is_object() ? outcome.figures : json::object();
    if (!out.contains("handle") && figures.contains("handle")) {
      for (const char* key :
           {"handle", "engines", "cores_per_engine", "decoder_info", "images", "refused"}) {
        if (figures.contains(key)) out[key] = figures[key];
      }
      if (out["handle"] == "NVJPEG_STATUS_SUCCESS") {
        std::printf("%-11s %s%zu of %zu images refused\n", b.name,
                    out.contains("engines") ? fmt::format("{} engine(s) of {} core(s), ",
                                                          out["engines"].get<unsigned>(),
                                                          out["cores_per_engine"].get<unsigned>())
                                                  .c_str()
                                            : "",
                    out["refused"].get<std::size_t>(), out["images"].get<std::size_t>());
      }
    }
    if (out.value("handle", std::string("NVJPEG_STATUS_SUCCESS")) != "NVJPEG_STATUS_SUCCESS") {
      break;  // no handle: none of its parts can run
    }
    if (part.name == "checks") {
      for (const auto& [key, value] : figures.items()) {
        if (key.starts_with("stream_order_") || key.starts_with("pixels_")) out[key] = value;
      }
    } else {
      json run = figures.contains("run")
                     ? figures["run"]
                     : json{{"batch", part.batch}, {"threads", part.threads}, {"images", 0}};
      if (!outcome.failure.empty() && run.value("error", "").empty())
        run["error"] = outcome.failure;
      out["runs"].push_back(run);
    }
    if (!outcome.failure.empty()) {
      out["failures"].push_back({{"part", part.name}, {"failure", outcome.failure}});
      std::printf("%-11s %s: %s\n", b.name, part.name.c_str(), outcome.failure.c_str());
    }
    save();
  }
  out["refused_handling"] = "left out of this backend's runs";
}

int probe_main(const Options& o) {
  json out;
  // Written whole and renamed, so that a probe killed while it writes leaves the last document.
  const auto save = [&] {
    if (o.json_path.empty()) return;
    const std::string written = o.json_path + ".tmp";
    std::ofstream(written) << out.dump(2) << "\n";
    std::filesystem::rename(written, o.json_path);
  };
  int devices = 0;
  const cudaError_t found = cudaGetDeviceCount(&devices);
  if (found != cudaSuccess || devices == 0) {
    std::printf("nvjpeg-probe: no CUDA device (%s)\n",
                found != cudaSuccess ? cudaGetErrorString(found) : "none found");
    out = {{"status", "no-gpu"}};
    save();
    return 2;
  }
  NvJpeg api;
  std::string error;
  if (!load(api, error)) {
    std::printf("nvjpeg-probe: nvJPEG cannot be loaded: %s\n", error.c_str());
    out = {{"status", "no-nvjpeg"}, {"error", error}};
    save();
    return 3;
  }
  const std::vector<Jpeg> jpegs = read_jpegs(o.images, o.count);
  if (jpegs.empty()) throw std::runtime_error(o.images + ": no JPEG");
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
         {"mean_jpeg_bytes", static_cast<double>(bytes) / jpegs.size()},
         {"host_waits", "cudaDeviceScheduleBlockingSync (a waiting thread sleeps)"},
         {"parts", fmt::format("each in its own process, killed after {} s", o.part_timeout)},
         {"backends", json::array()}};
  std::printf("%s, driver %d, runtime %d, nvJPEG %d.%d.%d (%s); libnvcuvid.so.1 %s\n", props.name,
              driver, runtime, major, minor, patch, api.path.c_str(),
              nvcuvid ? "loadable" : ("absent: " + nvcuvid_error).c_str());
  std::printf("%zu JPEGs, %.0f bytes each on average\n", jpegs.size(),
              static_cast<double>(bytes) / jpegs.size());
  for (const BackendName& b : kBackends) {
    out["backends"].push_back(json{{"backend", b.name}});
    probe_backend(o, b, out["backends"].back(), save);
  }
  save();
  return 0;
}

}  // namespace
}  // namespace feedrate::probe

int main(int argc, char** argv) {
  using namespace feedrate::probe;
  CLI::App app{"nvJPEG's backends on a folder of JPEGs: images/s, host CPU, pixels, stream order"};
  Options o;
  app.add_option("--images", o.images, "Folder of JPEGs (searched recursively)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--count", o.count, "JPEGs to use, the first in path order")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--assisted-count", o.assisted_count,
                 "JPEGs for the backends that decode Huffman on the host (GPU_HYBRID, HYBRID)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--batches", o.batches, "Batch sizes, comma-separated")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--threads", o.threads, "Submitting threads, comma-separated")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--compare", o.compare, "Images compared with libjpeg-turbo per backend")
      ->capture_default_str();
  app.add_option("--part-timeout", o.part_timeout, "Seconds a part may take before it is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--json", o.json_path, "Write the results here");
  // A part in its own process (isolation.h); not for the command line.
  app.add_option("--backend", o.backend)->group("");
  app.add_option("--part", o.part)->group("");
  app.add_option("--part-json", o.part_json)->group("");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured, also into a pipe
  try {
    return o.part.empty() ? probe_main(o) : part_main(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvjpeg-probe: %s\n", e.what());
    return 1;
  }
}
