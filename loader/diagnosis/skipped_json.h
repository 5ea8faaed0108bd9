// The samples a run skipped under the skip policy, as JSON: [{index, where, reason}] in the order
// skipped; one rendering for `feedrate bench --json` and the Python Loader.report().
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "feedrate/batch.h"

namespace feedrate {

nlohmann::json skipped_json(const std::vector<SkippedSample>& skipped);

}  // namespace feedrate
