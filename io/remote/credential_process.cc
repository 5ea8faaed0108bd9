#include "io/remote/credential_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/remote/credentials_json.h"

extern char** environ;

namespace feedrate::io {
namespace {

constexpr std::size_t kMaxOutput = 1 << 20;
constexpr std::size_t kMaxErrorText = 512;

// A pipe's two ends, closed when it goes (close-on-exec: other threads' children never get them).
class Pipe {
 public:
  explicit Pipe(const std::string& origin) {
    if (::pipe2(fds_, O_CLOEXEC) != 0) {
      throw std::runtime_error(origin + ": cannot make a pipe: " + std::strerror(errno));
    }
  }
  ~Pipe() {
    close_write();
    ::close(fds_[0]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_write() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// Spawn attributes that put the child in a new process group, its own pid.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    ::posix_spawnattr_init(&attributes_);
    ::posix_spawnattr_setflags(&attributes_, POSIX_SPAWN_SETPGROUP);
    ::posix_spawnattr_setpgroup(&attributes_, 0);
  }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attributes_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const { return &attributes_; }

 private:
  posix_spawnattr_t attributes_;
};

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Reads the child's stdout and stderr until both close or the deadline passes; false on the
// deadline.
bool drain(int out_fd, int err_fd, std::string& out, std::string& err,
           std::chrono::steady_clock::time_point deadline) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buffer[4096];
  while (open > 0) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const auto got = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fds[i].fd = -1;
        --open;
        continue;
      }
      if (sinks[i]->size() <= kMaxOutput) sinks[i]->append(buffer, static_cast<std::size_t>(got));
    }
  }
  return true;
}

std::string stderr_text(std::string err) {
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r' || err.back() == ' ')) {
    err.pop_back();
  }
  if (err.empty()) return {};
  if (err.size() > kMaxErrorText) err = err.substr(0, kMaxErrorText) + "...";
  return " (stderr: " + err + ")";
}

}  // namespace

TimedCredentials run_credential_process(const std::string& command, const std::string& origin,
                                        std::chrono::milliseconds timeout) {
  if (command.empty()) throw std::runtime_error(origin + ": the command is empty");
  Pipe out(origin);
  Pipe err(origin);
  FileActions actions;
  ::posix_spawn_file_actions_adddup2(actions.get(), out.write_end(), STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(actions.get(), err.write_end(), STDERR_FILENO);
  std::string shell = "/bin/sh";
  std::string dash_c = "-c";
  std::string line = command;
  char* argv[] = {shell.data(), dash_c.data(), line.data(), nullptr};
  // The command runs in a process group of its own, so that a timeout kills what it started too
  // (`sleep 30 &`, a helper that keeps the pipes open), not only its shell.
  SpawnAttributes attributes;
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, shell.c_str(), actions.get(), attributes.get(), argv, environ);
  if (spawned != 0) {
    throw std::runtime_error(origin + ": cannot run /bin/sh: " + std::strerror(spawned));
  }
  out.close_write();
  err.close_write();
  std::string output;
  std::string errors;
  const bool finished = drain(out.read_end(), err.read_end(), output, errors,
                              std::chrono::steady_clock::now() + timeout);
  if (!finished) ::kill(-pid, SIGKILL);
  const int status = wait_for(pid);
  if (!finished) {
    throw std::runtime_error(origin + ": the command did not finish within " +
                             std::to_string(timeout.count()) + " ms and was killed");
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error(origin + ": the command was killed by signal " +
                             std::to_string(WTERMSIG(status)) + stderr_text(errors));
  }
  if (WEXITSTATUS(status) != 0) {
    throw std::runtime_error(origin + ": the command exited with status " +
                             std::to_string(WEXITSTATUS(status)) + stderr_text(errors));
  }
  if (output.size() > kMaxOutput) {
    throw std::runtime_error(origin + ": the command printed more than 1 MiB");
  }
  return parse_credentials_json(output, CredentialsJson::kProcess, origin);
}

}  // namespace feedrate::io
