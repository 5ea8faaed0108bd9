// The decode stage's check of field members: UTF-8 as Python's strict decoder takes it, JSON as
// json.loads reads it, decimal integers, and arrays numpy.load reads without pickle.
#include "loader/pipeline/field_check.h"

#include <gtest/gtest.h>

#include <string>

namespace feedrate {
namespace {

std::string problem(FieldKind kind, const std::string& text) {
  return field_problem(kind, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

TEST(FieldCheck, TextIsStrictUtf8) {
  EXPECT_EQ(problem(FieldKind::kText, "caf\xc3\xa9 \xf0\x9f\x98\x80"), "");
  EXPECT_EQ(problem(FieldKind::kText, ""), "");
  EXPECT_EQ(problem(FieldKind::kText, "caf\xe9"), "not UTF-8 text (byte 3 of 4)");
  EXPECT_NE(problem(FieldKind::kText, "\xc0\xaf"), "");          // overlong '/'
  EXPECT_NE(problem(FieldKind::kText, "\xed\xa0\x80"), "");      // a surrogate
  EXPECT_NE(problem(FieldKind::kText, "\xf4\x90\x80\x80"), "");  // above U+10FFFF
  EXPECT_NE(problem(FieldKind::kText, "ab\xe2\x82"), "");        // cut short
}

TEST(FieldCheck, JsonIsWhatPythonsJsonLoadsReads) {
  EXPECT_EQ(problem(FieldKind::kJson, R"({"caption": "a", "w": [1, 2.5e3, null]})"), "");
  EXPECT_EQ(problem(FieldKind::kJson, "\xef\xbb\xbf{}"), "");  // a byte order mark
  // Python's own words, which json.dumps writes for floats that are not finite.
  EXPECT_EQ(problem(FieldKind::kJson, R"({"similarity": NaN, "w": [Infinity, -Infinity]})"), "");
  EXPECT_EQ(problem(FieldKind::kJson, "1e999"), "");  // inf to Python
  EXPECT_EQ(problem(FieldKind::kJson, " \"\\u00e9\\n\" \r\n"), "");
  EXPECT_EQ(problem(FieldKind::kJson, "{'single': 1}"),
            "not JSON: expecting a property name in double quotes at byte 1");
  EXPECT_EQ(problem(FieldKind::kJson, "{} {}"), "not JSON: extra data at byte 3");
  EXPECT_EQ(problem(FieldKind::kJson, std::string("{}\0", 3)), "not JSON: extra data at byte 2");
  EXPECT_EQ(problem(FieldKind::kJson, ""), "not JSON: expecting a value at byte 0");
  EXPECT_EQ(problem(FieldKind::kJson, "[1, 2,]"), "not JSON: expecting a value at byte 6");
  EXPECT_EQ(problem(FieldKind::kJson, "01"), "not JSON: extra data at byte 1");
  EXPECT_EQ(problem(FieldKind::kJson, "1."), "not JSON: extra data at byte 1");
  EXPECT_EQ(problem(FieldKind::kJson, "-"), "not JSON: expecting a value at byte 1");
  EXPECT_EQ(problem(FieldKind::kJson, "nan"), "not JSON: expecting a value at byte 0");
  EXPECT_EQ(problem(FieldKind::kJson, "\"a\tb\""),
            "not JSON: invalid control character in a string at byte 2");
  EXPECT_EQ(problem(FieldKind::kJson, R"("\x")"), "not JSON: invalid \\escape at byte 2");
  EXPECT_EQ(problem(FieldKind::kJson, R"("\u12g4")"), "not JSON: invalid \\uXXXX escape at byte 2");
  EXPECT_EQ(problem(FieldKind::kJson, "\"abc"), "not JSON: unterminated string at byte 4");
  EXPECT_EQ(problem(FieldKind::kJson, "\"caf\xe9\""), "not JSON: not UTF-8 text (byte 4 of 6)");
  EXPECT_EQ(problem(FieldKind::kJson, std::string("{\0\"\0", 4)),
            "not JSON in UTF-8 (UTF-16 or UTF-32 are not read)");
  // Python's decoder recurses: deeper than 500 levels is refused here, before it overflows.
  EXPECT_EQ(problem(FieldKind::kJson, std::string(500, '[') + std::string(500, ']')), "");
  EXPECT_EQ(problem(FieldKind::kJson, std::string(501, '[') + std::string(501, ']')),
            "not JSON: nested deeper than 500 levels at byte 500");
}

TEST(FieldCheck, IntegersAreDecimal) {
  EXPECT_EQ(problem(FieldKind::kInteger, " 42\n"), "");
  EXPECT_EQ(problem(FieldKind::kInteger, "-7"), "");
  EXPECT_EQ(integer_value({reinterpret_cast<const std::uint8_t*>(" 42\n"), 4}), 42);
  EXPECT_EQ(problem(FieldKind::kInteger, "4 2"), "not a decimal integer");
  EXPECT_EQ(problem(FieldKind::kInteger, ""), "not a decimal integer");
  EXPECT_EQ(problem(FieldKind::kInteger, "99999999999999999999"), "not a decimal integer");
}

// A version 1.0 .npy member: its header padded as numpy pads it, then `data`.
std::string npy(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
         static_cast<char>(header.size() >> 8) + header + data;
}

TEST(FieldCheck, NpyIsWhatNumpyLoadReadsWithoutPickle) {
  const std::string floats = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(problem(FieldKind::kNpy, npy(floats, std::string(24, '\0'))), "");
  EXPECT_EQ(problem(FieldKind::kNpy, npy(floats, std::string(30, '\0'))), "");  // extra: ignored
  EXPECT_EQ(problem(FieldKind::kNpy, npy(floats, std::string(20, '\0'))),
            "a NumPy .npy array cut short: its header asks for 24 bytes of data, it holds 20");
  EXPECT_EQ(
      problem(FieldKind::kNpy, npy("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
                                   std::string(24, '\0'))),
      "");
  EXPECT_EQ(problem(FieldKind::kNpy, npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                         std::string(8, '\0'))),
            "");
  EXPECT_NE(problem(FieldKind::kNpy,
                    npy("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, "
                        "10000), }",
                        std::string(8, '\0')))
                .find("cut short: its header asks for 800000000000000 bytes"),
            std::string::npos);
  EXPECT_EQ(problem(FieldKind::kNpy,
                    npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "pickle")),
            "a NumPy .npy array of Python objects (reading it needs pickle)");
  EXPECT_EQ(
      problem(FieldKind::kNpy, npy("{'descr': [('a', '<i4'), ('b', '|O')], 'fortran_order': False, "
                                   "'shape': (1,), }",
                                   "pickle")),
      "a NumPy .npy array of Python objects (reading it needs pickle)");
  EXPECT_EQ(problem(FieldKind::kNpy, npy("{'descr': '<f4', 'shape': (2,), }", "")),
            "a NumPy .npy array whose header lacks 'descr', 'fortran_order' or 'shape'");
  EXPECT_EQ(problem(FieldKind::kNpy, npy("(not a dict", "")),
            "a NumPy .npy array whose header is not a dict");
  EXPECT_EQ(
      problem(FieldKind::kNpy, npy("{'descr': '<f4', 'fortran_order': False, 'shape': 'x', }", "")),
      "a NumPy .npy array whose shape is not a tuple of sizes");
  EXPECT_EQ(problem(FieldKind::kNpy, npy(floats, "").substr(0, 12)),
            "a NumPy .npy array cut short in its header");
  EXPECT_NE(problem(FieldKind::kNpy, "PK\x03\x04 a zip"), "");
  EXPECT_EQ(problem(FieldKind::kBytes, "\xff anything"), "");
}

}  // namespace
}  // namespace feedrate
