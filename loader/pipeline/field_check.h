// The decode stage's check of a sample's field members (internal to loader/): what is wrong
// with a member's bytes for its kind, so that on_bad decides on a decode thread and the consumer
// turns only good values into Python objects (or reads them through Batch::field).
//
//   text     valid UTF-8, as Python's strict decoder takes it (no overlong forms, no
//            surrogates, nothing above U+10FFFF)
//   json     one JSON value (RFC 8259, nlohmann::json's parser; a UTF-8 byte order mark is
//            allowed, as Python's json.loads(bytes) reads one too)
//   integer  a decimal int64, surrounding ASCII white space allowed (WebDataset's .cls text)
//   npy      the NumPy format's magic, version and a header that fits the member
//   bytes    anything
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "feedrate/fields.h"

namespace feedrate {

// What is wrong with `bytes` as a member of `kind`, or an empty string.
std::string field_problem(FieldKind kind, std::span<const std::uint8_t> bytes);

// The value of an integer member that field_problem accepted.
std::int64_t integer_value(std::span<const std::uint8_t> bytes);

}  // namespace feedrate
