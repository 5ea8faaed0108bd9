// Photograph-like pixel synthesis (make_rgb_pixels). What matters for a loader benchmark is that
// the JPEGs cost what real photos cost to decode: similar entropy-coded size and a mix of smooth
// and detailed regions. Content is generated row by row from integer lattices and a fast PRNG,
// with no per-pixel transcendental functions, to keep generation cheaper than the JPEG encode.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/datagen/datagen.h"
#include "bench/datagen/random.h"

namespace feedrate::datagen {
namespace {

// Tuning. Noise amplitudes are in 1/16 of a grey level (lattice values keep sub-level precision
// through the interpolation). Together they put a 500x375 q90 4:2:0 JPEG at roughly 100 KB; the
// grain and the fine octaves set the size, the coarse ones make it look like surfaces.
constexpr int kFracBits = 4;
struct Octave {
  int cell;       // lattice spacing in pixels
  int amplitude;  // peak value, 1/16 grey levels
};
constexpr Octave kLumaOctaves[] = {
    {64, 28 * 16}, {24, 18 * 16}, {9, 22 * 16}, {4, 28 * 16}, {2, 28 * 16}};
constexpr Octave kChromaOctaves[] = {{48, 10 * 16}, {12, 4 * 16}};
constexpr int kModulationCell = 160;  // spacing of the "how detailed is this region" field
constexpr int kLumaGrain = 32;        // peak of the triangular per-pixel luma grain, grey levels
constexpr int kChromaGrain = 8;       // peak of the red / blue chroma grain, grey levels

constexpr unsigned char clamp_byte(int v) {
  return static_cast<unsigned char>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// Value noise on an integer lattice with smoothstep interpolation, produced one row at a time.
// Each octave gets a random phase so that lattice lines of different octaves do not line up.
class ValueNoise {
 public:
  ValueNoise(Rng& rng, int width, int height, int cell, int amplitude)
      : width_(width),
        cell_(cell),
        phase_x_(rng.uniform_int(0, cell - 1)),
        phase_y_(rng.uniform_int(0, cell - 1)),
        lattice_w_((width + phase_x_) / cell + 2) {
    const int lattice_h = (height + phase_y_) / cell + 2;
    lattice_.resize(static_cast<std::size_t>(lattice_w_) * lattice_h);
    for (int& v : lattice_) v = rng.uniform_int(-amplitude, amplitude);
    weights_.resize(cell);
    for (int i = 0; i < cell; ++i) {
      const double t = (i + 0.5) / cell;
      weights_[i] = static_cast<int>(256.0 * t * t * (3.0 - 2.0 * t) + 0.5);
    }
    row_.resize(lattice_w_);
  }

  // Adds row y of the noise to acc[0, width).
  void add_row(int y, int* acc) {
    const int j = (y + phase_y_) / cell_;
    const int fy = weights_[(y + phase_y_) % cell_];
    const int* top = &lattice_[static_cast<std::size_t>(j) * lattice_w_];
    const int* bottom = top + lattice_w_;
    for (int i = 0; i < lattice_w_; ++i) row_[i] = top[i] * (256 - fy) + bottom[i] * fy;
    // One lattice cell at a time, so that the inner loop runs over contiguous weights and
    // vectorises instead of gathering per pixel.
    int x = 0;
    for (int i = 0; x < width_; ++i) {
      const int left = row_[i] * 256, slope = row_[i + 1] - row_[i];
      int k = i == 0 ? phase_x_ : 0;
      const int end = std::min(width_, x + cell_ - k);
      for (; x < end; ++x, ++k) acc[x] += (left + slope * weights_[k]) >> 16;
    }
  }

 private:
  int width_, cell_, phase_x_, phase_y_, lattice_w_;
  std::vector<int> lattice_, weights_, row_;
};

struct Color {
  float r, g, b;
};

Color random_color(Rng& rng, float lo, float hi) {
  return {rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(lo, hi)};
}

// A uniformly distributed unit vector, by rejection sampling in the unit disc. Unlike cos/sin of
// a random angle it uses only IEEE-exact operations, so images do not depend on the libm version.
void random_direction(Rng& rng, float& x, float& y) {
  for (;;) {
    x = rng.uniform(-1.0f, 1.0f);
    y = rng.uniform(-1.0f, 1.0f);
    const float norm2 = x * x + y * y;
    if (norm2 > 0.01f && norm2 <= 1.0f) {
      const float norm = std::sqrt(norm2);
      x /= norm;
      y /= norm;
      return;
    }
  }
}

// A soft round patch of colour added to the background, falling off as 1 / (1 + d^2/r^2)^2:
// Gaussian-looking without a per-pixel exp.
struct Blob {
  float cx, cy, inv_r2;
  Color delta;
};

// A hard-edged convex shape (rotated ellipse or rectangle) painted over the background. Its
// intersection with a row is one interval, so painting costs a few operations per row.
struct Shape {
  bool ellipse;
  float cx, cy, cos_a, sin_a, half_u, half_v;  // centre, axis direction, semi-axes
  Color color;
  float opacity;

  // The pixel range [x0, x1) of row y whose centres lie inside the shape.
  void span(int y, int width, int& x0, int& x1) const {
    const float dy = static_cast<float>(y) + 0.5f - cy;
    float lo, hi;
    if (ellipse) {
      // ((dx c + dy s) / a)^2 + ((-dx s + dy c) / b)^2 <= 1, a quadratic in dx.
      const float ia = 1.0f / (half_u * half_u), ib = 1.0f / (half_v * half_v);
      const float qa = cos_a * cos_a * ia + sin_a * sin_a * ib;
      const float qb = 2.0f * dy * cos_a * sin_a * (ia - ib);
      const float qc = dy * dy * (sin_a * sin_a * ia + cos_a * cos_a * ib) - 1.0f;
      const float disc = qb * qb - 4.0f * qa * qc;
      if (disc <= 0.0f) {
        x0 = x1 = 0;
        return;
      }
      const float root = std::sqrt(disc);
      lo = (-qb - root) / (2.0f * qa);
      hi = (-qb + root) / (2.0f * qa);
    } else {
      // |dx c + dy s| <= half_u and |-dx s + dy c| <= half_v, each an interval of dx.
      lo = -1e9f;
      hi = 1e9f;
      const auto clip = [&](float k, float offset, float half) {
        if (std::fabs(k) < 1e-6f) {
          if (std::fabs(offset) > half) hi = lo;
          return;
        }
        float a = (-half - offset) / k, b = (half - offset) / k;
        if (a > b) std::swap(a, b);
        lo = std::max(lo, a);
        hi = std::min(hi, b);
      };
      clip(cos_a, dy * sin_a, half_u);
      clip(-sin_a, dy * cos_a, half_v);
    }
    // Pixel x is inside when lo <= x + 0.5 - cx <= hi.
    x0 = static_cast<int>(std::clamp(std::ceil(cx + lo - 0.5f), 0.0f, static_cast<float>(width)));
    x1 = static_cast<int>(
        std::clamp(std::floor(cx + hi - 0.5f) + 1.0f, 0.0f, static_cast<float>(width)));
    if (x1 < x0) x1 = x0;
  }
};

}  // namespace

std::vector<unsigned char> make_rgb_pixels(std::uint64_t seed, int width, int height) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("make_rgb_pixels: bad size " + std::to_string(width) + "x" +
                                std::to_string(height));
  }
  Rng rng(seed);
  const float w = static_cast<float>(width), h = static_cast<float>(height);
  const float scale = std::min(w, h);

