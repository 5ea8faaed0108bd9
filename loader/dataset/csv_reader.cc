#include "loader/dataset/csv_reader.h"

#include <utility>

#include "feedrate/error.h"

namespace feedrate {

CsvReader::CsvReader(std::string_view text, std::string name)
    : text_(text), name_(std::move(name)) {
  if (text_.starts_with("\xEF\xBB\xBF")) at_ = 3;
}

bool CsvReader::at_record_end() const {
  return at_ == text_.size() || text_[at_] == '\n' ||
         (text_[at_] == '\r' && at_ + 1 < text_.size() && text_[at_ + 1] == '\n');
}

void CsvReader::end_record() {
  if (at_ == text_.size()) return;
  at_ += text_[at_] == '\r' ? 2 : 1;
  ++line_;
}

void CsvReader::quoted(std::string& field) {
  const std::size_t opened = line_;
  ++at_;  // the opening quote
  for (;;) {
    const std::size_t quote = text_.find('"', at_);
    if (quote == std::string_view::npos) {
      throw Error(name_ + ":" + std::to_string(opened) +
                  ": a quoted field is never closed (no matching '\"' before the end)");
    }
    const std::string_view part = text_.substr(at_, quote - at_);
    for (char c : part) line_ += c == '\n' ? 1 : 0;
    field += part;
    at_ = quote + 1;
    if (at_ < text_.size() && text_[at_] == '"') {  // "" is one quote
      field += '"';
      ++at_;
      continue;
    }
    if (at_ < text_.size() && text_[at_] != ',' && !at_record_end()) {
      throw Error(name_ + ":" + std::to_string(line_) +
                  ": text after a quoted field's closing '\"' (a quote inside a quoted field "
                  "is written \"\")");
    }
    return;
  }
}

void CsvReader::unquoted(std::string& field) {
  while (at_ < text_.size() && text_[at_] != ',' && !at_record_end()) field += text_[at_++];
}

bool CsvReader::next(std::vector<std::string>& fields) {
  while (at_ < text_.size() && at_record_end()) end_record();  // blank lines
  if (at_ == text_.size()) return false;
  record_line_ = line_;
  fields.clear();
  for (;;) {
    std::string& field = fields.emplace_back();
    if (text_[at_] == '"') {
      quoted(field);
    } else {
      unquoted(field);
    }
    if (at_ < text_.size() && text_[at_] == ',') {
      ++at_;
      if (at_ == text_.size()) {  // a trailing comma ends the text: one more, empty field
        fields.emplace_back();
        return true;
      }
      continue;
    }
    end_record();
    return true;
  }
}

}  // namespace feedrate
