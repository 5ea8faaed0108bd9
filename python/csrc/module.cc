// feedrate._C, the extension under the Python package feedrate (python/feedrate/): the native
// Loader over the C++ API, feedrate.Error, gather_verdicts and the test hooks of
// augment_probe.h. The package's Loader (python/feedrate/_loader.py) subclasses _C.Loader and
// gives it transform= as a spec text; what is Python-shaped (reading a torchvision Compose,
// torchvision's channels-first permute, DataLoader) lives in the package's .py files. Only
// options.cc's branch for a transform that is no str still imports the package back, and the
// package never takes it.
//
// The GIL is released while the loader waits for a batch; every few milliseconds of waiting it
// is taken back to check for signals, so Ctrl-C raises KeyboardInterrupt promptly and the next
// iteration continues where the interrupted one stopped. feedrate.Error (a RuntimeError) carries
// the loader's message, naming the file and what is wrong. Thread-safety: one thread iterates a
// Loader at a time (another one gets a RuntimeError); every call holds the GIL on entry.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "feedrate/loader_state.h"
#include "loader/diagnosis/packing_probe.h"
#include "python/csrc/augment_probe.h"
#include "python/csrc/diagnosis.h"
#include "python/csrc/options.h"
#include "python/csrc/report.h"
#include "python/csrc/tensors.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

// Raises KeyboardInterrupt (or whatever a signal handler raised) on the waiting thread.
void check_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

class PyLoader {
 public:
  PyLoader(const py::object& source, const py::kwargs& kwargs)
      : options_(parse_options(source, kwargs)), arrays_(resolve_arrays(options_.arrays)) {
    py::gil_scoped_release unlocked;  // indexing a large dataset takes a while
    loader_ = std::make_unique<Loader>(options_.loader);
  }

  std::size_t length() const { return loader_->batches_per_epoch(); }
  void set_epoch(std::uint64_t epoch) { next_epoch_ = epoch; }

  // Starts the next epoch; returns its generation, which an iterator checks to notice that a
  // newer iter() replaced it.
  std::uint64_t start_epoch() {
    Busy busy(*this);
    epoch_ = next_epoch_++;
    {
      py::gil_scoped_release unlocked;
      loader_->start_epoch(epoch_);
    }
    delivered_ = loader_->state().batches_received;  // > 0 when a restored epoch continues
    in_epoch_ = true;
    return ++generation_;
  }

  // torchdata's StatefulDataLoader names and semantics: plain data (JSON-serialisable,
  // torch.save-able) saying which epoch the next iter() runs and, within an unfinished epoch,
  // how many batches were received; load_state_dict() makes the next iter() continue there.
  py::dict state_dict() const {
    const py::module_ json = py::module_::import("json");
    py::dict state;
    state["loader"] = json.attr("loads")(loader_->state().to_json());
    state["in_epoch"] = in_epoch_;
    state["next_epoch"] = in_epoch_ ? epoch_ : next_epoch_;
    return state;
  }

  void load_state_dict(const py::dict& state) {
    Busy busy(*this);
    for (const char* key : {"loader", "in_epoch", "next_epoch"}) {
      if (!state.contains(key)) {
        throw Error(std::string("load_state_dict: the state has no '") + key +
                    "' (not a feedrate.Loader state_dict?)");
      }
    }
    const LoaderState loaded = LoaderState::from_json(
        py::module_::import("json").attr("dumps")(state["loader"]).cast<std::string>());
    const auto next_epoch = state["next_epoch"].cast<std::uint64_t>();
    const bool in_epoch = state["in_epoch"].cast<bool>();
    if (in_epoch && next_epoch != loaded.epoch) {
      throw Error("load_state_dict: next_epoch " + std::to_string(next_epoch) +
                  " differs from the saved epoch " + std::to_string(loaded.epoch));
    }
    {
      py::gil_scoped_release unlocked;
      loader_->load_state(loaded);  // checks the dataset and options even between epochs
    }
    next_epoch_ = next_epoch;
    in_epoch_ = false;
    ++generation_;  // an iterator of the epoch before is over
  }

  py::tuple next(std::uint64_t generation) {
    if (generation != generation_) {
      throw py::stop_iteration();  // a newer iter() started another epoch
    }
    Busy busy(*this);
    std::optional<Batch> batch;
    {
      py::gil_scoped_release unlocked;
      batch = loader_->next(check_signals);
    }
    if (!batch) {
      if (options_.progress) progress_.finish(*loader_, epoch_, delivered_);
      in_epoch_ = false;
      throw py::stop_iteration();
    }
    ++delivered_;
    if (options_.progress) progress_.update(*loader_, epoch_, delivered_);
    return to_python(*batch, arrays_, options_);
  }

  py::dict report(bool probe_packing) const {
    Report report = loader_->report();
    if (probe_packing) {
      py::gil_scoped_release release;  // a fraction of a second of decoding
      add_packing(report, probe_packed_decode(loader_->dataset(), loader_->options().transform));
    }
    return report_dict(report, loader_->stats());
  }
  py::dict figures() const { return figures_of(loader_->report()); }
  const Loader& loader() const { return *loader_; }
  std::uint64_t epoch() const { return epoch_; }
  std::string arrays() const { return arrays_ == ArrayKind::kTorch ? "torch" : "numpy"; }

