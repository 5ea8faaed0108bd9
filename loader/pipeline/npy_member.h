// Whether a member's bytes are an array numpy.load(allow_pickle=False) reads (internal to
// loader/), so that the decode stage refuses what the consumer could not turn into an array:
// the format's magic and version (1.0, 2.0, 3.0), a header that fits the member and is a dict
// literal with 'descr', 'fortran_order' and 'shape', a dtype that holds no Python objects (those
// need pickle), and at least the data bytes the shape and dtype ask for (numpy ignores bytes
// after them). A structured dtype (a list of fields) is checked for objects only.
//
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace feedrate {

// What is wrong with `bytes` as a .npy array, or an empty string.
std::string npy_problem(std::span<const std::uint8_t> bytes);

}  // namespace feedrate
