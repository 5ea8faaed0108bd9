#include "bench/micro/decode_bench/end_to_end.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "bench/micro/decode_bench/commands.h"

namespace feedrate::decode_bench {

Row end_to_end(const std::filesystem::path& dir, const std::vector<Image>& images,
               const std::string& tjbench, const std::string& feedrate, int workers,
               const Args& args) {
  Row row{fmt::format("end to end, {} workers", workers),
          "feedrate bench",
          fmt::format("{} x tjbench", workers),
          {},
          {},
          kEndToEndTarget,
          {}};
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    const auto subject = [&] {
      const std::string output = run_command(
          fmt::format("{} bench {} --transform train --workers {} --epochs {} --json",
                      quote(feedrate), quote(dir.string()), workers, args.end_to_end_epochs));
      const std::size_t brace = output.find('{');
      if (brace == std::string::npos) throw std::runtime_error("no JSON from feedrate: " + output);
      const nlohmann::json report = nlohmann::json::parse(output.substr(brace));
      row.subject_runs.push_back(report.at("images_per_s").get<double>());
    };
    const auto reference = [&] {
      std::vector<double> per_image;
      for (const Image& image : images) {
        per_image.push_back(tjbench_rate(tjbench, image, args, workers));
      }
      row.reference_runs.push_back(harmonic(per_image));
    };
    if (repeat % 2 == 0) {
      subject();
      reference();
    } else {
      reference();
      subject();
    }
  }
  return row;
}

}  // namespace feedrate::decode_bench