 private:
  // One thread at a time: the loader has a single consumer.
  class Busy {
   public:
    explicit Busy(PyLoader& owner) : owner_(owner) {
      if (owner_.busy_.exchange(true)) {
        throw std::runtime_error("feedrate.Loader is being iterated by another thread");
      }
    }
    ~Busy() { owner_.busy_ = false; }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    PyLoader& owner_;
  };

  PythonOptions options_;
  ArrayKind arrays_;
  std::unique_ptr<Loader> loader_;
  std::uint64_t next_epoch_ = 0;
  std::uint64_t epoch_ = 0;
  std::uint64_t generation_ = 0;
  std::size_t delivered_ = 0;
  bool in_epoch_ = false;  // an epoch started and not exhausted
  ProgressLine progress_;
  std::atomic<bool> busy_{false};
};

// What iter(loader) returns: one epoch.
struct EpochIterator {
  py::object owner;  // keeps the PyLoader alive
  PyLoader* loader;
  std::uint64_t generation;
};

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "feedrate's native core: use the package feedrate, not this module.";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);

  py::class_<EpochIterator>(m, "_Epoch")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](EpochIterator& it) { return it.loader->next(it.generation); });

  // The options and their errors: python/csrc/options.h; the documentation: feedrate.Loader.
  py::class_<PyLoader>(m, "Loader",
                       "The native loader under feedrate.Loader: transform= is a spec text.")
      .def(py::init<const py::object&, const py::kwargs&>(), py::arg("source"))
      .def("__len__", &PyLoader::length)
      .def("set_epoch", &PyLoader::set_epoch, py::arg("epoch"))
      .def("__iter__",
           [](py::object self) {
             auto& loader = self.cast<PyLoader&>();
             const std::uint64_t generation = loader.start_epoch();
             return EpochIterator{self, &loader, generation};
           })
      .def("state_dict", &PyLoader::state_dict,
           "The loader's state for a checkpoint (torchdata StatefulDataLoader semantics): plain "
           "data; batches still prefetching do not count as received.")
      .def("load_state_dict", &PyLoader::load_state_dict, py::arg("state_dict"),
           "Makes the next iter() continue the saved epoch from the saved point (or start the "
           "epoch after a finished one). Another world size deals the rest of the epoch among "
           "the new ranks. Raises feedrate.Error naming what differs when the dataset, "
           "batch_size, seed, shuffle, drop_last or pad_shards do not match.")
      .def("report", &PyLoader::report, py::arg("probe_packing") = false,
           "The verdict (what holds training back), every resource's capacity, the per-stage "
           "figures and the run's per-image costs (a `feedrate plan` input once saved as JSON), "
           "as a dict. probe_packing=True also measures what packing the dataset (`feedrate "
           "pack`) would save, on a few of its JPEGs (a fraction of a second), and adds that "
           "advice to a cpu verdict.")
      .def("_figures", &PyLoader::figures,
           "The run's figures as plain data, for _diagnose() (python/csrc/diagnosis.h).")
      .def_property_readonly("epoch", &PyLoader::epoch)
      .def_property_readonly("arrays", &PyLoader::arrays)
      .def_property_readonly("classes",
                             [](const PyLoader& l) { return l.loader().dataset().classes(); })
      .def_property_readonly("class_to_idx",
                             [](const PyLoader& l) {
                               py::dict d;
                               const auto& classes = l.loader().dataset().classes();
                               for (std::size_t i = 0; i < classes.size(); ++i) {
                                 d[py::str(classes[i])] = i;
                               }
                               return d;
                             })
      .def_property_readonly("num_samples",
                             [](const PyLoader& l) { return l.loader().samples_per_epoch(); })
      .def_property_readonly("rank", [](const PyLoader& l) { return l.loader().options().rank; })
      .def_property_readonly("world_size",
                             [](const PyLoader& l) { return l.loader().options().world_size; });
  m.def(
      "gather_verdicts",
      [](const PyLoader& loader, py::object dist) {
        return gather_verdicts(loader.report(false), std::move(dist));
      },
      py::arg("loader"), py::arg("dist") = py::none(), R"doc(
Every rank's verdict, and which rank is slowest and why. With torch.distributed initialised
(a collective: call it on every rank), it gathers each rank's loader.report() verdict with
all_gather_object; otherwise it returns this rank's alone. dist: torch.distributed by default.
Returns {"ranks": [{"rank", "world_size", "images_per_s", "bottleneck", "stall_fraction",
"advice"}, ...], "slowest": <the rank with the fewest images/s>, "summary": "rank 1 of 2 is the
slowest: 812 images/s, bottleneck io: ..."}.
)doc");
  m.def("_diagnose", &judge_figures, py::arg("figures"),
        "The library's verdict and capacities of a run's figures (Loader._figures()).");
  m.attr("option_names") = option_names();
  m.def("_option_table", &option_table,
        "{keyword: (annotation, default)} of every keyword Loader takes (python/csrc/options.h).");
  m.attr("__version__") = FEEDRATE_VERSION;
  register_augment_probe(m);
}

}  // namespace feedrate::python
