#include "decode/restart_index.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace feedrate::decode {
namespace {

constexpr std::uint8_t kSoi = 0xD8, kEoi = 0xD9, kSos = 0xDA, kDri = 0xDD, kApp15 = 0xEF;
constexpr std::uint8_t kRst0 = 0xD0;
constexpr char kTag[] = "feedrate-rst";  // 12 characters and the NUL: 13 bytes
constexpr std::size_t kTagBytes = sizeof(kTag);
constexpr std::uint8_t kVersion = 1;
constexpr std::size_t kMaxSegmentPayload = 65535 - 2;

unsigned be16(const std::uint8_t* p) {
  return (static_cast<unsigned>(p[0]) << 8) | p[1];
}
std::uint32_t be32(const std::uint8_t* p) {
  return (static_cast<std::uint32_t>(p[0]) << 24) | (static_cast<std::uint32_t>(p[1]) << 16) |
         (static_cast<std::uint32_t>(p[2]) << 8) | p[3];
}
void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// What the segments from SOI to the end of the SOS header say.
struct Headers {
  bool baseline = false;  // SOF0 or SOF1 (Huffman, sequential)
  bool has_sof = false;
  std::size_t sof_offset = 0;
  std::size_t first_table = 0;  // offset of the first segment that is not APPn or COM
  int width = 0, height = 0, components = 0;
  int h_max = 1, v_max = 1;
  bool h_sub = false, v_sub = false;
  int restart_interval = 0;
  int scan_components = 0;
  std::size_t scan_start = 0;
  std::size_t index_offset = 0, index_length = 0;  // 0 when there is no index segment
};

// Walks the marker segments. Returns false when they do not parse as far as the SOS header
// (libjpeg then reports what is wrong when it decodes the file).
bool parse_headers(std::span<const std::uint8_t> jpeg, Headers& h) {
  const std::size_t n = jpeg.size();
  if (n < 4 || jpeg[0] != 0xFF || jpeg[1] != kSoi) return false;
  std::size_t pos = 2;
  while (true) {
    if (pos + 4 > n || jpeg[pos] != 0xFF) return false;
    const std::uint8_t marker = jpeg[pos + 1];
    if (marker == 0xFF || marker == 0x01 || (marker >= kRst0 && marker <= kEoi)) return false;
    const std::size_t length = be16(&jpeg[pos + 2]);
    if (length < 2 || pos + 2 + length > n) return false;
    const std::uint8_t* payload = &jpeg[pos + 4];
    const std::size_t payload_size = length - 2;
    const bool app_or_com = (marker >= 0xE0 && marker <= kApp15) || marker == 0xFE;
    if (!app_or_com && h.first_table == 0) h.first_table = pos;
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      if (h.has_sof || payload_size < 6) return false;
      h.has_sof = true;
      h.baseline = marker == 0xC0 || marker == 0xC1;
      h.sof_offset = pos;
      h.height = static_cast<int>(be16(payload + 1));
      h.width = static_cast<int>(be16(payload + 3));
      h.components = payload[5];
      if (h.components < 1 || payload_size < 6 + 3 * static_cast<std::size_t>(h.components)) {
        return false;
      }
      int h_min = 4, v_min = 4;
      h.h_max = h.v_max = 1;
      for (int c = 0; c < h.components; ++c) {
        const int hs = payload[7 + 3 * c] >> 4, vs = payload[7 + 3 * c] & 15;
        if (hs < 1 || hs > 4 || vs < 1 || vs > 4) return false;
        h.h_max = std::max(h.h_max, hs);
        h.v_max = std::max(h.v_max, vs);
        h_min = std::min(h_min, hs);
        v_min = std::min(v_min, vs);
      }
      h.h_sub = h.components > 1 && h_min != h.h_max;
      h.v_sub = h.components > 1 && v_min != h.v_max;
    } else if (marker == kDri) {
      if (payload_size < 2) return false;
      h.restart_interval = static_cast<int>(be16(payload));
    } else if (marker == kApp15 && payload_size >= kTagBytes &&
               std::memcmp(payload, kTag, kTagBytes) == 0) {
      if (h.index_length != 0) return false;
      h.index_offset = pos;
      h.index_length = 2 + length;
    } else if (marker == kSos) {
      if (payload_size < 1) return false;
      h.scan_components = payload[0];
      h.scan_start = pos + 2 + length;
      return h.has_sof;
    }
    pos += 2 + length;
  }
}

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// MCU geometry of a single-scan image: a scan of one component has one block per MCU.
void set_geometry(const Headers& h, RestartIndex& index) {
  index.width = h.width;
  index.height = h.height;
  index.mcu_width = h.components == 1 ? 8 : 8 * h.h_max;
  index.mcu_height = h.components == 1 ? 8 : 8 * h.v_max;
  index.mcu_columns = ceil_div(h.width, index.mcu_width);
  index.mcu_rows = ceil_div(h.height, index.mcu_height);
  index.h_subsampled = h.h_sub;
  index.v_subsampled = h.v_sub;
  index.sof_offset = h.sof_offset;
  index.scan_start = h.scan_start;
  index.index_offset = h.index_offset;
  index.index_length = h.index_length;
}

