// The verdict in sentences, for people: one summary sentence, one line per advice and one line
// of capacities. The verdict itself is data (Report::verdict, include/feedrate/report.h); these
// renderings are read by the command line's text, the JSON document (its `summary` and advice
// `text`, loader/diagnosis/report_document.h) and so by Python, which all print the same words.
// A front-end header: the contract is the functions' inputs and the sentences' shape below; the
// exact wording may change between releases. Thread-safety: pure functions.
#pragma once

#include <string>

#include "feedrate/report.h"

namespace feedrate {

// One sentence: the binding resource, what it delivers, and how much more the runner-up
// could do, e.g. "cpu: the 2 decode threads deliver 1,194 images/s; the disk could do 9.0x
// more"; "nothing measured yet" before any batch. Needs report.capacities and report.verdict.
std::string verdict_summary(const Report& report);
// How a front end writes an option an advice sets: the command line "--shuffle blocks"
// (bench/cli/loader_args.h), Python `shuffle="blocks"` (python/csrc/report.h).
using OptionSpelling = std::string (*)(const OptionSetting& setting);

// The remedy with {0}, {1}, ... replaced by its settings as `spell` writes them.
std::string remedy_text(const Advice& advice, OptionSpelling spell);
// One advice line for people: the cause; then the remedy, "about N images/s (R.Rx now)" against
// `delivered`, and "costs: ...".
std::string advice_text(const Advice& advice, double delivered, OptionSpelling spell);
// "io 1,500 images/s (binds) · cpu 2,150 (1.4x) · ram 4,800 (3.2x) · h2d not measured · ..."
std::string capacities_text(const Capacities& capacities, const Verdict& verdict);

}  // namespace feedrate
