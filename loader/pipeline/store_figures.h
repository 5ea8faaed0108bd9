// The remote read-ahead's figures as the report carries them (Report::store): the fetcher's
// counts and rates, the requests it may keep in flight and the store's scheme (internal to
// loader/).
// Thread-safety: store_figures() may be called from any thread (ReadAheadRunner::stats()).
#pragma once

#include "feedrate/report.h"
#include "loader/pipeline/read_ahead_runner.h"

namespace feedrate {

StoreFigures store_figures(const ReadAheadRunner& read_ahead);

}  // namespace feedrate