DecodeStatus corrupt(const std::string& what) {
  return {DecodeErrc::kCorrupt, "packed JPEG's restart index: " + what};
}

}  // namespace

int choose_mcus_per_interval(int mcu_columns, int mcu_rows, int target) {
  target = std::max(target, 1);
  int best = 1;
  for (int d = 1; d <= 2 * target && d <= mcu_columns; ++d) {
    if (mcu_columns % d == 0 && std::abs(d - target) <= std::abs(best - target)) best = d;
  }
  if (best == 1 && target > 1) best = mcu_columns;
  const auto intervals = [&](int k) {
    return static_cast<std::int64_t>(mcu_rows) * (mcu_columns / k);
  };
  while (best < mcu_columns && intervals(best) > kMaxIntervals) {
    ++best;
    while (mcu_columns % best != 0) ++best;
  }
  return best;
}

DecodeStatus read_restart_index(std::span<const std::uint8_t> jpeg, RestartIndex& index,
                                bool& found) {
  found = false;
  Headers h;
  if (!parse_headers(jpeg, h) || h.index_length == 0) return {};
  found = true;
  if (!h.baseline || h.scan_components != h.components || h.width < 1 || h.height < 1) {
    return corrupt("the image is not a single-scan baseline JPEG");
  }
  set_geometry(h, index);
  const std::uint8_t* p = &jpeg[h.index_offset + 4 + kTagBytes];
  const std::size_t size = h.index_length - 4 - kTagBytes;
  if (size < 13 || p[0] != kVersion) return corrupt("unknown version or short segment");
  const std::uint32_t k = be32(p + 1), count = be32(p + 5);
  index.scan_bytes = be32(p + 9);
  if (k == 0 || static_cast<int>(k) != h.restart_interval ||
      index.mcu_columns % static_cast<int>(k) != 0) {
    return corrupt("K = " + std::to_string(k) + " does not match DRI " +
                   std::to_string(h.restart_interval) + " and " +
                   std::to_string(index.mcu_columns) + " MCU columns");
  }
  index.mcus_per_interval = static_cast<int>(k);
  const std::uint64_t expected =
      static_cast<std::uint64_t>(index.mcu_rows) * (index.mcu_columns / index.mcus_per_interval);
  if (count != expected) {
    return corrupt(std::to_string(count) + " intervals where the image has " +
                   std::to_string(expected));
  }
  if (count - 1 > size - 13) return corrupt("offsets end early");  // a byte per offset at least
  const std::uint64_t end = static_cast<std::uint64_t>(h.scan_start) + index.scan_bytes;
  if (end + 2 > jpeg.size()) {
    return {DecodeErrc::kTruncated, "data ends at " + std::to_string(jpeg.size()) +
                                        " bytes, before the end of the scan its restart index "
                                        "records (" +
                                        std::to_string(end + 2) + " bytes)"};
  }
  if (jpeg[end] != 0xFF || jpeg[end + 1] != kEoi) return corrupt("no EOI where the scan ends");
  index.starts.resize(count);
  index.starts[0] = 0;
  std::size_t at = 13;
  std::uint64_t start = 0;
  for (std::uint32_t i = 1; i < count; ++i) {
    std::uint64_t delta = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= size || shift > 28) return corrupt("offsets end early");
      const std::uint8_t byte = p[at++];
      delta |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) break;
    }
    start += delta;
    if (delta < 2 || start > index.scan_bytes) return corrupt("offsets out of order or range");
    index.starts[i] = static_cast<std::uint32_t>(start);
  }
  return {};
}

