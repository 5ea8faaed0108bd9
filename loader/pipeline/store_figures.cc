#include "loader/pipeline/store_figures.h"

#include <cmath>
#include <string>

namespace feedrate {

StoreFigures store_figures(const ReadAheadRunner& read_ahead) {
  const io::FetchStats stats = read_ahead.stats();
  StoreFigures figures;
  figures.remote = true;
  const std::string& url = read_ahead.first_url();
  figures.scheme = url.substr(0, url.find("://"));
  figures.max_in_flight = static_cast<unsigned>(std::lround(read_ahead.requests_allowed()));
  figures.average_in_flight = stats.average_in_flight;
  figures.peak_in_flight = stats.peak_in_flight;
  figures.requests = stats.requests;
  figures.retries = stats.retries_total();
  figures.failed = stats.failed;
  figures.bytes = stats.bytes;
  figures.first_byte_p50_ms = stats.first_byte_p50_ms;
  figures.first_byte_p99_ms = stats.first_byte_p99_ms;
  figures.bytes_per_s = stats.bytes_per_second;
  figures.bytes_per_s_per_connection = stats.bytes_per_second_per_connection;
  figures.busy_s = stats.busy_seconds;
  for (const io::InFlightBand& band : stats.by_in_flight) {
    if (band.busy_seconds <= 0) continue;
    figures.by_in_flight.push_back({band.in_flight_seconds / band.busy_seconds, band.busy_seconds,
                                    static_cast<double>(band.bytes) / band.busy_seconds});
  }
  return figures;
}

}  // namespace feedrate
