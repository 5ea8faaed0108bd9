#include "io/tar_index.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

#include "io/file.h"

namespace feedrate::io {
namespace {

constexpr std::uint64_t kBlock = 512;
using Block = std::array<unsigned char, kBlock>;

[[noreturn]] void fail(const std::filesystem::path& path, std::uint64_t offset,
                       const std::string& what) {
  throw TarError(path.string() + ": malformed tar at byte " + std::to_string(offset) + ": " + what);
}

std::string_view field(const Block& block, std::size_t at, std::size_t length) {
  const auto* begin = reinterpret_cast<const char*>(block.data() + at);
  const auto* end = std::find(begin, begin + length, '\0');
  return {begin, static_cast<std::size_t>(end - begin)};
}

// Numeric header fields are octal text, or base-256 (GNU) when the top bit of the first byte
// is set. Returns false on garbage or overflow.
bool parse_number(const Block& block, std::size_t at, std::size_t length, std::uint64_t& value) {
  value = 0;
  if (block[at] & 0x80) {
    if (block[at] & 0x40) return false;  // negative
    value = block[at] & 0x3f;
    for (std::size_t i = at + 1; i < at + length; ++i) {
      if (value >> 56) return false;
      value = (value << 8) | block[i];
    }
    return true;
  }
  std::size_t i = at;
  const std::size_t end = at + length;
  while (i < end && block[i] == ' ') ++i;
  bool any = false;
  for (; i < end && block[i] >= '0' && block[i] <= '7'; ++i) {
    if (value >> 61) return false;
    value = value * 8 + (block[i] - '0');
    any = true;
  }
  for (; i < end; ++i) {
    if (block[i] != ' ' && block[i] != '\0') return false;
  }
  return any;
}

bool checksum_ok(const Block& block) {
  std::uint64_t stored = 0;
  if (!parse_number(block, 148, 8, stored)) return false;
  std::uint64_t unsigned_sum = 0;
  std::int64_t signed_sum = 0;  // some historic writers summed signed chars
  for (std::size_t i = 0; i < kBlock; ++i) {
    const unsigned char byte = (i >= 148 && i < 156) ? ' ' : block[i];
    unsigned_sum += byte;
    signed_sum += static_cast<signed char>(byte);
  }
  return stored == unsigned_sum || static_cast<std::int64_t>(stored) == signed_sum;
}

bool is_zero(const Block& block) {
  return std::all_of(block.begin(), block.end(), [](unsigned char b) { return b == 0; });
}

bool unsafe_name(std::string_view name) {
  if (name.empty() || name.front() == '/') return true;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = std::min(name.find('/', start), name.size());
    if (name.substr(start, slash - start) == "..") return true;
    start = slash + 1;
  }
  return false;
}

// Parses pax extended records ("<len> <key>=<value>\n") for path and size overrides.
void parse_pax(const std::string& records, const std::filesystem::path& path, std::uint64_t offset,
               std::string& pax_path, std::uint64_t& pax_size, bool& has_size) {
  std::size_t pos = 0;
  while (pos < records.size()) {
    const std::size_t space = records.find(' ', pos);
    if (space == std::string::npos) fail(path, offset, "bad pax record");
    std::uint64_t length = 0;
    for (std::size_t i = pos; i < space; ++i) {
      if (records[i] < '0' || records[i] > '9' || length > (1u << 30)) {
        fail(path, offset, "bad pax record length");
      }
      length = length * 10 + static_cast<unsigned>(records[i] - '0');
    }
    // A record is "<len> <key>=<value>\n": at least the space and the newline after the digits.
    if (length < space - pos + 2 || pos + length > records.size() ||
        records[pos + length - 1] != '\n') {
      fail(path, offset, "malformed pax record");
    }
    const std::string_view record(records.data() + space + 1, pos + length - space - 2);
    const std::size_t eq = record.find('=');
    if (eq != std::string_view::npos) {
      const std::string_view key = record.substr(0, eq);
      const std::string_view value = record.substr(eq + 1);
      if (key == "path") pax_path = std::string(value);
      if (key == "size") {
        pax_size = 0;
        for (char c : value) {
          if (c < '0' || c > '9' || pax_size > (std::uint64_t{1} << 59)) {
            fail(path, offset, "bad pax size");
          }
          pax_size = pax_size * 10 + static_cast<unsigned>(c - '0');
        }
        has_size = true;
      }
    }
    pos += length;
  }
}

const char* type_name(char type) {
  switch (type) {
    case '1':
      return "hard link";
    case '2':
      return "symbolic link";
    case '3':
      return "character device";
    case '4':
      return "block device";
    case '6':
      return "FIFO";
    default:
      return "unknown";
  }
}

// index_tar(), and index_tar_prefix() when `cut` is given.
std::vector<TarMember> index_members(int fd, const std::filesystem::path& path, std::string* cut) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw TarError(path.string() +
                   ": cannot stat: " + std::error_code(errno, std::generic_category()).message());
  }
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  std::vector<TarMember> members;
  // The archive is cut short at `offset`: the members before it, or index_tar's error.
  const auto cut_at = [&](std::uint64_t offset, const std::string& what) {
    if (cut == nullptr) fail(path, offset, what);
    *cut = "malformed tar at byte " + std::to_string(offset) + ": " + what;
    return members;
  };
  if (file_size == 0) return cut_at(0, "empty file");

  std::string long_name;  // from a GNU 'L' entry or a pax 'path' record, for the next member
  std::uint64_t pax_size = 0;
  bool has_pax_size = false;
  std::uint64_t offset = 0;
  Block block{};
  std::error_code error;

  auto read_data = [&](std::uint64_t at, std::uint64_t size) {
    if (size > (1u << 20)) fail(path, at, "metadata entry larger than 1 MiB");
    std::string data(size, '\0');
    pread_exact(fd, at, data.data(), size, error);
    if (error) fail(path, at, "cannot read: " + error.message());
    return data;
  };

  while (offset + kBlock <= file_size) {
    pread_exact(fd, offset, block.data(), kBlock, error);
    if (error) fail(path, offset, "cannot read header: " + error.message());
    if (is_zero(block)) return members;  // end-of-archive marker
    if (!checksum_ok(block)) fail(path, offset, "bad header checksum (not a tar file?)");
    std::uint64_t size = 0;
    if (!parse_number(block, 124, 12, size)) fail(path, offset, "bad size field");
    const char type = static_cast<char>(block[156]);
    const bool metadata = type == 'x' || type == 'g' || type == 'L';
    // A pax size record describes the next file entry, never another metadata entry.
    if (has_pax_size && !metadata) size = pax_size;
    const std::uint64_t data_offset = offset + kBlock;
    if (size > file_size || data_offset > file_size - size) {
      return cut_at(offset, "member needs " + std::to_string(size) + " bytes from byte " +
                                std::to_string(data_offset) + " but the file has " +
                                std::to_string(file_size) + " (truncated tar)");
    }
    std::string name;
    if (!long_name.empty()) {
      name = std::move(long_name);
      long_name.clear();
    } else {
      const std::string_view prefix =
          field(block, 257, 6) == "ustar" ? field(block, 345, 155) : std::string_view{};
      name = prefix.empty() ? std::string(field(block, 0, 100))
                            : std::string(prefix) + "/" + std::string(field(block, 0, 100));
    }

    switch (type) {
      case '0':
      case '\0':
      case '7':
        if (unsafe_name(name)) fail(path, offset, "unsafe member name '" + name + "'");
        members.push_back({name, data_offset, size});
        has_pax_size = false;
        break;
      case '5':  // directory
        has_pax_size = false;
        break;
      case 'g':  // pax global header: nothing feedrate uses
        break;
      case 'L':
        long_name = read_data(data_offset, size);
        long_name.resize(std::strlen(long_name.c_str()));
        break;
      case 'x': {
        std::string pax_path;
        parse_pax(read_data(data_offset, size), path, offset, pax_path, pax_size, has_pax_size);
        if (!pax_path.empty()) long_name = std::move(pax_path);
        break;
      }
      default:
        fail(path, offset,
             std::string("unsupported member type '") + type_name(type) + "' for '" + name + "'");
    }
    offset = data_offset + (size + kBlock - 1) / kBlock * kBlock;
  }
  if (offset != file_size) {
    return cut_at(offset, "file ends inside a header block (truncated tar)");
  }
  return members;  // no end-of-archive marker: accepted, as GNU tar does
}

}  // namespace

std::vector<TarMember> index_tar(int fd, const std::filesystem::path& path) {
  return index_members(fd, path, nullptr);
}

std::vector<TarMember> index_tar_prefix(int fd, const std::filesystem::path& path,
                                        std::string& cut) {
  cut.clear();
  return index_members(fd, path, &cut);
}

}  // namespace feedrate::io
