#include "loader/diagnosis/store_json.h"

namespace feedrate {

nlohmann::json store_json(const StoreFigures& s) {
  nlohmann::json bands = nlohmann::json::array();
  for (const StoreBand& band : s.by_in_flight) {
    bands.push_back({{"in_flight", band.in_flight},
                     {"busy_s", band.busy_s},
                     {"bytes_per_s", band.bytes_per_s}});
  }
  return {{"scheme", s.scheme},
          {"max_in_flight", s.max_in_flight},
          {"average_in_flight", s.average_in_flight},
          {"peak_in_flight", s.peak_in_flight},
          {"requests", s.requests},
          {"retries", s.retries},
          {"failed", s.failed},
          {"bytes", s.bytes},
          {"first_byte_p50_ms", s.first_byte_p50_ms},
          {"first_byte_p99_ms", s.first_byte_p99_ms},
          {"bytes_per_s", s.bytes_per_s},
          {"bytes_per_s_per_connection", s.bytes_per_s_per_connection},
          {"busy_s", s.busy_s},
          {"by_in_flight", std::move(bands)}};
}

}  // namespace feedrate
