// feedrate: the command line. `feedrate --help` lists the subcommands.
#include <fmt/core.h>

#include <exception>

#include "bench/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"feedrate: an image data loader for deep-learning training, and its bench"};
  app.set_version_flag("--version", "feedrate " FEEDRATE_VERSION);
  app.require_subcommand(1);
  const feedrate::bench::Command bench = feedrate::bench::add_bench_command(app);
  const feedrate::bench::Command make_dataset = feedrate::bench::add_make_dataset_command(app);
  const feedrate::bench::Command doctor = feedrate::bench::add_doctor_command(app);
  const feedrate::bench::Command tune = feedrate::bench::add_tune_command(app);
  const feedrate::bench::Command plan = feedrate::bench::add_plan_command(app);
  const feedrate::bench::Command pack = feedrate::bench::add_pack_command(app);
  const feedrate::bench::Command index = feedrate::bench::add_index_command(app);
  CLI11_PARSE(app, argc, argv);
  try {
    if (app.got_subcommand("bench")) return bench();
    if (app.got_subcommand("make-dataset")) return make_dataset();
    if (app.got_subcommand("doctor")) return doctor();
    if (app.got_subcommand("tune")) return tune();
    if (app.got_subcommand("plan")) return plan();
    if (app.got_subcommand("pack")) return pack();
    if (app.got_subcommand("index")) return index();
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate: error: {}\n", e.what());
    return 1;
  }
  return 2;
}
