#include "io/block_device.h"

#include <sys/stat.h>
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
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || major(st.st_dev) == 0) return out;  // no block device
  const fs::path sys = fs::path("/sys/dev/block") /
                       (std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev)));
  const fs::path real = fs::canonical(sys, error);
  if (error) return out;
  out.device = real.filename().string();
  // A partition has no queue of its own: its parent disk does.
  out.rotational = read_int(real / "queue" / "rotational");
  if (out.rotational < 0) out.rotational = read_int(real.parent_path() / "queue" / "rotational");
  return out;
}

}  // namespace feedrate::io
