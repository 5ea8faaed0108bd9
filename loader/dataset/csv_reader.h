// CSV records as RFC 4180 writes them (loader/dataset/manifest.cc reads manifests with it):
// fields separated by commas, records by CRLF or LF; a field in double quotes may hold commas,
// line breaks and quotes (doubled: "" is one "). A quote inside an unquoted field is kept as it
// is (Python's csv module reads it so), a byte order mark before the first record is dropped,
// and a blank line holds no record.
//
// Thread-safety: one reader per thread; it keeps a view of `text`, which must outlive it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace feedrate {

class CsvReader {
 public:
  // `name` prefixes the errors ("manifest.csv").
  CsvReader(std::string_view text, std::string name);

  // The next record's fields into `fields`; false after the last one. Throws feedrate::Error
  // naming name:line for a quoted field left open or text after a field's closing quote.
  bool next(std::vector<std::string>& fields);
  // The line (1-based) where the record next() returned begins.
  std::size_t line() const { return record_line_; }

 private:
  bool at_record_end() const;
  void end_record();  // consumes the line break at_record_end() found, if any
  void quoted(std::string& field);
  void unquoted(std::string& field);

  std::string_view text_;
  std::string name_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
  std::size_t record_line_ = 0;
};

}  // namespace feedrate
