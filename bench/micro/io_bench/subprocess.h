// What feedrate-io-bench needs to run fio: start a program with its output in a log file, find
// an executable on PATH, and read what it wrote.
// Thread-safety: reentrant.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace feedrate::io_bench {

// The whole file as text; empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// `text` without leading and trailing white space.
std::string trim(std::string text);

// Runs `argv` with stdout and stderr appended to `log`. Returns the exit status (128 + the
// signal when killed); throws when the program cannot be started.
int spawn(const std::vector<std::string>& argv, const std::filesystem::path& log);

// `name` as execvp would find it; empty when it is not an executable file.
std::string find_executable(const std::string& name);

// The last non-empty line of `text`, for error messages.
std::string last_line(const std::string& text);

}  // namespace feedrate::io_bench
