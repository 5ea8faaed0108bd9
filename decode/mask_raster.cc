#include "decode/mask_raster.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace feedrate::decode {

std::vector<std::uint32_t> polygon_to_rle(std::span<const double> xy, int height, int width) {
  // maskApi.c rleFrPoly, step by step: the vertices on a grid `scale` times finer, every grid
  // point along the edges, the points where the boundary crosses a pixel column's centre, and
  // from them the runs. Unsigned 32-bit arithmetic for the positions, as the C code's uint.
  const double scale = 5;
  const std::size_t k = xy.size() / 2;
  std::vector<int> x(k + 1), y(k + 1);
  for (std::size_t j = 0; j < k; ++j) x[j] = static_cast<int>(scale * xy[2 * j] + .5);
  for (std::size_t j = 0; j < k; ++j) y[j] = static_cast<int>(scale * xy[2 * j + 1] + .5);
  x[k] = x[0];
  y[k] = y[0];
  std::vector<int> u, v;
  for (std::size_t j = 0; j < k; ++j) {
    int xs = x[j], xe = x[j + 1], ys = y[j], ye = y[j + 1];
    const int dx = std::abs(xe - xs), dy = std::abs(ys - ye);
    const bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) {
      std::swap(xs, xe);
      std::swap(ys, ye);
    }
    const double s =
        dx >= dy ? static_cast<double>(ye - ys) / dx : static_cast<double>(xe - xs) / dy;
    if (dx >= dy) {
      for (int d = 0; d <= dx; ++d) {
        const int t = flip ? dx - d : d;
        u.push_back(t + xs);
        v.push_back(static_cast<int>(ys + s * t + .5));
      }
    } else {
      for (int d = 0; d <= dy; ++d) {
        const int t = flip ? dy - d : d;
        v.push_back(t + ys);
        u.push_back(static_cast<int>(xs + s * t + .5));
      }
    }
  }
  const auto h = static_cast<std::uint32_t>(height);
  const auto w = static_cast<std::uint32_t>(width);
  std::vector<std::uint32_t> a;
  for (std::size_t j = 1; j < u.size(); ++j) {
    if (u[j] == u[j - 1]) continue;
    double xd = u[j] < u[j - 1] ? u[j] : u[j] - 1;
    xd = (xd + .5) / scale - .5;
    if (std::floor(xd) != xd || xd < 0 || xd > width - 1) continue;
    double yd = v[j] < v[j - 1] ? v[j] : v[j - 1];
    yd = (yd + .5) / scale - .5;
    yd = std::ceil(std::clamp(yd, 0.0, static_cast<double>(height)));
    a.push_back(static_cast<std::uint32_t>(static_cast<int>(xd) * static_cast<int>(h) +
                                           static_cast<int>(yd)));
  }
  a.push_back(h * w);
  std::sort(a.begin(), a.end());
  std::uint32_t previous = 0;
  for (std::uint32_t& value : a) {
    const std::uint32_t t = value;
    value -= previous;
    previous = t;
  }
  // Runs of length 0 between two others join them (an edge crossed twice at one point).
  std::vector<std::uint32_t> counts;
  std::size_t j = 0;
  counts.push_back(a[j++]);
  while (j < a.size()) {
    if (a[j] > 0) {
      counts.push_back(a[j++]);
    } else {
      ++j;
      if (j < a.size()) counts.back() += a[j++];
    }
  }
  return counts;
}

bool rle_from_string(std::string_view text, std::vector<std::uint32_t>& counts,
                     std::string& error) {
  // maskApi.c rleFrString: each count a little-endian run of 5-bit groups ('0' + group, 0x20
  // meaning "more"), sign-extended from the last group's 0x10; from the third count on, a
  // delta from the count two before.
  counts.clear();
  std::size_t p = 0;
  while (p < text.size()) {
    long long value = 0;
    int k = 0;
    bool more = true;
    while (more) {
      if (p >= text.size()) {
        error = "compressed RLE ends inside a count";
        return false;
      }
      const int c = static_cast<unsigned char>(text[p]) - 48;
      if (c < 0 || c > 63) {
        error = "compressed RLE has a character outside '0'..'o' at offset " + std::to_string(p);
        return false;
      }
      if (k >= 7) {
        error =
            "compressed RLE has a count longer than 7 characters at offset " + std::to_string(p);
        return false;
      }
      value |= static_cast<long long>(c & 0x1f) << (5 * k);
      more = (c & 0x20) != 0;
      ++p;
      ++k;
      if (!more && (c & 0x10)) value |= -1LL << (5 * k);
    }
    if (counts.size() > 2) value += counts[counts.size() - 2];
    if (value < 0 || value > 0xffffffffLL) {
      error = "compressed RLE has a run of " + std::to_string(value) + " at count " +
              std::to_string(counts.size());
      return false;
    }
    counts.push_back(static_cast<std::uint32_t>(value));
  }
  return true;
}

std::string decode_rle(std::span<const std::uint32_t> counts, int height, int width,
                       std::span<std::uint8_t> mask) {
  const std::uint64_t total = static_cast<std::uint64_t>(height) * width;
  if (height < 0 || width < 0 || mask.size() != total) {
    return "mask buffer of " + std::to_string(mask.size()) + " bytes for a " +
           std::to_string(height) + "x" + std::to_string(width) + " image";
  }
  std::uint64_t position = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::uint64_t end = position + counts[i];
    if (end > total) {
      return "RLE runs add up to more than " + std::to_string(height) + "x" +
             std::to_string(width) + " pixels";
    }
    if (i % 2 == 1) {
      for (std::uint64_t index = position; index < end; ++index) {
        const auto col = static_cast<std::size_t>(index / static_cast<std::uint64_t>(height));
        const auto row = static_cast<std::size_t>(index % static_cast<std::uint64_t>(height));
        mask[row * static_cast<std::size_t>(width) + col] = 1;
      }
    }
    position = end;
  }
  return {};
}

void rasterize_polygons(std::span<const double> xy, std::span<const PolygonRange> polygons,
                        int height, int width, std::span<std::uint8_t> mask) {
  for (const PolygonRange& polygon : polygons) {
    const std::vector<std::uint32_t> counts =
        polygon_to_rle(xy.subspan(polygon.first, polygon.count), height, width);
    // A polygon's runs add up to height * width by construction.
    decode_rle(counts, height, width, mask);
  }
}

}  // namespace feedrate::decode
