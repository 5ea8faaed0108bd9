#include "loader/diagnosis/skipped_json.h"

namespace feedrate {

nlohmann::json skipped_json(const std::vector<SkippedSample>& skipped) {
  nlohmann::json samples = nlohmann::json::array();
  for (const SkippedSample& s : skipped) {
    samples.push_back({{"index", s.index}, {"where", s.where}, {"reason", s.reason}});
  }
  return samples;
}

}  // namespace feedrate
