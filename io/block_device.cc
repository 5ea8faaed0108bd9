#include "io/block_device.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>
#include <system_error>

namespace feedrate::io {
namespace {

namespace fs = std::filesystem;

// mountinfo escapes spaces and friends as \040-style octal.
std::string unescape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool under(const std::string& path, const std::string& mount) {
  if (mount == "/") return true;
  return path.rfind(mount, 0) == 0 && (path.size() == mount.size() || path[mount.size()] == '/');
}

int read_int(const fs::path& path) {
  std::ifstream in(path);
  int value = -1;
  return in >> value ? value : -1;
}

// The first line of a sysfs attribute without its trailing blanks (models are space-padded).
std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  line.erase(line.find_last_not_of(" \t\r") + 1);
  return line;
}

}  // namespace

BlockDevice block_device_of(const fs::path& path) {
  BlockDevice out;
  std::error_code error;
  const std::string canonical = fs::weakly_canonical(path, error).string();
  // The longest mount point that contains the path; later lines win ties (mounted on top).
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, mount_point;
    if (!(fields >> id >> parent >> devno >> root >> mount_point)) continue;
    mount_point = unescape(mount_point);
    if (!under(canonical, mount_point) || mount_point.size() < out.mount_point.size()) continue;
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    out.mount_point = mount_point;
    out.fs_type.clear();
    out.source.clear();
    tail >> out.fs_type >> out.source;
    out.source = unescape(out.source);
  }
  struct statfs fs_info {};
  if (::statfs(path.c_str(), &fs_info) == 0) {
    out.fs_magic = static_cast<std::uint64_t>(fs_info.f_type);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return out;
  out.numbers = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  if (major(st.st_dev) == 0) return out;  // no block device
  const fs::path real = fs::canonical(fs::path("/sys/dev/block") / out.numbers, error);
  if (error) return out;
  out.device = real.filename().string();
  const fs::path disk = fs::exists(real / "queue", error) ? real : real.parent_path();
  out.rotational = read_int(disk / "queue" / "rotational");
  out.logical_block_bytes = read_int(disk / "queue" / "logical_block_size");
  out.model = read_line(disk / "device" / "model");
  return out;
}

}  // namespace feedrate::io
