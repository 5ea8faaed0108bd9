#include "bench/micro/nvjpeg_probe/isolation.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace feedrate::probe {
namespace {

// A temporary file for the part's JSON, removed when this goes out of scope.
class TempFile {
 public:
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/nvjpeg-part.XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) throw std::runtime_error(path_ + ": " + std::strerror(errno));
    ::close(fd);
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

std::string self_path() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

PartOutcome run_part(const std::string& program, std::vector<std::string> args, double limit_s) {
  const TempFile json;
  args.insert(args.begin(), program);
  args.push_back("--part-json");
  args.push_back(json.path());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  PartOutcome outcome;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ);
  if (spawned != 0) throw std::runtime_error(program + ": " + std::strerror(spawned));
  // A killed part may take a while to exit (the driver tears its GPU context down); one still
  // there after this is left behind, so that the probe goes on.
  constexpr double kExitSeconds = 10;
  int status = 0;
  bool exited = false;
  while (!exited) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    exited = done == pid;
    if (done < 0 && errno != EINTR) {
      const std::string error = std::strerror(errno);
      ::kill(pid, SIGKILL);
      throw std::runtime_error("waitpid: " + error);
    }
    if (!exited && !outcome.hung && elapsed() > limit_s) {
      ::kill(pid, SIGKILL);
      outcome.hung = true;
    } else if (!exited && outcome.hung && elapsed() > limit_s + kExitSeconds) {
      break;
    }
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  outcome.seconds = elapsed();
  std::ifstream in(json.path());
  outcome.figures = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (outcome.figures.is_discarded()) outcome.figures = nullptr;
  if (outcome.hung) {
    outcome.failure = "hung: killed after " + std::to_string(static_cast<int>(limit_s)) + " s";
    if (!exited) {
      outcome.failure += ", still not gone " + std::to_string(static_cast<int>(kExitSeconds)) +
                         " s later (left behind)";
    }
  } else if (WIFSIGNALED(status)) {
    outcome.failure = std::string("crashed: ") + ::strsignal(WTERMSIG(status));
  } else if (WEXITSTATUS(status) != 0) {
    outcome.failure = "exit status " + std::to_string(WEXITSTATUS(status));
  } else if (outcome.figures.is_null()) {
    outcome.failure = "wrote no JSON";
  }
  return outcome;
}

}  // namespace feedrate::probe
