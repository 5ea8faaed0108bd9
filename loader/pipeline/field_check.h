// The decode stage's check of a sample's field members (internal to loader/): what is wrong
// with a member's bytes for its kind, so that on_bad decides on a decode thread and the consumer
// turns only good values into Python objects (or reads them through Batch::field).
//
//   text     valid UTF-8, as Python's strict decoder takes it (no overlong forms, no
//            surrogates, nothing above U+10FFFF)
//   json     one JSON value as Python's json.loads reads it (json_text.h)
//   integer  a decimal int64, surrounding ASCII white space allowed (WebDataset's .cls text)
//   npy      an array numpy.load reads without pickle (npy_member.h)
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
