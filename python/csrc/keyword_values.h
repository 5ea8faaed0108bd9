// Reads the Python values of feedrate.Loader's keywords into typed values, for the keyword
// table (python/csrc/options.cc): a value of a type the keyword does not take throws WrongType,
// one outside its range OutOfRange, each saying what the keyword takes; the table turns them
// into TypeError and ValueError naming the keyword. Numeric bounds come from the loader's one
// table (loader/pipeline/option_bounds.h). Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loader/pipeline/option_bounds.h"

namespace feedrate::python {

// A keyword's value of a type the keyword does not take; `needs` says what it takes.
struct WrongType {
  std::string needs;
};
// A keyword's value outside its range; `rule` says what the range is.
struct OutOfRange {
  std::string rule;
};

// Literal['a', 'b'] of a vocabulary.
std::string literal(const std::vector<std::string>& words);
// Accepts "float32", "torch.float32", torch.float32 and numpy.float32 alike.
std::string word_of(const pybind11::handle& value);
// An int that is not a bool.
bool is_int(const pybind11::handle& value);
// `value` as a number of the option whose bound is `bound`: an int for an integral bound, an
// int or a float otherwise, inside the bound.
double number(const pybind11::handle& value, const OptionBound& bound);
// The `count` items of a sequence that is not a str; `needs` names what is expected.
std::vector<pybind11::object> items(const pybind11::handle& value, std::size_t count,
                                    const char* needs);
// (low, high), each inside the bound of option `name`.
std::pair<double, double> two_numbers(const pybind11::handle& value, std::string_view name);
// (R, G, B): a mean or std of Normalize.
std::array<float, 3> three_numbers(const pybind11::handle& value);
// An int inside the bound of option `name`.
int integer(const pybind11::handle& value, std::string_view name);
// A sequence of str that is not a str itself (a lone "txt" would read as t, x, t); `example`
// shows one in the message.
std::vector<std::string> strings(const pybind11::handle& value, const char* example);

}  // namespace feedrate::python
