#include "python/csrc/keyword_values.h"

namespace feedrate::python {
namespace py = pybind11;

std::string literal(const std::vector<std::string>& words) {
  std::string text = "Literal[";
  for (const std::string& word : words) text += (text.back() == '[' ? "'" : ", '") + word + "'";
  return text + "]";
}

std::string word_of(const py::handle& value) {
  std::string word = py::str(value);
  for (const char* prefix : {"torch.", "<class 'numpy.", "numpy."}) {
    if (word.rfind(prefix, 0) == 0) word = word.substr(std::char_traits<char>::length(prefix));
  }
  if (!word.empty() && word.back() == '>') word = word.substr(0, word.size() - 2);
  return word;
}

bool is_int(const py::handle& value) {
  return py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value);
}

double number(const py::handle& value, const OptionBound& bound) {
  if (bound.integral ? !is_int(value) : !(is_int(value) || py::isinstance<py::float_>(value))) {
    throw WrongType{bound.integral ? "an int" : "a number"};
  }
  const double x = value.cast<double>();
  if (!in_range(bound, x)) {
    throw OutOfRange{std::string(bound.name) + " must be in " + range_text(bound)};
  }
  return x;
}

std::vector<py::object> items(const py::handle& value, std::size_t count, const char* needs) {
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value)) {
    throw WrongType{needs};
  }
  const py::sequence sequence = py::reinterpret_borrow<py::sequence>(value);
  if (sequence.size() != count) {
    throw OutOfRange{std::string("expected ") + needs + ", got " + std::to_string(sequence.size()) +
                     " values"};
  }
  std::vector<py::object> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(sequence[i]);
  return out;
}

std::pair<double, double> two_numbers(const py::handle& value, std::string_view name) {
  const std::vector<py::object> both = items(value, 2, "(low, high)");
  const OptionBound& bound = option_bound(name);
  return {number(both[0], bound), number(both[1], bound)};
}

std::array<float, 3> three_numbers(const py::handle& value) {
  const std::vector<py::object> rgb = items(value, 3, "3 numbers (R, G, B)");
  std::array<float, 3> out{};
  for (std::size_t c = 0; c < 3; ++c) {
    if (!(is_int(rgb[c]) || py::isinstance<py::float_>(rgb[c]))) {
      throw WrongType{"3 numbers (R, G, B)"};
    }
    out[c] = rgb[c].cast<float>();
  }
  return out;
}

int integer(const py::handle& value, std::string_view name) {
  return static_cast<int>(number(value, option_bound(name)));
}

std::vector<std::string> strings(const py::handle& value, const char* example) {
  const std::string needs = std::string("a sequence of str, such as ") + example;
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value)) {
    throw WrongType{needs};
  }
  std::vector<std::string> out;
  for (const py::handle item : py::reinterpret_borrow<py::sequence>(value)) {
    if (!py::isinstance<py::str>(item)) throw WrongType{needs};
    out.push_back(item.cast<std::string>());
  }
  return out;
}

}  // namespace feedrate::python
