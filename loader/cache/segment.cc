#include "loader/cache/segment.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace feedrate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "feedrate-cache-segment";
constexpr int kVersion = 1;

std::error_code last_error() {
  return {errno, std::generic_category()};
}

// Whether a writer still holds the lock on `data` (false when the file is gone).
bool writer_alive(const fs::path& data) {
  const int fd = ::open(data.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return locked;
}

}  // namespace

std::uint64_t entry_checksum(std::span<const std::uint8_t> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::error_code write_all(int fd, const void* data, std::size_t size) {
  const auto* at = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, at, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return last_error();
    }
    at += written;
    size -= static_cast<std::size_t>(written);
  }
  return {};
}

SegmentWriter::SegmentWriter(const fs::path& folder, std::string name, SegmentWriteFn write,
                             std::error_code& error)
    : folder_(folder), name_(std::move(name)), write_(write ? std::move(write) : write_all) {
  const fs::path tmp = folder_ / (name_ + ".dat.tmp");
  fd_ = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = last_error();
    return;
  }
  if (::flock(fd_, LOCK_EX) != 0) {
    error = last_error();
    discard();
  }
}

SegmentWriter::~SegmentWriter() {
  discard();
}

std::error_code SegmentWriter::append(std::uint32_t sample, CacheEntryKind kind,
                                      std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return std::make_error_code(std::errc::bad_file_descriptor);
  if (const std::error_code error = write_(fd_, bytes.data(), bytes.size())) return error;
  entries_.push_back(
      {sample, bytes_, static_cast<std::uint32_t>(bytes.size()), kind, entry_checksum(bytes)});
  bytes_ += bytes.size();
  return {};
}

