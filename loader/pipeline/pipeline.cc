#include "loader/pipeline/pipeline.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "decode/detection_transform.h"
#include "feedrate/error.h"
#include "gpu/trace.h"
#include "io/direct_io.h"
#include "io/throttle.h"
#include "loader/dataset/annotations/annotation_table.h"
#include "loader/diagnosis/diagnose.h"
#include "loader/host/system_info.h"
#include "loader/pipeline/detection_sizing.h"
#include "loader/pipeline/memory_budget.h"
#include "loader/pipeline/run_setting.h"
#include "loader/pipeline/sampler.h"

namespace feedrate {
namespace {

using detail::Slot;
using Clock = io::Clock;

io::ReaderOptions reader_options(const LoaderOptions& options, Clock& clock) {
  io::ReaderOptions reader;
  reader.clock = &clock;
  reader.queue_depth = options.io_queue_depth;
  reader.force_pread = options.force_pread;
  reader.direct_io = options.direct_io;
  if (!options.throttle.empty()) {
    reader.throttle = io::parse_throttle(options.throttle);  // checked by resolve()
  }
  return reader;
}

// What the loader holds besides its slots: the reader's O_DIRECT bounce buffers (as many as
// reads in flight, each as long as the longest aligned read, capped by the reader) and each
// worker's float scratch.
double shared_buffer_bytes(const LoaderOptions& options, const Dataset& dataset,
                           bool decode_to_u8) {
  double bytes = 0;
  if (options.direct_io) {
    std::uint64_t longest = 0;
    if (dataset.files_are_shared() && options.tar_chunk_bytes > 0) {
      longest = options.tar_chunk_bytes;
    } else {
      for (std::size_t i = 0; i < dataset.size(); ++i) {
        longest = std::max(longest, dataset.sample(i).size);
      }
    }
    constexpr double kAlignmentSlack = 2 * 4096.0;  // a piece starts and ends on a boundary
    bytes += std::min(static_cast<double>(io::BounceBuffers::kMaxTotalBytes),
                      options.io_queue_depth * (static_cast<double>(longest) + kAlignmentSlack));
  }
  if (!decode_to_u8) {
    const double pixels = static_cast<double>(options.transform.size) * options.transform.size;
    bytes += std::max(1, options.num_workers) * pixels * 3;
  }
  return bytes;
}

}  // namespace

Pipeline::Pipeline(const LoaderOptions& options, const ReaderFactory& make_reader,
                   const PackCacheHooks& cache_hooks, Clock& clock)
    : clock_(clock),
      options_(resolve(options)),
      fills_(options_.on_bad == BadInputPolicy::kSkip && !options_.detection.varies()),
      dataset_(Dataset::open(options_.source, options_.allow_paths_outside_root,
                             options_.allow_empty_classes, SampleSpec::of(options_))),
      plan_(dataset_, options_),
      trace_(options_.trace, clock_.now()) {
  if (options_.detection.varies() && !decode::steps_size(options_.detection.steps).bounded) {
    options_.transform.size = options_.transform.resize = detection_buffer_size(options_, dataset_);
  }
  // The pack cache holds transcoded images only: samples that read fields skip it.
  if (!options_.cache_dir.empty() && !dataset_.is_remote() && dataset_.member_fields() == 0) {
    // The decode threads that can run at once; the writer starts with the first epoch, once the
    // telemetry it reads exists. (A remote source's cache_dir is its reader's: remote_reads.h.)
    const int cores = std::max(1, std::min(options_.num_workers, cpu_info().available));
    cache_ = std::make_unique<PackCache>(
        options_, dataset_, [this, cores] { return telemetry_->pacing(cores); }, cache_hooks,
        clock_);
  }
  reader_ = std::make_unique<BatchReader>(dataset_, options_, reader_options(options_, clock_),
                                          make_reader, cache_.get());

  if (options_.num_workers > 0) {
    // The arena's workers plus a caller's slot: see thread_limit.h.
    thread_limit_ =
        std::make_unique<ThreadLimit>(static_cast<std::size_t>(options_.num_workers) + 1);
    arena_ = std::make_unique<tbb::task_arena>(options_.num_workers, 0);
  }

  gpu::TransferOptions transfer;
  transfer.device = gpu::parse_device(options_.device);
  // Decoders write uint8 when the device converts or uint8 is wanted, else the floats.
  const bool decode_to_u8 =
      gpu::converts_on_device(transfer.device) || options_.layout == OutputLayout::kUint8NHWC;
  const std::size_t sample_bytes =
      SampleDecoder::bytes_per_sample(options_.transform.size, decode_to_u8);
  MemoryNeeds needs;
  needs.batch_size = options_.batch_size;
  const DetectionBytes detection = detection_bytes(options_, dataset_);
  needs.staging_bytes_per_sample = static_cast<double>(sample_bytes) + detection.per_sample;
  needs.encoded_bytes_per_sample =
      static_cast<double>(dataset_.total_bytes()) / static_cast<double>(dataset_.size());
  needs.tar_members = dataset_.files_are_shared();
  needs.shared_bytes = shared_buffer_bytes(options_, dataset_, decode_to_u8) +
                       static_cast<double>(reader_->held_bytes_limit()) +
                       std::max(1, options_.num_workers) * detection.per_worker;
  const MemoryInfo memory = memory_info();
  options_.prefetch_batches = slots_within_budget(needs, options_.prefetch_batches,
                                                  options_.memory_budget_mb, memory.limit_bytes);

  transfer.slots = options_.prefetch_batches;
  transfer.batch_size = options_.batch_size;
  transfer.size = options_.transform.size;
  transfer.dtype = detail::element_type(options_.layout);
  transfer.mean = options_.transform.normalization.mean;
  transfer.std = options_.transform.normalization.std;
  std::unique_ptr<gpu::Transfer> copier;
  try {
    copier = gpu::make_transfer(transfer);
  } catch (const std::exception& e) {
    throw Error(std::string("option device: ") + e.what());
  }
  ring_ = std::make_shared<SlotRing>(std::move(copier), options_.prefetch_batches,
                                     options_.batch_size, sample_bytes, options_.layout,
                                     options_.transform.size, transfer.device);

  RunSetting run = describe_run(
      {options_, dataset_, sample_bytes, cpu_info(), memory, *reader_, transfer.device.name()});
  telemetry_ = std::make_unique<Telemetry>(std::move(run), clock_);

  decoder_ = std::make_unique<SampleDecoder>(dataset_, options_, decode_to_u8, *telemetry_, trace_);
  assembler_ = std::make_unique<BatchAssembler>(dataset_, options_.on_bad);
  copier_ = std::make_unique<Copier>(ring_->transfer(), *assembler_, *telemetry_, trace_);
  delivery_ = std::make_unique<Delivery>(*ring_, *telemetry_, trace_);
  if (fills_ && !decoder_->two_phase()) {
    loans_ = std::make_unique<StreamLoans>(
        plan_, sample_bytes, options_.layout, options_.transform.size,
        [this](Slot& slot, const std::function<void()>& while_waiting) {
          std::exception_ptr failure;
          const bool read = loan_reads_.read(
              slot,
              [this] {
                ring_->poke();
                extra_reads_.poke();
              },
              while_waiting, failure);
          if (failure) end_with(failure);  // the source failed, as a read of the ring would
          return read;
        },
        [this](Slot& slot) { decode_loan(slot); });
  }
}

Pipeline::~Pipeline() {
  stop();
  cache_.reset();  // its writer thread reads the telemetry, which is destroyed before it
}

std::size_t Pipeline::batches_per_epoch() const {
  return batch_count(plan_.samples_per_epoch(), options_.batch_size, options_.drop_last);
}

void Pipeline::stop() {
  cancel_ = true;
  ring_->wake();
  extra_reads_.wake();
  if (io_thread_.joinable()) io_thread_.join();
  ring_->stop_all();
  cancel_ = false;
}

void Pipeline::start_epoch(std::uint64_t epoch) {
  stop();
  telemetry_->start();
  if (cache_) cache_->begin_epoch();
  started_ = true;
  plan_.begin(epoch);
  reader_->start_epoch({plan_.order(), plan_.read_units(), plan_.taken_samples(),
                        [this] { return plan_.next_epoch_order(); }});
  next_number_ = 0;
  epoch_over_ = false;
  first_read_ = fills_ ? plan_.first_read() : 0;
  first_read_taken_ = fills_ ? plan_.first_read_taken() : 0;
  reads_taken_ = first_read_ >= plan_.batches() ? first_read_ : 0;
  stream_read_ = first_read_;
  stream_taken_ = first_read_taken_;
  extra_reads_.begin();
  if (loans_) loans_->begin_epoch(epoch);
  loan_reads_.open();
  io_thread_ = std::thread([this, epoch] { io_main(epoch); });
}

LoaderState Pipeline::state() const {
  if (!fills_) return plan_.state(next_number_);
  return plan_.state(next_number_, stream_read_ - next_number_, stream_taken_);
}

void Pipeline::load_state(const LoaderState& state, bool allow_dataset_change) {
  plan_.restore(state, allow_dataset_change);
  stop();
  started_ = false;
}

void Pipeline::io_main(std::uint64_t epoch) {
  struct CloseLoans {
    LoanReads& reads;
    ~CloseLoans() { reads.close(); }
  } close_loans{loan_reads_};
  std::uint64_t cpu_counted = thread_cpu_ns();
  const auto count_cpu = [&] {
    const std::uint64_t now = thread_cpu_ns();
    telemetry_->io_cpu(now - cpu_counted);
    cpu_counted = now;
  };
  try {
    const std::size_t reads = plan_.batches();
    const std::size_t first = first_read_ >= reads ? first_read_ : 0;
    for (std::size_t number = first; number < reads; ++number) {
      count_cpu();
      if (!read_batch(epoch, number)) return;
    }
    // Under on_bad="skip": the extra reads the consumer asks for, to make up for skipped samples.
    for (std::size_t extra = std::max(first, reads) - reads;
         fills_ && extra_reads_.wait(extra, cancel_, [this] { loan_reads_.serve(*reader_); });
         ++extra) {
      count_cpu();
      if (!read_batch(epoch, reads + extra)) return;
    }
    count_cpu();
  } catch (...) {
    ring_->fail(std::current_exception());
  }
}

bool Pipeline::read_batch(std::uint64_t epoch, std::size_t read) {
  const auto wait_start = clock_.now();
  Clock::duration reading_ahead{};
  // shuffle=blocks: while every slot is taken, the next blocks (one read at a time, so that a
  // slot freed meanwhile is taken soon after).
  const auto read_ahead = [&] {
    if (loan_reads_.serve(*reader_)) return true;
    const auto start = clock_.now();
    if (!reader_->read_ahead(1)) return false;
    const auto end = clock_.now();
    telemetry_->read(start, end, reader_->stats());
    reading_ahead += end - start;
    return true;
  };
  Slot* slot = ring_->acquire(cancel_, read_ahead);
  if (slot == nullptr) return false;
  telemetry_->waited_for_slot(io::nanoseconds_between(wait_start + reading_ahead, clock_.now()),
                              slot->delayed_by);

  const bool extra = read >= plan_.batches();
  slot->epoch = epoch;
  slot->number = plan_.first_batch() + read;
  slot->extra = extra;
  slot->decoded = false;
  slot->taken = read == first_read_ ? first_read_taken_ : 0;
  slot->repeats_from = plan_.read_samples(read, slot->indices);
  slot->count = slot->indices.size();
  {
    gpu::TraceRange range("read");
    const auto start = clock_.now();
    if (extra) {
      reader_->read_outside(*slot);
    } else {
      reader_->read(*slot);
    }
    const auto end = clock_.now();
    telemetry_->read(start, end, reader_->stats());
    if (trace_.enabled()) {
      // The batch's reads are in flight together: each sample's span is the batch's window.
      for (std::size_t i = 0; i < slot->count; ++i) {
        trace_.span("read", start, end, slot->indices[i]);
      }
    }
  }

  if (read < first_read_) {
    // A restored stream begins further on: this read only keeps the source in step.
    slot->count = 0;
    slot->indices.clear();
    slot->skipped.clear();
    slot->decoded = true;
    ring_->advance(*slot, Slot::State::kReady);
  } else if (options_.num_workers == 0 || cancel_) {
    ring_->advance(*slot, Slot::State::kRead);
  } else {
    slot->pending = slot->count;
    ring_->advance(*slot, Slot::State::kDecoding);
    for (std::size_t i = 0; i < slot->count; ++i) {
      arena_->enqueue([this, slot, i] { decode_task(slot, i); });
    }
  }
  return true;
}

void Pipeline::decode_sample(Slot& slot, std::size_t i) {
  decoder_->decode(slot, i);
  if (cache_ && slot.phase == 0 && !slot.from_cache[i] && slot.errors[i].empty()) {
    cache_->offer(slot.indices[i], {reinterpret_cast<const std::uint8_t*>(slot.encoded.data() +
                                                                          slot.encoded_offset[i]),
                                    slot.encoded_size[i]});
  }
}

RunStats Pipeline::stats() const {
  RunStats stats = telemetry_->stats();
  stats.skipped += dataset_.skipped();
  stats.skipped_samples.insert(stats.skipped_samples.begin(), dataset_.skipped_examples().begin(),
                               dataset_.skipped_examples().end());
  return stats;
}

Report Pipeline::report() const {
  Report report = telemetry_->figures();
  if (cache_) report.cache = cache_->figures();
  reader_->attach(report);
  diagnose(report);
  return report;
}

void Pipeline::decode_task(Slot* slot, std::size_t i) {
  if (!cancel_) decode_sample(*slot, i);
  if (slot->pending.fetch_sub(1) != 1) return;
  if (decoder_->two_phase() && slot->phase == 0 && !cancel_) {
    // Every sample is loaded: the mosaics, each of which reads three others, or the placements
    // at the batch's size, which its largest image sets, can start.
    decoder_->begin_placement(*slot);
    slot->phase = 1;
    slot->pending = slot->count;
    for (std::size_t k = 0; k < slot->count; ++k) {
      arena_->enqueue([this, slot, k] { decode_task(slot, k); });
    }
    return;
  }
  // The batch's last sample: this task is the copy stage too.
  if (!cancel_) {
    ring_->advance(*slot, Slot::State::kCopying);
    copier_->copy(*slot);
  }
  ring_->advance(*slot, Slot::State::kReady);  // the last touch: see SlotRing::advance
}

}  // namespace feedrate
