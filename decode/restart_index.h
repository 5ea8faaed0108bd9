// Packed JPEGs (`feedrate pack`): a baseline JPEG with a restart marker every K MCUs, where K
// divides the MCU columns (so no interval straddles an MCU row), and an index of where each
// restart interval's entropy-coded data starts, in an APP15 segment of the JPEG itself.
//
// The index lives in the JPEG rather than in a sidecar tar member so that a packed sample stays
// one member that PIL, webdataset and any other JPEG reader decode as usual (they skip unknown
// APPn segments), and so that a decoder recognises a packed image from its bytes alone, with no
// option. Segment payload, all integers big-endian:
//
//   "feedrate-rst\0"  tag (13 bytes)
//   u8   version (1)
//   u32  K, the MCUs per restart interval (equal to the DRI)
//   u32  interval count (MCU rows x MCU columns / K)
//   u32  entropy-coded bytes of the scan, from the end of the SOS header to the EOI marker
//   LEB128 varints: for intervals 1..count-1, the distance from the previous interval's start
//        (interval 0 starts at 0; each start follows the RSTn marker that ends the one before)
//
// Because restart markers reset the DC predictors, each interval decodes on its own. For a crop,
// build_substream() keeps only the intervals of the MCU rectangle around it and writes a smaller
// valid JPEG (SOF's size changed, markers renumbered); decoding it gives the same pixels inside
// the crop as decoding the whole image (covering_rect() adds the margin chroma upsampling reads).
//
// Thread-safety: pure functions on caller-owned data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "decode/status.h"

namespace feedrate::decode {

// The MCUs per restart interval a packer aims for by default (choose_mcus_per_interval). Each
// restart marker costs 2 bytes plus the padding of the bits before it, and its index entry 1-2
// bytes; smaller intervals skip more columns. One MCU per interval gave the fastest train path
// within the byte budget (README, Packed shards, measures K = 1, 2, 4 and 8).
inline constexpr int kTargetMcusPerInterval = 1;

// The most intervals choose_mcus_per_interval gives an image: their index fits one APP15 segment
// as long as no interval holds 16 KB or more of entropy-coded data (2-byte offsets).
inline constexpr int kMaxIntervals = 32'000;

// What a decoder needs to know about a packed JPEG, read from its headers and its index.
struct RestartIndex {
  int width = 0, height = 0;          // pixels, from SOF
  int mcu_width = 0, mcu_height = 0;  // pixels
  int mcu_columns = 0, mcu_rows = 0;
  int mcus_per_interval = 0;   // K
  bool h_subsampled = false;   // a component with fewer columns than the largest
  bool v_subsampled = false;   // a component with fewer rows than the largest
  std::size_t sof_offset = 0;  // of the SOF marker's FF
  std::size_t index_offset = 0, index_length = 0;  // the APP15 segment, marker included
  std::size_t scan_start = 0;                      // first entropy-coded byte
  std::uint32_t scan_bytes = 0;                    // entropy-coded bytes up to EOI
  std::vector<std::uint32_t> starts;               // interval starts, relative to scan_start
};

// Finds and checks the restart index of `jpeg`. Returns kOk with `found` false when `jpeg` has
// none (including any progressive or multi-scan JPEG); kOk with `found` true and `index` filled
// when it has one that agrees with the headers and the data's length; kCorrupt or kTruncated,
// with what disagrees, when it has one that does not.
DecodeStatus read_restart_index(std::span<const std::uint8_t> jpeg, RestartIndex& index,
                                bool& found);

// MCU columns [col0, col1) and rows [row0, row1).
struct McuRect {
  int col0 = 0, row0 = 0, col1 = 0, row1 = 0;
};

// The smallest rectangle of whole restart intervals whose sub-image decodes the pixels
// [x0, x1) x [y0, y1) of the full image exactly: along an axis where chroma is subsampled, one
// more MCU beyond a side of the rectangle that falls on the MCU grid (fancy upsampling of the
// MCU's first or last pixel reads a chroma sample of the neighbouring MCU); columns rounded out
// to interval boundaries.
McuRect covering_rect(const RestartIndex& index, int x0, int y0, int x1, int y1);

// The sub-image's first pixel in the full image, and its size: where the rectangle reaches the
// image's right or bottom edge it ends where the image does, not on the MCU grid.
struct SubImage {
  int x = 0, y = 0, width = 0, height = 0;
};
SubImage sub_image_of(const RestartIndex& index, const McuRect& rect);

// Writes to `out` a baseline JPEG of the rectangle: the headers of `jpeg` without the index
// segment and with SOF's size set to the sub-image's, then the rectangle's intervals in raster
// order with restart markers RST0..7 renumbered, then EOI. Checks the restart marker in front
// of each interval it takes (kCorrupt when one is not where the index says). `out` is reused.
DecodeStatus build_substream(std::span<const std::uint8_t> jpeg, const RestartIndex& index,
                             const McuRect& rect, std::vector<std::uint8_t>& out);

// Pack side: `jpeg` is a single-scan baseline JPEG whose DRI makes every restart interval a
// whole number of intervals per MCU row. Writes to `out` the same JPEG with the index segment
// inserted before its first DQT, SOF or DHT. kUnsupported when `jpeg` is not such a JPEG, or
// its index would not fit one segment; kCorrupt when its restart markers are not in order.
DecodeStatus add_restart_index(std::span<const std::uint8_t> jpeg, std::vector<std::uint8_t>& out);

// The K a packer uses for an image of `mcu_columns` x `mcu_rows` MCUs when it aims for `target`:
// the divisor of mcu_columns in [1, 2 x target] closest to target (the larger on a tie), except
// that a target above 1 never gets 1 but one interval per MCU row (mcu_columns) instead; then,
// while that gives more than kMaxIntervals intervals, the next larger divisor. Always divides
// mcu_columns.
int choose_mcus_per_interval(int mcu_columns, int mcu_rows, int target = kTargetMcusPerInterval);

}  // namespace feedrate::decode
