#include "bench/micro/decode_bench/commands.h"

#include <fmt/core.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace feedrate::decode_bench {

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

Command::~Command() {
  if (pipe_ != nullptr) ::pclose(pipe_);
}

std::string Command::finish() {
  std::string output;
  std::array<char, 4096> chunk;
  while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe_)) {
    output.append(chunk.data(), n);
  }
  const int status = ::pclose(std::exchange(pipe_, nullptr));
  if (status != 0) {
    throw std::runtime_error(fmt::format("'{}' failed (status {}): {}", command_, status, output));
  }
  return output;
}

std::string run_command(const std::string& command) {
  return Command(command).finish();
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

double tjbench_rate(const std::string& tjbench, const Image& image, const Args& args, int copies) {
  std::vector<std::unique_ptr<Command>> running;
  for (int i = 0; i < copies; ++i) {
    running.push_back(std::make_unique<Command>(
        fmt::format("{} {} {} -benchtime {} -warmup {}", quote(tjbench), quote(image.path.string()),
                    kTjbenchOptions, args.seconds, args.warmup)));
  }
  double total = 0;
  for (const std::unique_ptr<Command>& command : running) {
    const std::string output = command->finish();
    const std::string key = "Frame rate:";
    const std::size_t at = output.find(key);
    if (at == std::string::npos) {
      throw std::runtime_error("no frame rate in tjbench output: " + output);
    }
    total += std::stod(output.substr(at + key.size()));
  }
  return total;
}

}  // namespace feedrate::decode_bench
