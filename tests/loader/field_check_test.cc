// The decode stage's check of field members: UTF-8 as Python's strict decoder takes it, JSON,
// decimal integers and the .npy header.
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

TEST(FieldCheck, JsonIsOneValue) {
  EXPECT_EQ(problem(FieldKind::kJson, R"({"caption": "a", "w": [1, 2.5e3, null]})"), "");
  EXPECT_EQ(problem(FieldKind::kJson, "\xef\xbb\xbf{}"), "");  // a byte order mark
  EXPECT_EQ(problem(FieldKind::kJson, "{'single': 1}"), "not JSON");
  EXPECT_EQ(problem(FieldKind::kJson, "{} {}"), "not JSON");
  EXPECT_EQ(problem(FieldKind::kJson, ""), "not JSON");
}

TEST(FieldCheck, IntegersAreDecimal) {
  EXPECT_EQ(problem(FieldKind::kInteger, " 42\n"), "");
  EXPECT_EQ(problem(FieldKind::kInteger, "-7"), "");
  EXPECT_EQ(integer_value({reinterpret_cast<const std::uint8_t*>(" 42\n"), 4}), 42);
  EXPECT_EQ(problem(FieldKind::kInteger, "4 2"), "not a decimal integer");
  EXPECT_EQ(problem(FieldKind::kInteger, ""), "not a decimal integer");
  EXPECT_EQ(problem(FieldKind::kInteger, "99999999999999999999"), "not a decimal integer");
}

TEST(FieldCheck, NpyNeedsItsHeader) {
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + std::string("\x06\x00", 2) + "{...}\n";
  EXPECT_EQ(problem(FieldKind::kNpy, npy), "");
  EXPECT_NE(problem(FieldKind::kNpy, npy.substr(0, 12)), "");
  EXPECT_NE(problem(FieldKind::kNpy, "PK\x03\x04 a zip"), "");
  EXPECT_EQ(problem(FieldKind::kBytes, "\xff anything"), "");
}

}  // namespace
}  // namespace feedrate
