#include "bench/cli/trace_output.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace feedrate::bench {

void write_chrome_trace(const std::filesystem::path& path, const TraceRecorder& trace) {
  nlohmann::json events = nlohmann::json::array();
  const std::vector<std::string> threads = trace.thread_names();
  for (std::size_t tid = 0; tid < threads.size(); ++tid) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", tid},
                      {"args", {{"name", threads[tid]}}}});
  }
  for (const TraceEvent& e : trace.events()) {
    if (e.phase == 'C') {
      events.push_back({{"name", e.name},
                        {"ph", "C"},
                        {"pid", 1},
                        {"ts", e.start_us},
                        {"args", {{"value", e.value}}}});
    } else {
      events.push_back({{"name", e.name},
                        {"cat", "feedrate"},
                        {"ph", "X"},
                        {"pid", 1},
                        {"tid", e.thread},
                        {"ts", e.start_us},
                        {"dur", e.duration_us},
                        {"args", {{"item", e.value}}}});
    }
  }
  std::ofstream out(path);
  out << nlohmann::json{{"traceEvents", events},
                        {"displayTimeUnit", "ms"},
                        {"otherData", {{"dropped_events", trace.dropped()}}}};
  if (!out) throw std::runtime_error(path.string() + ": cannot write the trace");
}

}  // namespace feedrate::bench
