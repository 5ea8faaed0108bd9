// The text form of a DetectionSpec (feedrate/decode_spec.h), with the tokenizer of the
// classification transforms' (decode/step_text.h):
//
//   spec   := item ("," item)*
//   item   := recipe | step
//   recipe := ssd ["(" SIZE ")"]     photometric, zoom_out(fill=123/117/104), iou_crop, hflip,
//                                    resize(SIZE,SIZE), sanitize; SIZE 300 by default (the
//                                    fill is torchvision's SSD reference's ImageNet mean)
//           | yolo ["(" SIZE ["," mosaic=1] ")"]
//                                    Ultralytics' training pipeline (v8_transforms):
//                                    mosaic(SIZE), perspective, hsv, hflip; SIZE 640. The
//                                    perspective after the mosaic warps its 2*SIZE canvas
//                                    back to SIZE x SIZE. mosaic=0 (its close_mosaic epochs):
//                                    letterbox(SIZE), perspective, hsv, hflip
//   step   := photometric(brightness=0.875/1.125, contrast=0.5/1.5, saturation=0.5/1.5,
//                         hue=-0.05/0.05, p=0.5)
//           | zoom_out(fill=0, side_range=1/4, p=0.5)
//           | iou_crop(min_scale=0.3, max_scale=1, min_aspect_ratio=0.5, max_aspect_ratio=2,
//                      options=0/0.1/0.3/0.5/0.7/0.9/1, trials=40)
//           | hflip(p=0.5) | vflip(p=0.5)
//           | resize(H, W, interp=bilinear)
//           | resize(S, max_size=0, interp=bilinear)   (S: the shorter side; a longer side above
//                                                       max_size > 0 becomes max_size)
//           | shortest(S1/S2/..., max_size=0, interp=bilinear)   (RandomShortestSize: the shorter
//                                                       side one of the S drawn, the longer
//                                                       at most max_size)
//           | rrc(H, W, scale=0.08/1, ratio=0.75/1.3333, interp=bilinear) | rrc(S)   (S x S)
//           | center_crop(H, W) | center_crop(S)
//           | pad(LEFT, TOP, RIGHT, BOTTOM, fill=0) | pad(N)   (N on every side)
//           | clamp | sanitize(min_size=1, min_area=1)
//           | letterbox(H, W, scaleup=1, center=1, fill=114) | letterbox(S)
//           | hsv(h=0.015, s=0.7, v=0.4)
//           | perspective(degrees=0, translate=0.1, scale=0.5, shear=0, perspective=0)
//           | mosaic(SIZE)   (Ultralytics' 4-image Mosaic, imgsz SIZE: first, once; a 2*SIZE
//                             square, which the first perspective after it makes SIZE x SIZE)
//           | normalize(mean=0.485/0.456/0.406, std=0.229/0.224/0.225)   (last, once)
// Arguments by position in the order shown, or by keyword; a range is low/high, a fill one
// value or r/g/b. spec.size is the size the steps end at (validate() refuses steps that do not
// end at a square), or 0 when they end within a bound (a resize(S) or shortest with max_size,
// then steps that do not enlarge), so that a batch is padded to its largest image. Example:
// "ssd(512)"; "photometric,zoom_out(fill=123/117/104),iou_crop, hflip,resize(300,300),sanitize" is
// "ssd". Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "feedrate/decode_spec.h"

namespace feedrate::decode {

// Parses `text` into `out`. Returns an empty string, or what is wrong (naming the step and the
// argument, after the text); validate() is applied too. `out` is left as it was on an error.
std::string parse_detection_transform(std::string_view text, DetectionSpec& out);

// The canonical text of `spec`, every parameter spelled out:
// parse_detection_transform(format_detection_transform(s)) gives `s` back.
std::string format_detection_transform(const DetectionSpec& spec);

}  // namespace feedrate::decode