  // Background: a linear gradient between two colours along a random direction.
  const Color from = random_color(rng, 20.0f, 235.0f), to = random_color(rng, 20.0f, 235.0f);
  float gx, gy;
  random_direction(rng, gx, gy);
  const float diag = std::sqrt(w * w + h * h);
  gx /= diag;
  gy /= diag;

  std::vector<Blob> blobs(rng.uniform_int(3, 5));
  for (Blob& b : blobs) {
    const float r = scale * rng.uniform(0.15f, 0.5f);
    b = {rng.uniform(-0.1f, 1.1f) * w, rng.uniform(-0.1f, 1.1f) * h, 1.0f / (r * r),
         random_color(rng, -90.0f, 90.0f)};
  }

  std::vector<Shape> shapes(rng.uniform_int(4, 10));
  for (Shape& s : shapes) {
    random_direction(rng, s.cos_a, s.sin_a);
    s.ellipse = rng.uniform_int(0, 1) == 1;
    s.cx = rng.uniform(0.0f, w);
    s.cy = rng.uniform(0.0f, h);
    s.half_u = scale * rng.uniform(0.03f, 0.25f);
    s.half_v = scale * rng.uniform(0.03f, 0.25f);
    s.color = random_color(rng, 10.0f, 245.0f);
    s.opacity = rng.uniform(0.6f, 1.0f);
  }

