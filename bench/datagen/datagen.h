// Synthetic JPEG dataset generator for benchmarks and tests: photograph-like images, JPEG
// encoding with the variants a loader must handle (gray, CMYK, progressive, subsampling, restart
// markers) and whole datasets as an ImageFolder tree or WebDataset-style tar shards. Everything is
// a pure function of its seed: the same spec gives byte-identical output.
// Thread-safety: all functions are reentrant and may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace feedrate::datagen {

enum class ColorKind { kRgb, kGray, kCmyk };
enum class Subsampling { k444, k422, k420 };

struct JpegSpec {
  int width = 500, height = 375, quality = 90;
  ColorKind color = ColorKind::kRgb;
  Subsampling subsampling = Subsampling::k420;  // ignored for kGray
  bool progressive = false;
  // MCU rows per restart interval; 0 = no restart markers. TurboJPEG 2.x has no API for this,
  // so such images are encoded with libjpeg directly.
  int restart_interval_rows = 0;
};

// Photograph-like content, HWC RGB, width * height * 3 bytes: a smooth colour field (gradient
// and soft blobs), a few hard-edged shapes, multi-octave value-noise texture whose strength
// varies across the image, and per-pixel grain. Tuned so that a 500x375 q90 4:2:0 JPEG is about
// 100 KB, like an ImageNet photo. Throws std::invalid_argument for non-positive sizes.
std::vector<unsigned char> make_rgb_pixels(std::uint64_t seed, int width, int height);

// Encodes `rgb` (HWC RGB, spec.width x spec.height). kGray stores the BT.601 luma of the pixels;
// kCmyk stores them as Adobe (inverted) CMYK, which JPEG holds as YCCK and which decodes back to
// the same colours. Throws std::invalid_argument for a size mismatch or a quality outside
// [1, 100], std::runtime_error with the TurboJPEG / libjpeg message when encoding fails.
std::vector<unsigned char> encode_jpeg(const std::vector<unsigned char>& rgb, const JpegSpec& spec);

// encode_jpeg(make_rgb_pixels(seed, spec.width, spec.height), spec).
std::vector<unsigned char> make_jpeg(std::uint64_t seed, const JpegSpec& spec);

enum class Format { kFolder, kTar };

struct DatasetSpec {
  std::filesystem::path out;
  int count = 1000;  // images
  int classes = 10;
  Format format = Format::kFolder;
  std::uint64_t seed = 0;
  int quality = 90;
  int images_per_shard = 1000;  // tar only
  int threads = 0;              // encoder threads; 0 = one per hardware thread
  // Cycle through every image format and variant of mixed_kind() instead of JPEG only, and (as
  // a folder) add a stray class_000/notes.txt that a loader must leave out.
  bool mixed_formats = false;
  // Image i in class i * classes / count (consecutive images share a class, as shards written
  // class by class are) instead of i % classes.
  bool class_order = false;
};

struct DatasetSummary {
  std::size_t images = 0;
  std::uint64_t bytes = 0;  // total size of `files` on disk (tar headers and padding included)
  int classes = 0;
  std::vector<std::filesystem::path> files;  // the images or shards under spec.out, in order
  std::uint64_t jpeg_bytes = 0;              // sum of the encoded images' sizes alone
};

struct ImageSize {
  int width = 0, height = 0;
};

// The size of image `index` of a dataset with this seed: about 70% 500x375, 20% 375x500 and
// 10% other sizes with sides in [200, 800], like ImageNet's mix.
ImageSize dataset_image_size(std::uint64_t seed, int index);

// Writes a dataset of spec.count images, image i in class i % spec.classes (or, with
// spec.class_order, i * classes / count), 4:2:0 at
// spec.quality, with names zero-padded so that sorted order is numeric order (at least 3 digits
// for classes, 6 for images):
//   kFolder: out/class_000/img_000000.jpg, out/class_001/img_000001.jpg, ...
//   kTar:    out/shard_000000.tar, ...: spec.images_per_shard images per POSIX ustar shard, image
//            i as members img_<i>.jpg then img_<i>.cls (the label in decimal plus "\n").
// The dataset is built in a sibling directory out.tmp-XXXXXX and renamed to `out` at the end, so
// `out` is either absent or complete. Throws std::runtime_error (naming it) when `out` already
// exists, std::invalid_argument for a bad spec, std::runtime_error on I/O errors (the temporary
// directory is removed then).
DatasetSummary make_dataset(const DatasetSpec& spec);

}  // namespace feedrate::datagen
