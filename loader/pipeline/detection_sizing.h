// What a detection dataset's transform costs in memory and in buffer size (internal to
// loader/), for the Pipeline's memory budget and slot sizes: figures of the options and the
// dataset's annotation table, computed once when the loader starts.
// Thread-safety: pure functions.
#pragma once

#include "feedrate/dataset.h"
#include "feedrate/options.h"

namespace feedrate {

// What a detection sample holds besides its decoded image, per sample of a slot and per
// worker. In the slot: its mask planes of size x size bytes (instance masks: one an
// annotation, at the dataset's mean; a label map: one), held twice when the batch decodes in
// two phases (Slot::loaded keeps them at the image's own size), and the first phase's image.
// Per worker: the instance masks rasterized at the source image's size (the largest the
// annotations state; YOLO states none). Zero for a dataset without annotations.
struct DetectionBytes {
  double per_sample = 0;
  double per_worker = 0;
};
DetectionBytes detection_bytes(const LoaderOptions& options, const Dataset& dataset);

// The batch buffers' size for a detection transform whose size varies without a bound from
// its steps (a flip alone: the torchvision reference's default policy, which leaves the resize
// to the model): the steps applied to the largest image the annotations state, rounded up as a
// batch's size is (padded_size). Throws feedrate::Error when the annotations state no sizes
// (YOLO) or the steps stay unbounded even so (a resize of the shorter side without max_size).
int detection_buffer_size(const LoaderOptions& options, const Dataset& dataset);

}  // namespace feedrate
