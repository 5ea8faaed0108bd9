// The subcommands of the `feedrate` command line. Each registers its options on the CLI11 app
// and returns the function that runs it (returning the process exit status).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace feedrate::bench {

using Command = std::function<int()>;

Command add_bench_command(CLI::App& app);
Command add_make_dataset_command(CLI::App& app);
Command add_doctor_command(CLI::App& app);
Command add_tune_command(CLI::App& app);
Command add_plan_command(CLI::App& app);

}  // namespace feedrate::bench
