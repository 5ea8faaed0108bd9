#include "loader/pipeline/detection_sizing.h"

#include <algorithm>
#include <string>

#include "decode/detection_transform.h"
#include "feedrate/error.h"
#include "loader/dataset/annotations/annotation_table.h"

namespace feedrate {

DetectionBytes detection_bytes(const LoaderOptions& options, const Dataset& dataset) {
  const annotations::AnnotationTable* table = dataset.annotations();
  if (table == nullptr) return {};
  const double plane = static_cast<double>(options.transform.size) * options.transform.size;
  const bool two_phase = options.detection.two_phase();
  double planes = 0;
  double largest = 0;  // pixels of the largest source image the annotations state
  if (options.masks == kInstanceMasks && !table->images.empty()) {
    planes = static_cast<double>(table->annotation_count()) / table->images.size();
    for (const annotations::ImageRecord& image : table->images) {
      largest = std::max(largest, static_cast<double>(image.width) * image.height);
    }
  } else if (!options.masks.empty()) {
    planes = 1;
  }
  // A mosaic's region holds four images' boxes, its load the planes at the loaded size, and a
  // worker the 2s x 2s canvas of planes (four times a plane of the output's s x s).
  const double mosaic = options.detection.mosaic() ? 4 : 1;
  return {planes * plane * (two_phase ? mosaic + 1 : 1) + (two_phase ? plane * 3 : 0),
          planes * largest + (mosaic > 1 ? mosaic * planes * 4 * plane : 0)};
}

int detection_buffer_size(const LoaderOptions& options, const Dataset& dataset) {
  int width = 0, height = 0;
  bool stated = dataset.annotations() != nullptr;
  if (stated) {
    for (const annotations::ImageRecord& image : dataset.annotations()->images) {
      stated = stated && image.width > 0 && image.height > 0;
      width = std::max(width, image.width);
      height = std::max(height, image.height);
    }
  }
  const decode::StepsSize bound = decode::steps_size(options.detection.steps, width, height);
  if (!stated || !bound.bounded) {
    throw Error(std::string("option transform: the size after ") + bound.unknown_after +
                " varies without a bound" +
                (stated ? "" : " (the annotations do not state every image's size)") +
                ", and a batch's buffers need one: end the steps with resize(h,w), rrc, "
                "center_crop or letterbox for one size, or with resize(S,max_size=M) or "
                "shortest(...,max_size=M) for sizes that vary");
  }
  return padded_size(std::max(bound.max_width, bound.max_height));
}

}  // namespace feedrate
