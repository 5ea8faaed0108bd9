// Ultralytics' steps of a detection transform (ultralytics/data/augment.py: LetterBox,
// RandomHSV, RandomPerspective): their draws, in its order, and their work on the image, the
// boxes and the mask planes, with OpenCV's kernels (decode/cv2_kernels.h). Internal to
// DetectionTransformer (decode/detection_transform.h). Thread-safety: functions of their
// arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "decode/box_geometry.h"
#include "decode/cv2_kernels.h"
#include "decode/detection_canvas.h"
#include "decode/detection_transform.h"
#include "decode/random.h"

namespace feedrate::decode {

// RandomHSV: r = uniform(-1, 1, 3) * (hgain, sgain, vgain).
void draw_hsv(const DetectionStep& step, Rng& rng, DetectionTransformer::StepDraws& d);
// RandomPerspective._compute_affine_matrix for an input of width x height (C centres it) and
// an output of out_width x out_height (T translates within it): M = T S R P C, in float32 as
// numpy composes it, and its scale s.
void draw_perspective(const DetectionStep& step, Rng& rng, int width, int height, int out_width,
                      int out_height, DetectionTransformer::StepDraws& d);

// LetterBox(auto=False): cv2.resize (INTER_LINEAR) to the unpadded size, then the border;
// masks by nearest sampling. Returns its letterbox_geometry, which moves the caller's boxes.
Geometry letterbox_image(const DetectionStep& step, ImageCanvas& image, MaskCanvas& masks,
                         std::vector<std::uint8_t>& work);
// RandomHSV's tables through cv2's HSV.
void hsv_image(const DetectionTransformer::StepDraws& d, ImageCanvas& image);
// RandomPerspective: warps `source` (fill 114) to out_width x out_height into `image` and the
// masks (nearest; at the source's size), moves the boxes by their corners, clips them to the
// output and returns the indices box_candidates keeps (area_thr 0.1).
std::vector<std::uint32_t> perspective_step(const DetectionStep& step,
                                            const DetectionTransformer::StepDraws& d,
                                            const cv2::WarpSource& source, int out_width,
                                            int out_height, ImageCanvas& image, MaskCanvas& masks,
                                            std::vector<float>& boxes,
                                            std::vector<std::uint8_t>& work);

}  // namespace feedrate::decode
