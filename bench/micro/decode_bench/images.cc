#include "bench/micro/decode_bench/images.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "decode/image_decoder.h"
#include "decode/jpeg_pack.h"

namespace feedrate::decode_bench {

namespace fs = std::filesystem;

std::vector<Image> load_images(const fs::path& dir, int count, int restart_mcus) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".JPEG")) {
      paths.push_back(entry.path());
    }
  }
  if (paths.empty()) throw std::runtime_error("no .jpg files under " + dir.string());
  std::sort(paths.begin(), paths.end());
  const std::size_t n = std::min<std::size_t>(paths.size(), static_cast<std::size_t>(count));
  std::vector<Image> images(n);
  decode::ImageDecoder decoder;
  decode::JpegPacker packer({}, restart_mcus);
  std::vector<std::uint8_t> rgb;
  for (std::size_t i = 0; i < n; ++i) {
    Image& image = images[i];
    image.path = paths[i * paths.size() / n];
    std::ifstream in(image.path, std::ios::binary);
    image.bytes.assign(std::istreambuf_iterator<char>(in), {});
    const decode::DecodeStatus status = decoder.decode_full(image.bytes, rgb);
    if (!status.ok()) throw std::runtime_error(image.path.string() + ": " + status.message);
    image.width = decoder.info().width;
    image.height = decoder.info().height;
    if (const decode::DecodeStatus packed = packer.pack(image.bytes, image.packed); !packed.ok()) {
      throw std::runtime_error(image.path.string() + ": cannot pack: " + packed.message);
    }
  }
  return images;
}

}  // namespace feedrate::decode_bench
