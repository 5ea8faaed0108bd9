// Runs the feedrate command line as a user does, for the CLI suites: the binary's path comes
// from CMake (FEEDRATE_CLI). Thread-safety: single-threaded test code.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace feedrate::testing {

struct CliResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

inline CliResult run_cli(const std::string& arguments, const std::string& environment = "") {
  CliResult result;
  const std::string command = environment + " " FEEDRATE_CLI " " + arguments + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline nlohmann::json json_of(const CliResult& result) {
  // --json prints one object on stdout; anything before the first brace is stderr chatter.
  const auto brace = result.output.find('{');
  EXPECT_NE(brace, std::string::npos) << result.output;
  return nlohmann::json::parse(result.output.substr(brace));
}

}  // namespace feedrate::testing
