// A run's figures as plain data, and the library's verdict of such figures: what feedrate.ray
// judges each of its parts by (python/feedrate/_ray_diagnosis.py). A read task hands its Loader's
// figures (figures_of) to the driver, which has them judged there (judge_figures) by the
// library's one diagnosis, as Loader.report() is (loader/diagnosis/diagnose.h).
// The figures are the Report's fields the diagnosis reads, under their C++ names:
//   {"run": RunSetting, "wall_s", "images", "consumer_ms_per_batch", "figures": RunFigures,
//    "store": StoreFigures (its bands "by_in_flight": [StoreBand, ...]), "cache_enabled"}.
// A field left out keeps its default (zero); an unknown one or one of the wrong type is a
// ValueError naming it. Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include "feedrate/report.h"

namespace feedrate::python {

pybind11::dict figures_of(const Report& report);

// {"verdict": as Loader.report()["verdict"], "capacities": as Loader.report()["capacities"]}.
pybind11::dict judge_figures(const pybind11::dict& figures);

}  // namespace feedrate::python
