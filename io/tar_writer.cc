// POSIX ustar writer. Headers follow POSIX.1-1988 ustar exactly (octal fields NUL-terminated,
// checksum as six octal digits, NUL, space) so that GNU tar, bsdtar and Python's tarfile all
// accept the archives without warnings.

#include "io/tar_writer.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace feedrate::io {
namespace {

// Writes `value` as `width - 1` zero-padded octal digits followed by a NUL.
void put_octal(unsigned char* field, std::size_t width, std::uint64_t value) {
  field[width - 1] = '\0';
  for (std::size_t i = width - 1; i-- > 0;) {
    field[i] = static_cast<unsigned char>('0' + (value & 7));
    value >>= 3;
  }
}

std::runtime_error io_error(const std::string& what, const std::filesystem::path& path, int error) {
  return std::runtime_error(what + " " + path.string() + ": " + std::strerror(error));
}

}  // namespace

std::array<unsigned char, kTarBlockSize> ustar_header(const std::string& name, std::uint64_t size,
                                                      char typeflag) {
  if (name.empty() || name.size() > 100) {
    throw std::invalid_argument("tar member name must be 1 to 100 bytes: '" + name + "'");
  }
  if (size >= (std::uint64_t{1} << 33)) {
    throw std::invalid_argument("tar member " + name +
                                " is too large for ustar: " + std::to_string(size) + " bytes");
  }
  std::array<unsigned char, kTarBlockSize> h{};
  std::memcpy(&h[0], name.data(), name.size());  // name[100]; NUL-terminated only if shorter
  put_octal(&h[100], 8, 0644);                   // mode
  put_octal(&h[108], 8, 0);                      // uid
  put_octal(&h[116], 8, 0);                      // gid
  put_octal(&h[124], 12, size);                  // size
  put_octal(&h[136], 12, 0);                     // mtime: 0 keeps archives reproducible
  h[156] = static_cast<unsigned char>(typeflag);
  std::memcpy(&h[257], "ustar", 6);  // magic, NUL included
  std::memcpy(&h[263], "00", 2);     // version
  // The checksum is computed with its own field read as eight spaces.
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char byte : h) sum += byte;
  put_octal(&h[148], 7, sum);
  h[155] = ' ';
  return h;
}

TarWriter::TarWriter(const std::filesystem::path& file)
    : path_(file), file_(std::fopen(file.c_str(), "wb")) {
  if (!file_) throw io_error("cannot create", path_, errno);
}

TarWriter::~TarWriter() {
  try {
    finish();
  } catch (const std::exception&) {
    // A destructor must not throw; callers that need to see errors call finish().
  }
}

void TarWriter::write(const void* data, std::size_t size) {
  if (!file_) throw std::logic_error("TarWriter: write after finish() on " + path_.string());
  if (size > 0 && std::fwrite(data, 1, size, file_.get()) != size) {
    throw io_error("cannot write", path_, errno);
  }
  bytes_written_ += size;
}

void TarWriter::add(const std::string& name, std::span<const unsigned char> data) {
  const auto header = ustar_header(name, data.size());
  write(header.data(), header.size());
  write(data.data(), data.size());
  static constexpr unsigned char kZeros[kTarBlockSize] = {};
  write(kZeros, (kTarBlockSize - data.size() % kTarBlockSize) % kTarBlockSize);
}

void TarWriter::write_raw(std::span<const unsigned char> bytes) {
  write(bytes.data(), bytes.size());
}

void TarWriter::finish() {
  if (!file_) return;
  static constexpr unsigned char kEnd[2 * kTarBlockSize] = {};
  write(kEnd, sizeof(kEnd));
  // Release before fclose so that a failing close is not retried by the destructor.
  std::FILE* file = file_.release();
  if (std::fclose(file) != 0) throw io_error("cannot close", path_, errno);
}

}  // namespace feedrate::io