  // Per-image strength so that file sizes vary across a dataset the way photos do.
  const float detail = rng.uniform(0.75f, 1.25f);
  std::vector<ValueNoise> luma, chroma_a, chroma_b;
  for (const Octave& o : kLumaOctaves) {
    luma.emplace_back(rng, width, height, o.cell, static_cast<int>(o.amplitude * detail));
  }
  for (const Octave& o : kChromaOctaves) {
    chroma_a.emplace_back(rng, width, height, o.cell, o.amplitude);
    chroma_b.emplace_back(rng, width, height, o.cell, o.amplitude);
  }
  // Texture strength in 1/256 units, between 0.25 and 1.75: smooth sky-like areas next to busy
  // ones, as in real scenes.
  ValueNoise modulation(rng, width, height, kModulationCell, 192);
  const int grain = static_cast<int>(kLumaGrain * detail + 0.5f);

  std::vector<unsigned char> out(static_cast<std::size_t>(width) * height * 3);
  std::vector<float> r(width), g(width), b(width);
  std::vector<int> tex(width), ca(width), cb(width), mod(width);
  for (int y = 0; y < height; ++y) {
    const float fy = static_cast<float>(y) + 0.5f;
    for (int x = 0; x < width; ++x) {
      const float fx = static_cast<float>(x) + 0.5f;
      const float t = std::clamp((fx - 0.5f * w) * gx + (fy - 0.5f * h) * gy + 0.5f, 0.0f, 1.0f);
      r[x] = from.r + (to.r - from.r) * t;
      g[x] = from.g + (to.g - from.g) * t;
      b[x] = from.b + (to.b - from.b) * t;
    }
    for (const Blob& blob : blobs) {
      const float dy2 = (fy - blob.cy) * (fy - blob.cy);
      for (int x = 0; x < width; ++x) {
        const float dx = static_cast<float>(x) + 0.5f - blob.cx;
        float k = 1.0f / (1.0f + (dx * dx + dy2) * blob.inv_r2);
        k *= k;
        r[x] += blob.delta.r * k;
        g[x] += blob.delta.g * k;
        b[x] += blob.delta.b * k;
      }
    }
    for (const Shape& s : shapes) {
      int x0, x1;
      s.span(y, width, x0, x1);
      for (int x = x0; x < x1; ++x) {
        r[x] += (s.color.r - r[x]) * s.opacity;
        g[x] += (s.color.g - g[x]) * s.opacity;
        b[x] += (s.color.b - b[x]) * s.opacity;
      }
    }

    std::fill(tex.begin(), tex.end(), 0);
    std::fill(ca.begin(), ca.end(), 0);
    std::fill(cb.begin(), cb.end(), 0);
    std::fill(mod.begin(), mod.end(), 256);
    for (ValueNoise& n : luma) n.add_row(y, tex.data());
    for (ValueNoise& n : chroma_a) n.add_row(y, ca.data());
    for (ValueNoise& n : chroma_b) n.add_row(y, cb.data());
    modulation.add_row(y, mod.data());

    unsigned char* px = &out[static_cast<std::size_t>(y) * width * 3];
    std::uint64_t bits = 0;
    for (int x = 0; x < width; ++x, px += 3) {
      // Four random bytes per pixel: two summed into a triangular luma grain, two for a chroma
      // grain applied like the chroma texture (red / blue shifts, green the opposite way).
      if ((x & 1) == 0) bits = rng.next();
      const int b0 = static_cast<int>(bits & 0xff), b1 = static_cast<int>((bits >> 8) & 0xff);
      const int b2 = static_cast<int>((bits >> 16) & 0xff),
                b3 = static_cast<int>((bits >> 24) & 0xff);
      bits >>= 32;
      const int luma_grain = ((b0 + b1 - 255) * grain) >> 8;
      const int da = (ca[x] >> kFracBits) + (((b2 - 128) * kChromaGrain) >> 7);
      const int db = (cb[x] >> kFracBits) + (((b3 - 128) * kChromaGrain) >> 7);
      const int shade = ((tex[x] * mod[x]) >> (8 + kFracBits)) + luma_grain;
      px[0] = clamp_byte(static_cast<int>(r[x] + 0.5f) + shade + da);
      px[1] = clamp_byte(static_cast<int>(g[x] + 0.5f) + shade - ((da + db) >> 1));
      px[2] = clamp_byte(static_cast<int>(b[x] + 0.5f) + shade + db);
    }
  }
  return out;
}

}  // namespace feedrate::datagen
