#include <turbojpeg.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {

std::vector<Jpeg> read_jpegs(const std::string& dir, std::size_t count) {
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
    if (!in) {
      tjDestroy(turbo);
      throw std::runtime_error(path.string() + ": cannot be opened");
    }
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

}  // namespace feedrate::probe
