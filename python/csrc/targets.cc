#include "python/csrc/targets.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace feedrate::python {
namespace py = pybind11;

namespace {

// The batch's targets back to back (the slot keeps a region per image, as large as its
// annotations), and where each image's start.
struct Gathered {
  std::vector<float> boxes;  // 4 a box
  std::vector<std::int64_t> labels;
  std::vector<std::uint8_t> crowd, difficult;
  std::vector<std::int64_t> image_of;    // the box's image in the batch
  std::vector<std::size_t> first;        // per image, then the total
  std::vector<std::uint8_t> masks;       // the planes of every image back to back
  std::vector<std::size_t> first_plane;  // per image, then the total
};

Gathered gather(const Batch& batch) {
  Gathered g;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ImageTargets t = batch.targets(i);
    g.first.push_back(g.labels.size());
    g.first_plane.push_back(g.masks.size());
    g.masks.insert(g.masks.end(), t.masks.begin(), t.masks.end());
    g.boxes.insert(g.boxes.end(), t.boxes.begin(), t.boxes.end());
    g.labels.insert(g.labels.end(), t.labels.begin(), t.labels.end());
    for (const std::uint8_t flags : t.flags) {
      g.crowd.push_back((flags & 1) != 0);
      g.difficult.push_back((flags & 2) != 0);
      g.image_of.push_back(static_cast<std::int64_t>(i));
    }
  }
  g.first.push_back(g.labels.size());
  g.first_plane.push_back(g.masks.size());
  return g;
}

template <typename T>
const char* torch_dtype() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  return "uint8";
}

// `values` (copied) as an array of `shape`: a torch tensor over a bytearray (torch.frombuffer
// needs no numpy interop, which a torch built against numpy 1 lacks under numpy 2), or a numpy
// array; as booleans when `boolean` (flags kept as bytes).
template <typename T>
py::object make_array(const std::vector<T>& values, const std::vector<py::ssize_t>& shape,
                      ArrayKind arrays, bool boolean = false) {
  const std::size_t bytes = values.size() * sizeof(T);
  py::object array;
  if (arrays == ArrayKind::kTorch) {
    const py::module_ torch = py::module_::import("torch");
    const py::object dtype = torch.attr(torch_dtype<T>());
    array = values.empty()
                ? torch.attr("empty")(py::tuple(py::cast(shape)), py::arg("dtype") = dtype)
                : torch
                      .attr("frombuffer")(
                          py::bytearray(reinterpret_cast<const char*>(values.data()), bytes),
                          py::arg("dtype") = dtype)
                      .attr("view")(py::tuple(py::cast(shape)));
    return boolean ? array.attr("bool")() : array;
  }
  std::vector<py::ssize_t> strides(shape.size(), sizeof(T));
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  py::array numpy(py::dtype::of<T>(), shape, strides);
  if (bytes > 0) std::memcpy(numpy.mutable_data(), values.data(), bytes);
  return boolean ? numpy.attr("astype")("bool") : py::object(numpy);
}

py::object rows(const py::object& array, std::size_t first, std::size_t last) {
  return array[py::slice(static_cast<py::ssize_t>(first), static_cast<py::ssize_t>(last), 1)];
}

py::ssize_t count(const std::vector<std::int64_t>& labels) {
  return static_cast<py::ssize_t>(labels.size());
}

// The batch's mask planes as one array [planes, height, width].
py::object mask_planes(const Batch& batch, const Gathered& g, ArrayKind arrays) {
  const auto plane = static_cast<std::size_t>(batch.height()) * batch.width();
  return make_array(
      g.masks, {static_cast<py::ssize_t>(g.masks.size() / plane), batch.height(), batch.width()},
      arrays);
}

