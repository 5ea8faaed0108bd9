// The subcommands of the `feedrate` command line. Each registers its options on the CLI11 app
// and returns the function that runs it (returning the process exit status).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "feedrate/options.h"

namespace feedrate::bench {

using Command = std::function<int()>;

Command add_bench_command(CLI::App& app);
Command add_make_dataset_command(CLI::App& app);
Command add_doctor_command(CLI::App& app);
Command add_tune_command(CLI::App& app);
Command add_plan_command(CLI::App& app);
Command add_pack_command(CLI::App& app);
Command add_index_command(CLI::App& app);

// Parses the arguments of `feedrate bench` (those after the subcommand's name) into loader
// options, running nothing: source stays empty when no DATASET is given (the command then uses
// its default dataset), and the options are not resolve()d. Throws CLI::ParseError for what
// CLI11 rejects. For the fuzz target and tests.
LoaderOptions parse_bench_options(std::vector<std::string> arguments);

}  // namespace feedrate::bench