McuRect covering_rect(const RestartIndex& index, int x0, int y0, int x1, int y1) {
  // Fancy upsampling makes a pixel read the chroma samples beside its own; only the first and
  // the last pixel of an MCU have one of those in the neighbouring MCU.
  const int left = index.h_subsampled && x0 % index.mcu_width == 0 ? 1 : 0;
  const int right = index.h_subsampled && x1 % index.mcu_width == 0 ? 1 : 0;
  const int top = index.v_subsampled && y0 % index.mcu_height == 0 ? 1 : 0;
  const int bottom = index.v_subsampled && y1 % index.mcu_height == 0 ? 1 : 0;
  const int k = index.mcus_per_interval;
  McuRect r;
  r.col0 = std::max(x0 / index.mcu_width - left, 0) / k * k;
  r.col1 = std::min(ceil_div(ceil_div(x1, index.mcu_width) + right, k) * k, index.mcu_columns);
  r.row0 = std::max(y0 / index.mcu_height - top, 0);
  r.row1 = std::min(ceil_div(y1, index.mcu_height) + bottom, index.mcu_rows);
  return r;
}

SubImage sub_image_of(const RestartIndex& index, const McuRect& rect) {
  SubImage s;
  s.x = rect.col0 * index.mcu_width;
  s.y = rect.row0 * index.mcu_height;
  s.width = rect.col1 == index.mcu_columns ? index.width - s.x
                                           : (rect.col1 - rect.col0) * index.mcu_width;
  s.height =
      rect.row1 == index.mcu_rows ? index.height - s.y : (rect.row1 - rect.row0) * index.mcu_height;
  return s;
}

DecodeStatus build_substream(std::span<const std::uint8_t> jpeg, const RestartIndex& index,
                             const McuRect& rect, std::vector<std::uint8_t>& out) {
  const SubImage sub = sub_image_of(index, rect);
  out.clear();
  // Headers without the index segment.
  out.insert(out.end(), jpeg.begin(),
             jpeg.begin() + static_cast<std::ptrdiff_t>(index.index_offset));
  out.insert(out.end(),
             jpeg.begin() + static_cast<std::ptrdiff_t>(index.index_offset + index.index_length),
             jpeg.begin() + static_cast<std::ptrdiff_t>(index.scan_start));
  const std::size_t sof = index.sof_offset > index.index_offset
                              ? index.sof_offset - index.index_length
                              : index.sof_offset;
  out[sof + 5] = static_cast<std::uint8_t>(sub.height >> 8);
  out[sof + 6] = static_cast<std::uint8_t>(sub.height);
  out[sof + 7] = static_cast<std::uint8_t>(sub.width >> 8);
  out[sof + 8] = static_cast<std::uint8_t>(sub.width);
  const std::uint8_t* scan = jpeg.data() + index.scan_start;
  const int per_row = index.mcu_columns / index.mcus_per_interval;
  const std::size_t count = index.starts.size();
  int written = 0;
  for (int row = rect.row0; row < rect.row1; ++row) {
    const std::size_t first =
        static_cast<std::size_t>(row) * per_row + rect.col0 / index.mcus_per_interval;
    const std::size_t last =
        static_cast<std::size_t>(row) * per_row + rect.col1 / index.mcus_per_interval;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t begin = index.starts[i];
      const std::uint32_t end = i + 1 < count ? index.starts[i + 1] - 2 : index.scan_bytes;
      if (i > 0 && (scan[begin - 2] != 0xFF || scan[begin - 1] != kRst0 + ((i - 1) & 7))) {
        return corrupt("no RST" + std::to_string((i - 1) & 7) + " marker before interval " +
                       std::to_string(i) + " (scan byte " + std::to_string(begin) + ")");
      }
      if (written > 0) {
        out.push_back(0xFF);
        out.push_back(static_cast<std::uint8_t>(kRst0 + ((written - 1) & 7)));
      }
      out.insert(out.end(), scan + begin, scan + end);
      ++written;
    }
  }
  out.push_back(0xFF);
  out.push_back(kEoi);
  return {};
}

