#include "loader/diagnosis/cache_json.h"

namespace feedrate {

nlohmann::json cache_json(const CacheFigures& c) {
  if (!c.enabled) return {{"enabled", false}};
  return {{"enabled", true},
          {"folder", c.folder},
          {"samples", c.samples},
          {"dataset_samples", c.dataset_samples},
          {"bytes", c.bytes},
          {"source_bytes", c.source_bytes},
          {"bytes_ratio", c.source_bytes > 0
                              ? static_cast<double>(c.bytes) / static_cast<double>(c.source_bytes)
                              : 0.0},
          {"disk_bytes", c.disk_bytes},
          {"hits", c.hits},
          {"misses", c.misses},
          {"hit_rate", c.hit_rate},
          {"fallbacks", c.fallbacks},
          {"transcoded", c.transcoded},
          {"unchanged", c.unchanged},
          {"written_bytes", c.written_bytes},
          {"cpu_s", c.cpu_s},
          {"declined", c.declined},
          {"allowed_per_s", c.allowed_per_s},
          {"stopped", c.stopped},
          {"warnings", c.warnings}};
}

}  // namespace feedrate
