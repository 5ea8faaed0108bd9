// The live progress line of a running loader: one text for `feedrate bench` and the Python
// Loader's progress=True, each drawing it in place on its stderr at most every
// kProgressRedrawInterval:
//   epoch 0: 12/16 batches, 742 images/s, 31 MB/s, read[#    ] decode[#####] copy[     ],
//   bottleneck cpu
// A front-end header; the line is for people, its wording may change between releases.
// Thread-safety: a pure function.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "feedrate/report.h"

namespace feedrate {

inline constexpr std::chrono::milliseconds kProgressRedrawInterval{500};

// `done` of `total` `unit` ("images", "batches") of epoch `epoch`, with `report`'s rates, each
// stage's utilisation as a five-cell bar and the current bottleneck.
std::string progress_line(std::uint64_t epoch, std::uint64_t done, std::uint64_t total,
                          std::string_view unit, const Report& report);

}  // namespace feedrate
