// The programs feedrate-decode-bench runs beside itself (tjbench, `feedrate bench`, dpkg-query)
// through a shell, and the machine's load average for the report.
// Thread-safety: reentrant; a Command belongs to one thread.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "bench/micro/decode_bench/images.h"
#include "bench/micro/decode_bench/settings.h"

namespace feedrate::decode_bench {

// `text` quoted for the shell.
std::string quote(const std::string& text);

// A shell command running with its stdout and stderr piped to us; finish() waits for it and
// returns the output, throwing when it failed. Several may run at once.
class Command {
 public:
  explicit Command(std::string command)
      : command_(std::move(command)), pipe_(::popen((command_ + " 2>&1").c_str(), "r")) {
    if (pipe_ == nullptr) throw std::runtime_error("cannot run: " + command_);
  }
  ~Command();
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  std::string finish();

 private:
  std::string command_;
  FILE* pipe_;
};

// Runs `command` to its end; its output, or std::runtime_error when it failed.
std::string run_command(const std::string& command);

// /proc/loadavg's three figures ("0.52 0.48 0.40").
std::string load_average();

// tjbench's decompression frame rate for one file ("Frame rate: N fps"), summed over
// `copies` tjbench processes running at once.
double tjbench_rate(const std::string& tjbench, const Image& image, const Args& args,
                    int copies = 1);

}  // namespace feedrate::decode_bench
