// The projection shared by the verdict's advice (loader/verdict.h) and `feedrate plan`
// (bench/instance_model.h): how many images/s a number of cores or a disk delivers for a run's
// measured per-image costs. One decode worker per core; a disk delivers
// min(MB/s / bytes_per_image, IOPS / reads_per_image, queue_depth / latency / reads_per_image).
// Thread-safety: pure functions.
#pragma once

#include "io/throttle.h"

namespace feedrate {

struct ImageCosts {
  double cpu_ms_per_image = 0;  // decode CPU
  double bytes_per_image = 0;   // encoded bytes read
  double reads_per_image = 0;   // read operations
  unsigned queue_depth = 1;     // reads in flight at most
};

// Images/s `cores` decode workers deliver (infinity when decoding costs nothing measurable).
double cpu_images_per_s(const ImageCosts& costs, double cores);

// Images/s a disk delivers for these costs (infinity when not limited).
double disk_images_per_s(const ImageCosts& costs, const io::ThrottleSpec& disk);

}  // namespace feedrate
