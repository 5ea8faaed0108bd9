// Renders a Report: the verdict and stage table for people, and the `verdict` / `stages`
// objects of `feedrate bench --json`. Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "loader/report.h"

namespace feedrate::bench {

nlohmann::json verdict_json(const Verdict& verdict);
nlohmann::json stages_json(const Report& report);
std::string report_text(const Report& report);

}  // namespace feedrate::bench
