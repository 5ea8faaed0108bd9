// The timestamps of the AWS credential sources: ISO 8601 / RFC 3339 in UTC or with an offset
// ("2026-12-02T15:04:05Z", "2026-12-02T15:04:05.123+00:00"), or with the zone "UTC" as older AWS
// CLIs wrote the SSO token cache ("2026-12-02T15:04:05UTC"), to and from WallTime.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "io/remote/aws_credentials.h"

namespace feedrate::io {

// Throws std::invalid_argument for text that is not such a timestamp (the text is not quoted:
// it comes next to secrets).
WallTime parse_utc_time(const std::string& text);
// "2026-12-02T15:04:05Z", whole seconds.
std::string format_utc_time(WallTime time);

}  // namespace feedrate::io
