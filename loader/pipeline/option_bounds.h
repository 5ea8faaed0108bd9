// The bounds and types of the Loader's numeric options: one table, read by resolve()
// (include/feedrate/options.h), the command line's validators and Python's keyword parser, so
// that every front end accepts the same values and names the option the same way when one is
// wrong. The names are LoaderOptions' fields, which are Python's keywords; the transform's
// geometry is named as Python names it (size, resize, scale for both scale_min and scale_max,
// ratio for both ratio_min and ratio_max, flip_probability). Thread-safety: a const table and
// pure functions.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace feedrate {

struct OptionBound {
  std::string_view name;
  bool integral = true;  // an integer; else any real number (an integer too)
  double low = 0, high = 0;
  bool low_open = false;  // low itself is out of range: (low, high]
};

// Every bound is inclusive unless low_open. Ranges an option takes from another (rank below
// world_size, eval's resize at least size) are checked beside these by resolve().
inline constexpr std::array<OptionBound, 17> kOptionBounds{{
    {"batch_size", true, 1, 65536},
    {"num_workers", true, 0, 1024},
    {"world_size", true, 1, 1'000'000},
    {"rank", true, 0, 999'999},
    {"prefetch_batches", true, 1, 1024},
    {"memory_budget_mb", true, 0, 1 << 30},
    {"io_queue_depth", true, 1, 4096},
    {"shuffle_window_mb", true, 1, 1 << 20},
    {"tar_chunk_bytes", true, 0, 1 << 30},
    {"max_pixels", true, 1, 1099511627776.0},  // 2^40
    {"cache_gb", false, 0, 1e9},
    {"training_images_per_s", false, 0, 1e9},
    {"size", true, 1, 8192},
    {"resize", true, 1, 16384},
    {"scale", false, 0, 1, true},
    {"ratio", false, 1e-3, 1e3},
    {"flip_probability", false, 0, 1},
}};

// The bound of option `name`; throws std::invalid_argument for a name the table lacks.
const OptionBound& option_bound(std::string_view name);
// "[1, 65536]", "(0, 1]".
std::string range_text(const OptionBound& bound);
bool in_range(const OptionBound& bound, double value);
// Throws feedrate::Error "option NAME must be in RANGE, got VALUE" when `value` is outside the
// bound of option `name`, or is not an integer where one is needed.
void check_option(std::string_view name, double value);

}  // namespace feedrate
