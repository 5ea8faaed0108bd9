// The text form of a TransformSpec: the one parser, used by the command line's --transform,
// the Python module (a string, or the spec it builds from a torchvision Compose) and C++.
//
//   spec  := step ("," step)*
//   step  := name ["(" arg ("," arg)* ")"]
//   arg   := [key "="] value         value: a number, a word, or a/b (a range), a/b/c (RGB)
//
// The first step is the geometry: train (= rrc(SIZE),hflip), eval (= resize(SIZE*256/224),
// center_crop(SIZE)), rrc(size, scale=0.08/1, ratio=0.75/1.3333, interp=bilinear|bicubic), or
// resize(n, interp=...) followed by center_crop(size). Then pixel steps in order: hflip(p=0.5),
// vflip(p=0.5), grayscale(p=0.1), jitter(brightness, contrast, saturation, hue) (x means
// [max(0, 1-x), 1+x], hue [-x, x]; or low/high), ta_wide(bins=31, fill=0), ra(num_ops=2,
// magnitude=9, bins=31, fill=0), aa(policy=imagenet, fill=0). Then normalize(mean=a/b/c,
// std=a/b/c) and erase(p=0.5, scale=0.02/0.33, ratio=0.3/3.3, value=0|random|a/b/c).
// An hflip right after rrc is fused into the resize (torchvision's draw order is kept).
//
// Example: "rrc(176,interp=bilinear),hflip,ta_wide,normalize,erase(0.1)" is the torchvision
// reference's ResNet-50 train recipe. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "decode/transform.h"

namespace feedrate::decode {

// Parses `text` into `spec`; `size` is the output size of train / eval and of an rrc without
// one. Returns an empty string, or what is wrong (naming the step and the argument); validate()
// is applied too.
std::string parse_transform(std::string_view text, int size, TransformSpec& spec);

// The canonical text of `spec`: parse_transform(format_transform(s)) gives `s` back.
std::string format_transform(const TransformSpec& spec);

// The step names parse_transform accepts, for help texts and messages.
const char* transform_step_names();

}  // namespace feedrate::decode
