// CsvReader: RFC 4180 records (quoted fields with commas, line breaks and doubled quotes, CRLF
// or LF), the lines records start on, and the errors that name file and line.
#include "loader/dataset/csv_reader.h"

#include <gtest/gtest.h>

#include "feedrate/error.h"

namespace feedrate {
namespace {

using Records = std::vector<std::vector<std::string>>;

Records read_all(std::string_view text, std::vector<std::size_t>* lines = nullptr) {
  CsvReader reader(text, "m.csv");
  Records records;
  std::vector<std::string> fields;
  while (reader.next(fields)) {
    records.push_back(fields);
    if (lines != nullptr) lines->push_back(reader.line());
  }
  return records;
}

std::string error_of(std::string_view text) {
  try {
    read_all(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CsvReader, PlainRecordsWithLfOrCrlf) {
  EXPECT_EQ(read_all("a,b\n1,2\n"), (Records{{"a", "b"}, {"1", "2"}}));
  EXPECT_EQ(read_all("a,b\r\n1,2\r\n"), (Records{{"a", "b"}, {"1", "2"}}));
  EXPECT_EQ(read_all("a,b\n1,2"), (Records{{"a", "b"}, {"1", "2"}}));  // no final line break
}

TEST(CsvReader, EmptyFieldsAndTrailingCommas) {
  EXPECT_EQ(read_all(",x,\n"), (Records{{"", "x", ""}}));
  EXPECT_EQ(read_all("a,"), (Records{{"a", ""}}));
  EXPECT_EQ(read_all("\"\",b\n"), (Records{{"", "b"}}));
}

TEST(CsvReader, QuotedFieldsHoldCommasLineBreaksAndQuotes) {
  const std::string text =
      "path,caption\n"
      "a.jpg,\"a cat, sitting\"\n"
      "b.jpg,\"two\r\nlines\"\n"
      "c.jpg,\"she said \"\"hi\"\"\"\n";
  std::vector<std::size_t> lines;
  EXPECT_EQ(read_all(text, &lines), (Records{{"path", "caption"},
                                             {"a.jpg", "a cat, sitting"},
                                             {"b.jpg", "two\r\nlines"},
                                             {"c.jpg", "she said \"hi\""}}));
  // The record after the quoted line break starts a line later.
  EXPECT_EQ(lines, (std::vector<std::size_t>{1, 2, 3, 5}));
}

TEST(CsvReader, BlankLinesHoldNoRecordAndAByteOrderMarkIsDropped) {
  std::vector<std::size_t> lines;
  EXPECT_EQ(read_all("\xEF\xBB\xBFh\n\n\r\nv\n\n", &lines), (Records{{"h"}, {"v"}}));
  EXPECT_EQ(lines, (std::vector<std::size_t>{1, 4}));
  EXPECT_TRUE(read_all("").empty());
}

TEST(CsvReader, AQuoteInsideAnUnquotedFieldIsKept) {
  EXPECT_EQ(read_all("5\" disk,x\n"), (Records{{"5\" disk", "x"}}));
}

TEST(CsvReader, UnclosedQuoteAndTextAfterAClosingQuoteNameTheLine) {
  EXPECT_EQ(error_of("a,b\n1,\"open\nstill open\n"),
            "m.csv:2: a quoted field is never closed (no matching '\"' before the end)");
  EXPECT_EQ(error_of("a\n\"x\"y,z\n"),
            "m.csv:2: text after a quoted field's closing '\"' (a quote inside a quoted field is "
            "written \"\")");
}

}  // namespace
}  // namespace feedrate
