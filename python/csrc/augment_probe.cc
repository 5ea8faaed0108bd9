#include "python/csrc/augment_probe.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <string>

#include "decode/augment.h"
#include "decode/resize.h"
#include "decode/transform.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

using Image = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

Image checked_copy(const Image& image) {
  if (image.ndim() != 3 || image.shape(2) != 3) {
    throw py::value_error("expected an H x W x 3 uint8 array");
  }
  Image copy({image.shape(0), image.shape(1), py::ssize_t{3}});
  std::memcpy(copy.mutable_data(), image.data(), static_cast<std::size_t>(image.size()));
  return copy;
}

decode::ImageView view_of(Image& image) {
  return {image.mutable_data(), static_cast<int>(image.shape(1)), static_cast<int>(image.shape(0))};
}

Image apply_op(const Image& input, const std::string& name, double magnitude,
               const std::array<double, 3>& fill) {
  Image image = checked_copy(input);
  const decode::ImageView view = view_of(image);
  decode::AugmentScratch scratch;
  if (name == "HFlip") {
    decode::flip_horizontal(view);
  } else if (name == "VFlip") {
    decode::flip_vertical(view);
  } else if (name == "Grayscale") {
    decode::to_grayscale(view);
  } else if (name == "Hue") {
    decode::adjust_hue(view, magnitude);
  } else {
    for (int k = 0; k <= static_cast<int>(decode::AugmentOp::kInvert); ++k) {
      const auto op = static_cast<decode::AugmentOp>(k);
      if (name == decode::augment_op_name(op)) {
        decode::apply_augment_op(view, op, magnitude, fill, scratch);
        return image;
      }
    }
    throw py::value_error("unknown op '" + name + "'");
  }
  return image;
}

Image resized_crop(const Image& input, int top, int left, int height, int width, int size,
                   const std::string& interpolation) {
  Image image = checked_copy(input);
  decode::ResizePlan plan;
  plan.box_x = left;
  plan.box_y = top;
  plan.box_w = width;
  plan.box_h = height;
  plan.out_w = plan.out_h = plan.win_w = plan.win_h = size;
  plan.clip_x0 = left;
  plan.clip_y0 = top;
  plan.clip_x1 = left + width;
  plan.clip_y1 = top + height;
  plan.interpolation =
      interpolation == "bicubic" ? Interpolation::kBicubic : Interpolation::kBilinear;
  decode::Resampler resampler;
  resampler.prepare(plan);
  Image out({py::ssize_t{size}, py::ssize_t{size}, py::ssize_t{3}});
  resampler.run(image.data(), static_cast<std::size_t>(image.shape(1)) * 3, 0, 0,
                out.mutable_data());
  return out;
}

}  // namespace

void register_augment_probe(py::module_& m) {
  m.def("_apply_op", &apply_op, py::arg("image"), py::arg("op"), py::arg("magnitude") = 0.0,
        py::arg("fill") = std::array<double, 3>{0, 0, 0},
        "For tests: one augmentation operation with given parameters on an H x W x 3 uint8 "
        "array (torchvision's op names, plus HFlip, VFlip, Grayscale and Hue).");
  m.def("_resized_crop", &resized_crop, py::arg("image"), py::arg("top"), py::arg("left"),
        py::arg("height"), py::arg("width"), py::arg("size"), py::arg("interpolation"),
        "For tests: F.resized_crop(image, top, left, height, width, size, interpolation, "
        "antialias=True) with feedrate's resampler.");
}

}  // namespace feedrate::python
