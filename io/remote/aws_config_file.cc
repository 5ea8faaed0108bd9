#include "io/remote/aws_config_file.h"

#include <fstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace feedrate::io {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

}  // namespace

AwsConfigFile read_aws_config_file(const std::filesystem::path& path) {
  AwsConfigFile file;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read AWS config file " + path.string());
  file.found = true;
  AwsConfigSection* section = nullptr;
  std::string parent;  // the key whose indented sub-settings follow, empty when none
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto text = trim(line);
    if (text.empty() || text.front() == '#' || text.front() == ';') continue;
    const bool indented = line.front() == ' ' || line.front() == '\t';
    if (text.front() == '[') {
      if (text.back() != ']') {
        throw std::runtime_error(path.string() + ":" + std::to_string(number) +
                                 ": a section header needs a closing ']'");
      }
      section = &file.sections[std::string(trim(text.substr(1, text.size() - 2)))];
      parent.clear();
      continue;
    }
    const auto equals = text.find('=');
    if (equals == std::string_view::npos || section == nullptr) {
      throw std::runtime_error(path.string() + ":" + std::to_string(number) +
                               ": expected '[section]' or 'key = value'");
    }
    const std::string key(trim(text.substr(0, equals)));
    const std::string value(trim(text.substr(equals + 1)));
    if (indented && !parent.empty()) {
      (*section)[parent + "." + key] = value;
      continue;
    }
    parent = value.empty() ? key : std::string();
    if (!value.empty()) (*section)[key] = value;
  }
  if (in.bad()) throw std::runtime_error("error reading AWS config file " + path.string());
  return file;
}

}  // namespace feedrate::io