py::list dicts(const Batch& batch, const Gathered& g, const PythonOptions& options,
               ArrayKind arrays) {
  const py::object boxes = make_array(g.boxes, {count(g.labels), 4}, arrays);
  const py::object labels = make_array(g.labels, {count(g.labels)}, arrays);
  const py::object crowd = make_array(g.crowd, {count(g.labels)}, arrays, true);
  const py::object difficult = make_array(g.difficult, {count(g.labels)}, arrays, true);
  const bool semantic = !options.loader.masks.empty() && options.loader.masks != kInstanceMasks;
  const py::object masks =
      options.loader.masks.empty() ? py::object(py::none()) : mask_planes(batch, g, arrays);
  const auto plane = static_cast<std::size_t>(batch.height()) * batch.width();
  py::list out;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ImageTargets t = batch.targets(i);
    const std::size_t first = g.first[i], last = g.first[i + 1];
    py::dict target;
    target["boxes"] = rows(boxes, first, last);
    target["labels"] = rows(labels, first, last);
    target["image_id"] = t.image_id;
    target["orig_size"] = py::make_tuple(t.orig_height, t.orig_width);
    target["size"] = py::make_tuple(t.height, t.width);
    target["iscrowd"] = rows(crowd, first, last);
    target["difficult"] = rows(difficult, first, last);
    target["scale"] = py::make_tuple(t.scale_x, t.scale_y);
    target["pad"] = py::make_tuple(t.pad_x, t.pad_y);
    const std::size_t first_plane = g.first_plane[i] / plane;
    if (semantic) {
      target["mask"] = masks[py::int_(first_plane)];
    } else if (!masks.is_none()) {
      target["masks"] = rows(masks, first_plane, g.first_plane[i + 1] / plane);
    }
    out.append(target);
  }
  return out;
}

// Ultralytics' batch: boxes as normalized centre and size, classes and batch indices as floats.
py::dict yolo(const Batch& batch, const Gathered& g, ArrayKind arrays) {
  const float width = static_cast<float>(batch.width());
  const float height = static_cast<float>(batch.height());
  std::vector<float> cxcywh(g.boxes.size());
  for (std::size_t b = 0; b < g.labels.size(); ++b) {
    const float* box = &g.boxes[4 * b];
    cxcywh[4 * b] = (box[0] + box[2]) / 2 / width;
    cxcywh[4 * b + 1] = (box[1] + box[3]) / 2 / height;
    cxcywh[4 * b + 2] = (box[2] - box[0]) / width;
    cxcywh[4 * b + 3] = (box[3] - box[1]) / height;
  }
  const std::vector<float> cls(g.labels.begin(), g.labels.end());
  const std::vector<float> batch_idx(g.image_of.begin(), g.image_of.end());
  py::dict out;
  out["cls"] = make_array(cls, {count(g.labels), 1}, arrays);
  out["bboxes"] = make_array(cxcywh, {count(g.labels), 4}, arrays);
  out["batch_idx"] = make_array(batch_idx, {count(g.labels)}, arrays);
  py::list ori_shape, resized_shape, ratio_pad;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ImageTargets t = batch.targets(i);
    ori_shape.append(py::make_tuple(t.orig_height, t.orig_width));
    resized_shape.append(py::make_tuple(batch.height(), batch.width()));
    ratio_pad.append(
        py::make_tuple(py::make_tuple(t.scale_y, t.scale_x), py::make_tuple(t.pad_x, t.pad_y)));
  }
  out["ori_shape"] = py::tuple(ori_shape);
  out["resized_shape"] = py::tuple(resized_shape);
  out["ratio_pad"] = py::tuple(ratio_pad);
  return out;
}

}  // namespace

py::object targets_to_python(const Batch& batch, const PythonOptions& options, ArrayKind arrays) {
  const Gathered g = gather(batch);
  switch (options.targets) {
    case TargetLayout::kDicts:
      return dicts(batch, g, options, arrays);
    case TargetLayout::kFlat: {
      py::list flat;
      flat.append(make_array(g.boxes, {count(g.labels), 4}, arrays));
      flat.append(make_array(g.labels, {count(g.labels)}, arrays));
      flat.append(make_array(g.image_of, {count(g.labels)}, arrays));
      if (!options.loader.masks.empty()) flat.append(mask_planes(batch, g, arrays));
      if (options.loader.detection.varies()) {
        std::vector<std::int64_t> sizes;
        for (std::size_t i = 0; i < batch.size(); ++i) {
          const ImageTargets t = batch.targets(i);
          sizes.insert(sizes.end(), {t.height, t.width});
        }
        flat.append(make_array(sizes, {static_cast<py::ssize_t>(batch.size()), 2}, arrays));
      }
      return py::tuple(flat);
    }
    case TargetLayout::kYolo:
      return yolo(batch, g, arrays);
  }
  return py::none();
}

}  // namespace feedrate::python
