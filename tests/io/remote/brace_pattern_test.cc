// WebDataset brace patterns: zero-padded ranges, lists, several groups, and clear errors.
#include "io/remote/brace_pattern.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace feedrate::io {
namespace {

using Names = std::vector<std::string>;

TEST(BracePattern, ExpandsZeroPaddedRanges) {
  const auto names = expand_braces("s3://b/train-{000000..001023}.tar");
  ASSERT_EQ(names.size(), 1024u);
  EXPECT_EQ(names.front(), "s3://b/train-000000.tar");
  EXPECT_EQ(names[7], "s3://b/train-000007.tar");
  EXPECT_EQ(names.back(), "s3://b/train-001023.tar");
  EXPECT_EQ(expand_braces("x{8..11}"), (Names{"x8", "x9", "x10", "x11"}));
  EXPECT_EQ(expand_braces("x{09..11}"), (Names{"x09", "x10", "x11"}));
  EXPECT_EQ(expand_braces("x{3..1}"), (Names{"x3", "x2", "x1"}));
  EXPECT_EQ(expand_braces("x{5..5}"), (Names{"x5"}));
}

TEST(BracePattern, ExpandsListsAndSeveralGroups) {
  EXPECT_EQ(expand_braces("{train,val}-{0..1}.tar"),
            (Names{"train-0.tar", "train-1.tar", "val-0.tar", "val-1.tar"}));
  EXPECT_EQ(expand_braces("a{,b}"), (Names{"a", "ab"}));
  EXPECT_EQ(expand_braces("plain.tar"), (Names{"plain.tar"}));
  EXPECT_FALSE(has_brace_pattern("plain.tar"));
  EXPECT_TRUE(has_brace_pattern("x{1..2}"));
}

void expect_error(const std::string& pattern, const std::string& fragment) {
  try {
    expand_braces(pattern, 1000);
    ADD_FAILURE() << pattern << " expanded";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'" + pattern + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(BracePattern, ReportsMalformedPatterns) {
  expect_error("a{1..3", "at character 2: '{' without a matching '}'");
  expect_error("a}b", "at character 2: '}' without a matching '{'");
  expect_error("{a,{b,c}}", "nested braces");
  expect_error("x{abc}", "a range {A..B} or a list {a,b}");
  expect_error("x{1..z}", "two non-negative integers");
  expect_error("x{-1..3}", "two non-negative integers");
  expect_error("x{0..1000}", "more than 1000 names");
  expect_error("{0..99}{0..99}", "more than 1000 names");
  expect_error("x{0..99999999999999999999}", "too large");
}

}  // namespace
}  // namespace feedrate::io
