// Reads the AWS shared files (~/.aws/credentials and ~/.aws/config) the way the AWS CLI does:
// "[section]" headers, "key = value" lines, '#' and ';' comment lines, and the indented
// sub-settings of a key with an empty value ("s3 =" then "  endpoint_url = ..."), which are
// stored as "s3.endpoint_url". Generic INI readers join such indented lines into the previous
// value instead, hence this small reader. Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace feedrate::io {

using AwsConfigSection = std::map<std::string, std::string>;

struct AwsConfigFile {
  bool found = false;  // false when the file does not exist (not an error: the chain moves on)
  std::map<std::string, AwsConfigSection> sections;  // by the name between the brackets
};

// Throws std::runtime_error, naming the file and line, for a file that exists but cannot be
// read, or a line that is neither a section, a setting nor a comment. Values are never quoted
// in the message (they may be secrets).
AwsConfigFile read_aws_config_file(const std::filesystem::path& path);

}  // namespace feedrate::io
