#include "loader/host/cgroup.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// `absolute` ("/proc/self/cgroup") below `root`.
fs::path under(const fs::path& root, const std::string& absolute) {
  return root / fs::path(absolute).relative_path();
}

bool has_item(const std::string& list, const std::string& item) {
  return ("," + list + ",").find("," + item + ",") != std::string::npos;
}

struct Mount {
  std::string cgroup_root;  // the cgroup the mount point shows
  std::string mount_point;
};

// The mount of the v1 hierarchy carrying `controller`, or of the v2 hierarchy (`controller`
// empty). Lines: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER".
std::optional<Mount> find_mount(const fs::path& root, const std::string& controller) {
  std::ifstream in(under(root, "/proc/self/mountinfo"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, cgroup_root, mount_point, word;
    if (!(fields >> id >> parent >> device >> cgroup_root >> mount_point)) continue;
    while (fields >> word && word != "-") {
    }
    std::string type, source, super;
    if (!(fields >> type >> source >> super)) continue;
    const bool match =
        controller.empty() ? type == "cgroup2" : type == "cgroup" && has_item(super, controller);
    if (match) return Mount{cgroup_root, mount_point};
  }
  return std::nullopt;
}

// The process's cgroup path in the v1 hierarchy of `controller`, or in v2 (`controller` empty).
std::optional<std::string> own_path(const fs::path& root, const std::string& controller) {
  std::ifstream in(under(root, "/proc/self/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const bool match = controller.empty() ? line.compare(0, first, "0") == 0 && controllers.empty()
                                          : has_item(controllers, controller);
    if (match) return line.substr(second + 1);
  }
  return std::nullopt;
}

std::optional<CgroupDirs> resolve(const fs::path& root, const std::string& controller,
                                  int version) {
  const std::optional<Mount> mount = find_mount(root, version == 2 ? "" : controller);
  const std::optional<std::string> path = own_path(root, version == 2 ? "" : controller);
  if (!mount || !path) return std::nullopt;
  // The part of the process's path below the mount's root; a path outside it (another cgroup
  // namespace) leaves the mount point itself.
  std::string relative;
  if (mount->cgroup_root == "/") {
    relative = *path;
  } else if (path->compare(0, mount->cgroup_root.size(), mount->cgroup_root) == 0 &&
             (path->size() == mount->cgroup_root.size() ||
              (*path)[mount->cgroup_root.size()] == '/')) {
    relative = path->substr(mount->cgroup_root.size());
  }
  const fs::path top = under(root, mount->mount_point);
  CgroupDirs result;
  result.version = version;
  fs::path below = fs::path(relative).relative_path().lexically_normal();
  for (;;) {
    result.dirs.push_back(below.empty() ? top : top / below);
    if (below.empty()) break;
    below = below.parent_path();
  }
  return result;
}

// The first line of a file, or nullopt.
std::optional<std::string> first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return line;
}

std::optional<double> number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    return used > 0 ? std::optional<double>(value) : std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
}

// The smallest quota over the directories, as cores; 0 when none is set.
double smallest(const std::vector<double>& values) {
  const auto it = std::min_element(values.begin(), values.end());
  return it == values.end() ? 0 : *it;
}

}  // namespace

CgroupDirs cgroup_dirs(const std::string& controller, const fs::path& root) {
  if (auto v1 = resolve(root, controller, 1)) return *v1;
  if (auto v2 = resolve(root, controller, 2)) return *v2;
  return {};
}

double cgroup_cpu_quota_cores(const fs::path& root) {
  const CgroupDirs cgroup = cgroup_dirs("cpu", root);
  std::vector<double> quotas;
  for (const fs::path& dir : cgroup.dirs) {
    if (cgroup.version == 2) {
      // "max 100000" (no quota) or "200000 100000".
      const std::optional<std::string> line = first_line(dir / "cpu.max");
      if (!line) continue;
      std::istringstream words(*line);
      std::string quota, period;
      if (!(words >> quota >> period) || quota == "max") continue;
      const auto q = number(quota), p = number(period);
      if (q && p && *q > 0 && *p > 0) quotas.push_back(*q / *p);
    } else {
      const auto q = first_line(dir / "cpu.cfs_quota_us"),
                 p = first_line(dir / "cpu.cfs_period_us");
      if (!q || !p) continue;
      const auto quota = number(*q), period = number(*p);
      if (quota && period && *quota > 0 && *period > 0) quotas.push_back(*quota / *period);
    }
  }
  return smallest(quotas);
}

CgroupMemory cgroup_memory_limit(const fs::path& root) {
  const CgroupDirs cgroup = cgroup_dirs("memory", root);
  CgroupMemory memory;
  memory.version = cgroup.version;
  const char* file = cgroup.version == 2 ? "memory.max" : "memory.limit_in_bytes";
  std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  for (const fs::path& dir : cgroup.dirs) {
    const std::optional<std::string> line = first_line(dir / file);
    if (!line || line->rfind("max", 0) == 0) continue;
    if (const std::optional<double> value = number(*line); value && *value >= 0) {
      limit = std::min(limit, static_cast<std::uint64_t>(std::min(*value, 1.8e19)));
    }
  }
  if (limit != std::numeric_limits<std::uint64_t>::max()) memory.limit_bytes = limit;
  return memory;
}

}  // namespace feedrate
