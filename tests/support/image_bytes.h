// Images built byte by byte for layouts the project's encoders do not write: TIFFs with tiles,
// separate planes, any orientation, 16-bit samples and extra samples; BMPs with a palette and
// any compression. Used by the decode tests and the fuzz seeds (header-only, so that the fuzz
// build, which has no test libraries, can use it). Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace feedrate::test_images {

using Bytes = std::vector<std::uint8_t>;

inline void put16(Bytes& b, std::uint16_t v) {
  b.push_back(v & 0xFF);
  b.push_back(v >> 8);
}
inline void put32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back((v >> (8 * i)) & 0xFF);
}

struct TiffSpec {
  std::uint32_t width = 5, height = 3;
  std::uint16_t bits = 8, samples = 3, photometric = 2, planar = 1, orientation = 1;
  std::uint32_t tile = 0;  // tile side; 0 for strips of rows_per_strip rows
  std::uint32_t rows_per_strip = 2;
  int extra = -1;  // ExtraSamples value, if any
};

// An uncompressed little-endian TIFF of `samples` (width x height x spec.samples, 8 or 16 bits).
inline Bytes make_tiff(const TiffSpec& spec, const std::vector<std::uint16_t>& samples) {
  const int planes = spec.planar == 2 ? spec.samples : 1;
  const int per_pixel = spec.planar == 2 ? 1 : spec.samples;
  const std::uint32_t bw = spec.tile ? spec.tile : spec.width;
  const std::uint32_t bh = spec.tile ? spec.tile : spec.rows_per_strip;
  const std::uint32_t across = (spec.width + bw - 1) / bw, down = (spec.height + bh - 1) / bh;
  std::vector<Bytes> blocks;
  for (int plane = 0; plane < planes; ++plane) {
    for (std::uint32_t by = 0; by < down; ++by) {
      for (std::uint32_t bx = 0; bx < across; ++bx) {
        Bytes block;
        const std::uint32_t rows = spec.tile ? bh : std::min(bh, spec.height - by * bh);
        for (std::uint32_t y = by * bh; y < by * bh + rows; ++y) {
          for (std::uint32_t x = bx * bw; x < bx * bw + bw; ++x) {
            for (int s = 0; s < per_pixel; ++s) {
              const int sample = spec.planar == 2 ? plane : s;
              const bool inside = x < spec.width && y < spec.height;
              const std::uint16_t v =
                  inside ? samples[(static_cast<std::size_t>(y) * spec.width + x) * spec.samples +
                                   sample]
                         : 0;
              if (spec.bits == 16) {
                put16(block, v);
              } else {
                block.push_back(static_cast<std::uint8_t>(v));
              }
            }
          }
        }
        blocks.push_back(block);
      }
    }
  }
  struct Entry {
    std::uint16_t tag, type;
    std::vector<std::uint32_t> values;
  };
  std::vector<Entry> entries = {{256, 4, {spec.width}},
                                {257, 4, {spec.height}},
                                {258, 3, std::vector<std::uint32_t>(spec.samples, spec.bits)},
                                {259, 3, {1}},
                                {262, 3, {spec.photometric}},
                                {274, 3, {spec.orientation}},
                                {277, 3, {spec.samples}},
                                {284, 3, {spec.planar}}};
  std::vector<std::uint32_t> counts, offsets;
  for (const Bytes& block : blocks) counts.push_back(static_cast<std::uint32_t>(block.size()));
  offsets.assign(blocks.size(), 0);  // filled in below
  if (spec.tile) {
    entries.push_back({322, 4, {spec.tile}});
    entries.push_back({323, 4, {spec.tile}});
    entries.push_back({324, 4, offsets});
    entries.push_back({325, 4, counts});
  } else {
    entries.push_back({273, 4, offsets});
    entries.push_back({278, 4, {spec.rows_per_strip}});
    entries.push_back({279, 4, counts});
  }
  if (spec.extra >= 0) entries.push_back({338, 3, {static_cast<std::uint32_t>(spec.extra)}});
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.tag < b.tag; });
  // Layout: header, IFD, arrays that do not fit in an entry, then the blocks.
  const std::uint32_t ifd_size = 2 + 12 * static_cast<std::uint32_t>(entries.size()) + 4;
  std::uint32_t arrays = 8 + ifd_size, array_bytes = 0;
  for (const Entry& e : entries) {
    const std::uint32_t size = static_cast<std::uint32_t>(e.values.size()) * (e.type == 3 ? 2 : 4);
    if (size > 4) array_bytes += size;
  }
  std::uint32_t data_at = arrays + array_bytes;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    offsets[i] = data_at;
    data_at += static_cast<std::uint32_t>(blocks[i].size());
  }
  for (Entry& e : entries) {
    if (e.tag == 273 || e.tag == 324) e.values = offsets;
  }
  Bytes out = {'I', 'I', 42, 0};
  put32(out, 8);
  put16(out, static_cast<std::uint16_t>(entries.size()));
  Bytes tail;
  for (const Entry& e : entries) {
    put16(out, e.tag);
    put16(out, e.type);
    put32(out, static_cast<std::uint32_t>(e.values.size()));
    Bytes packed;
    for (const std::uint32_t v : e.values) {
      if (e.type == 3)
        put16(packed, static_cast<std::uint16_t>(v));
      else
        put32(packed, v);
    }
    if (packed.size() <= 4) {
      packed.resize(4, 0);
      out.insert(out.end(), packed.begin(), packed.end());
    } else {
      put32(out, arrays + static_cast<std::uint32_t>(tail.size()));
      tail.insert(tail.end(), packed.begin(), packed.end());
    }
  }
  put32(out, 0);
  out.insert(out.end(), tail.begin(), tail.end());
  for (const Bytes& block : blocks) out.insert(out.end(), block.begin(), block.end());
  return out;
}

// A BMP header (40 bytes of info) and palette before `data`.
inline Bytes make_bmp(int width, int height, int bits, std::uint32_t compression, const Bytes& data,
                      int colors) {
  Bytes out = {'B', 'M'};
  const std::uint32_t offset = 14 + 40 + 4 * colors;
  put32(out, offset + static_cast<std::uint32_t>(data.size()));
  put32(out, 0);
  put32(out, offset);
  put32(out, 40);
  put32(out, static_cast<std::uint32_t>(width));
  put32(out, static_cast<std::uint32_t>(height));
  put16(out, 1);
  put16(out, static_cast<std::uint16_t>(bits));
  put32(out, compression);
  put32(out, static_cast<std::uint32_t>(data.size()));
  put32(out, 2835);
  put32(out, 2835);
  put32(out, static_cast<std::uint32_t>(colors));
  put32(out, 0);
  for (int i = 0; i < colors; ++i) {
    out.insert(out.end(), {static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(2 * i),
                           static_cast<std::uint8_t>(255 - i), 0});
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace feedrate::test_images
