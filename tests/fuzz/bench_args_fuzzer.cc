// Fuzzes the command-line options of `feedrate bench`: the input is split into arguments at
// newlines and parsed as the command would (CLI11 with the real option definitions), then the
// loader options are validated as a Loader would (resolve()). Any input must give options or a
// CLI::ParseError / feedrate::Error; nothing runs and no dataset is opened.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "feedrate/error.h"
#include "feedrate/options.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      arguments.emplace_back();
    } else {
      arguments.back().push_back(static_cast<char>(data[i]));
    }
  }
  if (arguments.back().empty()) arguments.pop_back();
  try {
    feedrate::LoaderOptions options = feedrate::bench::parse_bench_options(arguments);
    if (options.source.empty()) options.source = "default";
    options.rank = 0;  // not from the environment
    options.world_size = 1;
    feedrate::resolve(options);
  } catch (const CLI::ParseError&) {
  } catch (const feedrate::Error&) {
  }
  return 0;
}
