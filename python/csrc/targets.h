// Turns a batch's detection targets (Batch::targets) into Python values when the batch is handed
// over, on the consumer's thread, in one of the layouts detection losses take:
//   kDicts  a list of per-image dicts, torchvision's detection target: boxes float32 [N, 4] XYXY
//           in pixels, labels int64 [N], image_id, orig_size (height, width), iscrowd and
//           difficult bool [N], and scale (x, y) and pad (x, y) mapping the source image to the
//           delivered one (a letterbox's ratio_pad); with masks, masks uint8 [N, H, W] (instance
//           masks) or mask uint8 [H, W] (a semantic label map);
//   kFlat   boxes float32 [M, 4] XYXY, labels int64 [M], batch_idx int64 [M] over the batch, and
//           with masks, masks uint8 [M, H, W] (instances) or [B, H, W] (semantic);
//   kYolo   Ultralytics' batch dict but img: cls float32 [M, 1], bboxes float32 [M, 4] normalized
//           cx, cy, w, h, batch_idx float32 [M], ori_shape, resized_shape, ratio_pad.
// A batch's values are copied once into one buffer each, then viewed per image. Thread-safety:
// call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include "feedrate/batch.h"
#include "python/csrc/options.h"

namespace feedrate::python {

// kDicts: a list; kFlat: a tuple (boxes, labels, batch_idx); kYolo: a dict without img (the
// caller's {"img": images, **targets} is Ultralytics' batch).
pybind11::object targets_to_python(const Batch& batch, const PythonOptions& options,
                                   ArrayKind arrays);

}  // namespace feedrate::python