DecodeStatus add_restart_index(std::span<const std::uint8_t> jpeg, std::vector<std::uint8_t>& out) {
  Headers h;
  if (!parse_headers(jpeg, h)) return {DecodeErrc::kCorrupt, "headers do not parse"};
  if (!h.baseline || h.scan_components != h.components) {
    return {DecodeErrc::kUnsupported, "not a single-scan baseline JPEG"};
  }
  if (h.index_length != 0) return {DecodeErrc::kUnsupported, "already has a restart index"};
  RestartIndex geometry;
  set_geometry(h, geometry);
  if (h.restart_interval <= 0 || geometry.mcu_columns % h.restart_interval != 0) {
    return {DecodeErrc::kUnsupported, "restart interval " + std::to_string(h.restart_interval) +
                                          " does not divide " +
                                          std::to_string(geometry.mcu_columns) + " MCU columns"};
  }
  std::vector<std::uint32_t> starts{0};
  const std::size_t n = jpeg.size();
  std::size_t pos = h.scan_start;
  std::size_t end = 0;
  while (pos + 1 < n) {
    if (jpeg[pos] != 0xFF) {
      ++pos;
      continue;
    }
    const std::uint8_t next = jpeg[pos + 1];
    if (next == 0x00) {
      pos += 2;
    } else if (next == kRst0 + ((starts.size() - 1) & 7)) {
      starts.push_back(static_cast<std::uint32_t>(pos + 2 - h.scan_start));
      pos += 2;
    } else if (next == kEoi) {
      end = pos;
      break;
    } else {
      return {DecodeErrc::kCorrupt, "unexpected marker FF " + std::to_string(next) +
                                        " in the scan at byte " + std::to_string(pos)};
    }
  }
  if (end == 0) return {DecodeErrc::kTruncated, "no EOI marker after the scan"};
  const std::uint64_t expected =
      static_cast<std::uint64_t>(geometry.mcu_rows) * (geometry.mcu_columns / h.restart_interval);
  if (starts.size() != expected) {
    return {DecodeErrc::kCorrupt, std::to_string(starts.size()) + " restart intervals, expected " +
                                      std::to_string(expected)};
  }
  std::vector<std::uint8_t> payload(kTag, kTag + kTagBytes);
  payload.push_back(kVersion);
  put_be32(payload, static_cast<std::uint32_t>(h.restart_interval));
  put_be32(payload, static_cast<std::uint32_t>(starts.size()));
  put_be32(payload, static_cast<std::uint32_t>(end - h.scan_start));
  for (std::size_t i = 1; i < starts.size(); ++i) {
    std::uint32_t delta = starts[i] - starts[i - 1];
    while (delta >= 0x80) {
      payload.push_back(static_cast<std::uint8_t>(delta | 0x80));
      delta >>= 7;
    }
    payload.push_back(static_cast<std::uint8_t>(delta));
  }
  if (payload.size() > kMaxSegmentPayload) {
    return {DecodeErrc::kUnsupported, "restart index of " + std::to_string(payload.size()) +
                                          " bytes does not fit one APP15 segment"};
  }
  const std::size_t at = h.first_table;
  out.clear();
  out.reserve(n + payload.size() + 4);
  out.insert(out.end(), jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(at));
  const std::size_t length = payload.size() + 2;
  out.push_back(0xFF);
  out.push_back(kApp15);
  out.push_back(static_cast<std::uint8_t>(length >> 8));
  out.push_back(static_cast<std::uint8_t>(length));
  out.insert(out.end(), payload.begin(), payload.end());
  out.insert(out.end(), jpeg.begin() + static_cast<std::ptrdiff_t>(at), jpeg.end());
  return {};
}

}  // namespace feedrate::decode
