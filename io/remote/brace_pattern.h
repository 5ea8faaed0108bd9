// WebDataset-style brace patterns for shard names: "train-{000000..001023}.tar" names 1024
// shards. A group is either a numeric range {A..B} (ascending or descending; zero-padded to the
// wider bound's width when a bound is written with a leading zero) or a list {a,b,c} (items may
// be empty). Several groups multiply, the leftmost varying slowest. Nested braces and stray
// braces are errors. Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace feedrate::io {

// Whether `text` has a brace group to expand (a '{' or '}'); a name without one is itself.
bool has_brace_pattern(std::string_view text);

// The names `pattern` stands for, in order. Throws std::invalid_argument, naming the pattern and
// the character position, for a malformed group, and when the names would exceed `max_names`.
std::vector<std::string> expand_braces(std::string_view pattern,
                                       std::size_t max_names = 10'000'000);

}  // namespace feedrate::io
