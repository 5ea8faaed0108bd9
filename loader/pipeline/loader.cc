#include "feedrate/loader.h"

#include "loader/pipeline/pipeline.h"

namespace feedrate {

Loader::Loader(const LoaderOptions& options) : pipeline_(std::make_unique<Pipeline>(options)) {}
Loader::~Loader() = default;

const LoaderOptions& Loader::options() const {
  return pipeline_->options();
}
const Dataset& Loader::dataset() const {
  return pipeline_->dataset();
}
std::size_t Loader::samples_per_epoch() const {
  return pipeline_->samples_per_epoch();
}
std::size_t Loader::batches_per_epoch() const {
  return pipeline_->batches_per_epoch();
}
void Loader::start_epoch(std::uint64_t epoch) {
  pipeline_->start_epoch(epoch);
}
std::optional<Batch> Loader::next() {
  return pipeline_->next({});
}
std::optional<Batch> Loader::next(const std::function<void()>& while_waiting) {
  return pipeline_->next(while_waiting);
}
LoaderState Loader::state() const {
  return pipeline_->state();
}
void Loader::load_state(const LoaderState& state, bool allow_dataset_change) {
  pipeline_->load_state(state, allow_dataset_change);
}
RunStats Loader::stats() const {
  return pipeline_->stats();
}
Report Loader::report() const {
  return pipeline_->report();
}
const TraceRecorder& Loader::trace() const {
  return pipeline_->trace();
}

}  // namespace feedrate
