// feedrate-decode-bench's report: the environment it ran in (the heading, printed before the
// measurements start), and the measurements' rows and DCT scale costs, as a table or as one
// JSON object.
// Thread-safety: reentrant.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/micro/decode_bench/images.h"
#include "bench/micro/decode_bench/scale_costs.h"
#include "bench/micro/decode_bench/settings.h"
#include "bench/micro/decode_bench/timing.h"
#include "loader/host/system_info.h"

namespace feedrate::decode_bench {

// The machine, the build, the libraries, the images and the load average now.
nlohmann::ordered_json environment(const Args& args, const std::filesystem::path& dir,
                                   const std::vector<Image>& images, const CpuInfo& cpu);

// The heading of the text report: the environment, one line each.
void print_heading(const nlohmann::ordered_json& env);

void print_json(const nlohmann::ordered_json& env, const std::vector<Row>& rows,
                const std::vector<ScaleCost>& scales);

// `first`: the first image, whose size the scale table's resize output follows.
void print_text(const nlohmann::ordered_json& env, const std::vector<Row>& rows,
                const std::vector<ScaleCost>& scales, const Image& first);

}  // namespace feedrate::decode_bench
