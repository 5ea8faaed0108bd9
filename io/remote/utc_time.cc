#include "io/remote/utc_time.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace feedrate::io {
namespace {

// The digits of text[at, at + count) as a number, or -1 when they are not all digits.
int digits(const std::string& text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool separator(const std::string& text, std::size_t at, char expected) {
  return at < text.size() && text[at] == expected;
}

}  // namespace

WallTime parse_utc_time(const std::string& text) {
  const std::invalid_argument bad("not an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ)");
  std::tm fields{};
  const int year = digits(text, 0, 4);
  const int month = digits(text, 5, 2);
  const int day = digits(text, 8, 2);
  const int hour = digits(text, 11, 2);
  const int minute = digits(text, 14, 2);
  const int second = digits(text, 17, 2);
  const bool date_time =
      (separator(text, 10, 'T') || separator(text, 10, 't') || separator(text, 10, ' '));
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 60 || !separator(text, 4, '-') ||
      !separator(text, 7, '-') || !date_time || !separator(text, 13, ':') ||
      !separator(text, 16, ':')) {
    throw bad;
  }
  std::size_t at = 19;
  if (separator(text, at, '.')) {
    ++at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
  }
  long offset_seconds = 0;
  if (at + 1 == text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (text.compare(at, std::string::npos, "UTC") == 0) {
    at += 3;  // as older AWS CLIs wrote the SSO token cache's expiresAt
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') &&
             separator(text, at + 3, ':')) {
    const int offset_hours = digits(text, at + 1, 2);
    const int offset_minutes = digits(text, at + 4, 2);
    if (offset_hours < 0 || offset_hours > 23 || offset_minutes < 0 || offset_minutes > 59) {
      throw bad;
    }
    offset_seconds = (offset_hours * 60L + offset_minutes) * 60L * (text[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    throw bad;  // no zone: the time would be a guess
  }
  fields.tm_year = year - 1900;
  fields.tm_mon = month - 1;
  fields.tm_mday = day;
  fields.tm_hour = hour;
  fields.tm_min = minute;
  fields.tm_sec = second;
  const std::time_t utc = ::timegm(&fields);
  return std::chrono::system_clock::from_time_t(utc - offset_seconds);
}

std::string format_utc_time(WallTime time) {
  const std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm fields{};
  ::gmtime_r(&seconds, &fields);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &fields);
  return text;
}

}  // namespace feedrate::io
