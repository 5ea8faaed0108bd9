// The random draws of a detection transform's steps (decode/detection_transform.h), in each
// peer's order and units: torchvision v2's make_params (float32 torch.rand where it draws
// that), Ultralytics' for its steps. Internal to DetectionTransformer. Thread-safety: functions
// of their arguments (the Rng is the caller's).
#pragma once

#include <vector>

#include "decode/detection_transform.h"
#include "decode/random.h"

namespace feedrate::decode {

// Draws `step`'s parameters into `d` for a canvas of width x height holding `boxes` (RandomIoUCrop
// tests its windows against them); a perspective warps to out_width x out_height (the canvas'
// size, or a mosaic's imgsz). Steps without draws leave `d` as it is.
void draw_step(const DetectionStep& step, Rng& rng, const std::vector<float>& boxes, int width,
               int height, int out_width, int out_height, DetectionTransformer::StepDraws& d);

}  // namespace feedrate::decode