std::error_code SegmentWriter::publish() {
  if (fd_ < 0) return std::make_error_code(std::errc::bad_file_descriptor);
  nlohmann::json entries = nlohmann::json::array();
  for (const SegmentEntry& e : entries_) {
    entries.push_back({e.sample, e.offset, e.size, static_cast<int>(e.kind), e.checksum});
  }
  const nlohmann::json index = {{"format", kFormat},
                                {"version", kVersion},
                                {"data", name_ + ".dat"},
                                {"bytes", bytes_},
                                {"entries", std::move(entries)}};
  const std::string text = index.dump();
  const fs::path index_tmp = folder_ / (name_ + ".idx.tmp");
  std::error_code error;
  const int index_fd = ::open(index_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (index_fd < 0) {
    error = last_error();
  } else {
    error = write_(index_fd, text.data(), text.size());
    if (::close(index_fd) != 0 && !error) error = last_error();
  }
  if (error) {
    ::unlink(index_tmp.c_str());
    discard();
    return error;
  }
  // Renamed while the data file's lock is held, so that no cleanup takes it for an orphan.
  const fs::path data_tmp = folder_ / (name_ + ".dat.tmp");
  const fs::path data_final = folder_ / (name_ + ".dat");
  if (::rename(data_tmp.c_str(), data_final.c_str()) != 0 ||
      ::rename(index_tmp.c_str(), (folder_ / (name_ + ".idx")).c_str()) != 0) {
    error = last_error();
    ::unlink(index_tmp.c_str());
    ::unlink(data_tmp.c_str());
    ::unlink(data_final.c_str());
  }
  // A delayed write error would show in close(); the entries' checksums catch what it spoils.
  ::close(fd_);
  fd_ = -1;
  return error;
}

void SegmentWriter::discard() {
  if (fd_ < 0) return;
  ::unlink((folder_ / (name_ + ".dat.tmp")).c_str());
  ::close(fd_);
  fd_ = -1;
}

std::string read_segment_index(const fs::path& index_file, std::uint64_t samples,
                               SegmentIndex& index) {
  const std::string where = index_file.string() + ": ";
  std::ifstream file(index_file);
  if (!file) return where + "cannot open";
  const nlohmann::json json = nlohmann::json::parse(file, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return where + "not JSON (cut short?)";
  if (json.value("format", "") != kFormat || json.value("version", 0) != kVersion) {
    return where + "not a version " + std::to_string(kVersion) + " cache segment index";
  }
  const nlohmann::json& data = json["data"];
  const nlohmann::json& bytes = json["bytes"];
  const nlohmann::json& entries = json["entries"];
  if (!data.is_string() || !bytes.is_number_unsigned() || !entries.is_array()) {
    return where + "lacks data, bytes or entries";
  }
  const std::string data_name = data.get<std::string>();
  if (data_name.find('/') != std::string::npos) return where + "names a data file elsewhere";
  index.data = index_file.parent_path() / data_name;
  index.bytes = bytes.get<std::uint64_t>();
  std::error_code error;
  const std::uint64_t on_disk = fs::file_size(index.data, error);
  if (error) return index.data.string() + ": " + error.message();
  if (on_disk != index.bytes) {
    return index.data.string() + ": " + std::to_string(on_disk) + " bytes where " +
           index_file.string() + " records " + std::to_string(index.bytes) +
           " (cut short or altered)";
  }
  index.entries.clear();
  index.entries.reserve(entries.size());
  for (const nlohmann::json& e : entries) {
    if (!e.is_array() || e.size() != 5 || !e[0].is_number_unsigned() ||
        !e[1].is_number_unsigned() || !e[2].is_number_unsigned() || !e[3].is_number_unsigned() ||
        !e[4].is_number_unsigned()) {
      return where + "malformed entry";
    }
    SegmentEntry entry;
    const std::uint64_t sample = e[0].get<std::uint64_t>();
    entry.offset = e[1].get<std::uint64_t>();
    const std::uint64_t size = e[2].get<std::uint64_t>();
    const std::uint64_t kind = e[3].get<std::uint64_t>();
    entry.checksum = e[4].get<std::uint64_t>();
    if (sample >= samples || size > UINT32_MAX || kind > 1 || entry.offset > index.bytes ||
        size > index.bytes - entry.offset) {
      return where + "entry for sample " + std::to_string(sample) + " lies outside the data";
    }
    entry.sample = static_cast<std::uint32_t>(sample);
    entry.size = static_cast<std::uint32_t>(size);
    entry.kind = static_cast<CacheEntryKind>(kind);
    index.entries.push_back(entry);
  }
  return {};
}

void cache_warning(std::string text, std::vector<std::string>& warnings) {
  std::fprintf(stderr, "feedrate: pack cache: %s\n", text.c_str());
  if (warnings.size() < kMaxCacheWarnings) warnings.push_back(std::move(text));
}

std::size_t remove_stale_files(const fs::path& folder) {
  // Each segment NAME by the files it has.
  struct Files {
    bool data = false, data_tmp = false, index = false, index_tmp = false;
  };
  std::map<std::string, Files> segments;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    const std::string file = entry.path().filename().string();
    const auto name_of = [&](std::string_view suffix) {
      return file.ends_with(suffix) ? file.substr(0, file.size() - suffix.size()) : std::string();
    };
    if (std::string name = name_of(".dat.tmp"); !name.empty()) segments[name].data_tmp = true;
    if (std::string name = name_of(".idx.tmp"); !name.empty()) segments[name].index_tmp = true;
    if (std::string name = name_of(".dat"); !name.empty()) segments[name].data = true;
    if (std::string name = name_of(".idx"); !name.empty()) segments[name].index = true;
  }
  std::size_t removed = 0;
  const auto remove = [&](const std::string& file) {
    if (::unlink((folder / file).c_str()) == 0) ++removed;
  };
  for (const auto& [name, files] : segments) {
    const bool unfinished = files.data_tmp || files.index_tmp || (files.data && !files.index);
    if (!unfinished) continue;
    if (writer_alive(folder / (name + (files.data_tmp ? ".dat.tmp" : ".dat")))) continue;
    if (files.data_tmp) remove(name + ".dat.tmp");
    if (files.index_tmp) remove(name + ".idx.tmp");
    // Checked again: the listing may predate the writer's last rename.
    if (files.data && !files.index && !fs::exists(folder / (name + ".idx"), error)) {
      remove(name + ".dat");
    }
  }
  return removed;
}

}  // namespace feedrate
