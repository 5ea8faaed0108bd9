#include "loader/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "decode/layout.h"
#include "decode/random.h"
#include "gpu/host_memory.h"
#include "gpu/trace.h"
#include "io/chunk_plan.h"
#include "io/throttle.h"
#include "loader/error.h"
#include "loader/sampler.h"
#include "loader/system_info.h"
#include "loader/verdict.h"

namespace feedrate {
namespace {

using detail::kNoRead;
using detail::Slot;
using detail::Stall;
using Clock = std::chrono::steady_clock;

std::uint64_t elapsed_ns(Clock::time_point since, Clock::time_point until = Clock::now()) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(until - since).count());
}

// The consumer re-checks what it waits on this often, so a wait is charged to the right cause
// even when the cause changes without a notification.
constexpr auto kStallSlice = std::chrono::milliseconds(2);
// A wait for the device copy shorter than this is not a delay worth charging.
constexpr std::uint64_t kNoticeableWaitNs = 100'000;

constexpr std::size_t kMaxListedSkips = 1000;

// The share of memory_limit_bytes() that the batches in flight may use when memory_budget_mb is 0.
constexpr double kDefaultBudgetShare = 0.25;

}  // namespace

void SlotRing::release(Slot* slot) noexcept {
  {
    std::lock_guard lock(mutex);
    try {
      transfer->release(slot->id);
    } catch (...) {
      release_failure = std::current_exception();  // raised by the next next()
    }
    slot->state = Slot::State::kFree;
    free.push_back(slot);
  }
  changed.notify_all();
}

void* SlotRing::device_images(const Slot* slot) const {
  return transfer->output(slot->id, slot->images, nullptr).images;
}

std::int32_t* SlotRing::device_labels(const Slot* slot) const {
  if (!slot->device.is_cuda()) return const_cast<std::int32_t*>(slot->labels.data());
  return transfer->output(slot->id, slot->images, nullptr).labels;
}

void SlotRing::wait(const Slot* slot, void* cuda_stream) const {
  gpu::TraceRange range("wait");
  transfer->wait(slot->id, cuda_stream);
}

Pipeline::Pipeline(const LoaderOptions& options, const ReaderFactory& make_reader)
    : options_(resolve(options)),
      dataset_(Dataset::open(options_.source, options_.allow_paths_outside_root)),
      workers_([limits = decode::DecodeLimits{.max_pixels = options_.max_pixels,
                                              .on_warning = options_.on_warning}] {
        return std::make_unique<Worker>(limits);
      }),
      ring_(std::make_shared<SlotRing>()),
      trace_(options_.trace) {
  samples_per_epoch_ = epoch_order(dataset_.size(),
                                   {options_.shuffle, options_.seed, options_.rank,
                                    options_.world_size, options_.pad_shards},
                                   0)
                           .size();

  io::ReaderOptions reader_options;
  reader_options.queue_depth = options_.io_queue_depth;
  reader_options.force_pread = options_.force_pread;
  reader_options.direct_io = options_.direct_io;
  if (!options_.throttle.empty()) {
    reader_options.throttle = io::parse_throttle(options_.throttle);  // checked by resolve()
  }
  reader_ = make_reader ? make_reader(reader_options, &io_fallback_reason_)
                        : io::Reader::create(reader_options, &io_fallback_reason_);
  if (dataset_.files_are_shared()) {
    // Opened through the reader, which applies O_DIRECT (before its thread starts).
    for (const auto& path : dataset_.files()) {
      std::error_code error;
      shared_files_.push_back(reader_->open(path, error));
      if (error) throw Error(path.string() + ": cannot open: " + error.message());
    }
  }

  if (options_.num_workers > 0) {
    // TBB's pool defaults to one thread per core, counting the caller; num_workers may ask
    // for more (I/O-bound runs) and none of its threads is the caller, so raise the limit.
    const auto wanted = static_cast<std::size_t>(options_.num_workers) + 1;
    if (wanted > tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)) {
      thread_limit_ = std::make_unique<tbb::global_control>(
          tbb::global_control::max_allowed_parallelism, wanted);
    }
    arena_ = std::make_unique<tbb::task_arena>(options_.num_workers, 0);
  }

  gpu::TransferOptions transfer;
  transfer.device = gpu::parse_device(options_.device);
  apply_memory_budget(transfer.device.is_cuda());
  transfer.slots = options_.prefetch_batches;
  transfer.batch_size = options_.batch_size;
  transfer.size = options_.transform.size;
  transfer.dtype = options_.layout == OutputLayout::kUint8NHWC     ? gpu::DType::kUint8
                   : options_.layout == OutputLayout::kFloat16NCHW ? gpu::DType::kFloat16
                                                                   : gpu::DType::kFloat32;
  transfer.mean = options_.normalization.mean;
  transfer.std = options_.normalization.std;
  try {
    ring_->transfer = gpu::make_transfer(transfer);
  } catch (const std::exception& e) {
    throw Error(std::string("option device: ") + e.what());
  }
  // Decoders write uint8 when the device converts, else the final layout.
  decode_to_u8_ =
      ring_->transfer->converts_on_device() || options_.layout == OutputLayout::kUint8NHWC;
  const auto pixels = static_cast<std::size_t>(options_.transform.size) * options_.transform.size;
  sample_bytes_ = decode_to_u8_ ? pixels * 3 : pixels * 3 * sizeof(float);
  for (std::size_t i = 0; i < options_.prefetch_batches; ++i) {
    auto slot = std::make_unique<Slot>();
    slot->id = i;
    slot->images = ring_->transfer->allocate_staging(options_.batch_size * sample_bytes_);
    slot->sample_bytes = sample_bytes_;
    slot->layout = options_.layout;
    slot->size = options_.transform.size;
    slot->device = transfer.device;
    ring_->free.push_back(slot.get());
    ring_->slots.push_back(std::move(slot));
  }
}

Pipeline::~Pipeline() {
  stop();
}

void Pipeline::apply_memory_budget(bool converts_on_device) {
  const auto pixels = static_cast<double>(options_.transform.size) * options_.transform.size;
  const bool floats = !converts_on_device && options_.layout != OutputLayout::kUint8NHWC;
  const double image_bytes = pixels * 3 * (floats ? sizeof(float) : 1);
  const double encoded_bytes =
      static_cast<double>(dataset_.total_bytes()) / static_cast<double>(dataset_.size());
  // A slot holds a batch's images and its encoded bytes (whose buffer grows by a quarter).
  const double slot_bytes =
      static_cast<double>(options_.batch_size) * (image_bytes + 1.25 * encoded_bytes);
  // Without a budget, the batches in flight may take a quarter of what this process may use
  // (the container's limit where there is one): the rest belongs to the training itself.
  const bool by_default = options_.memory_budget_mb == 0;
  const double budget = by_default ? static_cast<double>(memory_limit_bytes()) * kDefaultBudgetShare
                                   : static_cast<double>(options_.memory_budget_mb) * 1e6;
  if (by_default && budget <= 0) return;  // the limit is unknown
  const auto fits = static_cast<std::size_t>(budget / slot_bytes);
  if (fits == 0) {
    char message[320];
    if (by_default) {
      std::snprintf(message, sizeof(message),
                    "one batch needs about %.1f MB (batch_size %zu), more than the default memory "
                    "budget of %.1f MB, a quarter of this process's memory limit (%.1f MB, the "
                    "container's when it sets one): lower batch_size or set memory_budget_mb",
                    slot_bytes / 1e6, options_.batch_size, budget / 1e6,
                    static_cast<double>(memory_limit_bytes()) / 1e6);
    } else {
      std::snprintf(message, sizeof(message),
                    "option memory_budget_mb: %zu MB is too small for one batch, which needs "
                    "about %.1f MB (batch_size %zu)",
                    options_.memory_budget_mb, slot_bytes / 1e6, options_.batch_size);
    }
    throw Error(message);
  }
  options_.prefetch_batches = std::min(options_.prefetch_batches, fits);
}

std::size_t Pipeline::batches_per_epoch() const {
  return batch_count(samples_per_epoch_, options_.batch_size, options_.drop_last);
}

void Pipeline::stop() {
  cancel_ = true;
  ring_->changed.notify_all();
  if (io_thread_.joinable()) io_thread_.join();
  std::unique_lock lock(ring_->mutex);
  ring_->changed.wait(lock, [&] {
    return std::none_of(in_flight_.begin(), in_flight_.end(),
                        [](const Slot* s) { return s->state == Slot::State::kDecoding; });
  });
  for (Slot* slot : in_flight_) {
    slot->state = Slot::State::kFree;
    ring_->free.push_back(slot);
  }
  in_flight_.clear();
  failure_ = nullptr;
  cancel_ = false;
}

void Pipeline::start_epoch(std::uint64_t epoch) {
  stop();
  if (run_start_ == 0) run_start_ = Clock::now().time_since_epoch().count();
  started_ = true;
  epoch_ = epoch;
  order_ = epoch_order(
      dataset_.size(),
      {options_.shuffle, options_.seed, options_.rank, options_.world_size, options_.pad_shards},
      epoch);
  next_number_ = 0;
  epoch_over_ = false;
  io_thread_ = std::thread([this, epoch] { io_main(epoch); });
}

void Pipeline::io_main(std::uint64_t epoch) {
  try {
    const std::size_t batches = batches_per_epoch();
    for (std::size_t number = 0; number < batches; ++number) {
      Slot* slot = nullptr;
      Stall delayed_by = Stall::kIo;
      {
        const auto start = Clock::now();
        std::unique_lock lock(ring_->mutex);
        if (!cancel_ && ring_->free.empty()) {
          // Every slot is in flight or held: the memory budget caps the work ahead.
          io_waiting_ = Stall::kRam;
          ring_->changed.wait(lock, [&] { return cancel_ || !ring_->free.empty(); });
          io_waiting_ = Stall::kIo;
          delayed_by = Stall::kRam;
        }
        if (cancel_) return;
        slot = ring_->free.back();
        ring_->free.pop_back();
        slot->state = Slot::State::kReading;
        slot->delayed_by = delayed_by;
        in_flight_.push_back(slot);
        read_blocked_ns_ += elapsed_ns(start);
      }
      {
        // Its previous copy to the device must have read the staging buffer.
        const auto start = Clock::now();
        ring_->transfer->staging_reusable(slot->id);
        const std::uint64_t waited = elapsed_ns(start);
        copy_blocked_ns_ += waited;
        if (waited > kNoticeableWaitNs) {
          std::lock_guard lock(ring_->mutex);
          slot->delayed_by = Stall::kH2d;
        }
      }
      const std::size_t first = number * options_.batch_size;
      slot->epoch = epoch;
      slot->number = number;
      slot->count = std::min(options_.batch_size, order_.size() - first);
      slot->indices.assign(order_.begin() + static_cast<std::ptrdiff_t>(first),
                           order_.begin() + static_cast<std::ptrdiff_t>(first + slot->count));
      read_batch(*slot);

      if (options_.num_workers == 0 || cancel_) {
        {
          std::lock_guard lock(ring_->mutex);
          slot->state = Slot::State::kRead;
        }
        ring_->changed.notify_all();
        continue;
      }
      slot->pending = slot->count;
      {
        std::lock_guard lock(ring_->mutex);
        slot->state = Slot::State::kDecoding;
      }
      for (std::size_t i = 0; i < slot->count; ++i) {
        arena_->enqueue([this, slot, i] { decode_task(slot, i); });
      }
    }
  } catch (...) {
    {
      std::lock_guard lock(ring_->mutex);
      failure_ = std::current_exception();
    }
    ring_->changed.notify_all();
  }
}

void Pipeline::read_batch(Slot& slot) {
  gpu::TraceRange range("read");
  const auto start = Clock::now();
  const std::size_t n = slot.count;
  slot.labels.resize(n);
  slot.errors.assign(n, std::string());
  slot.skipped.clear();
  slot.encoded_offset.resize(n);
  slot.files.resize(n);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    slot.labels[i] = ref.label;
    slot.encoded_offset[i] = total;
    total += ref.size;
  }
  if (slot.encoded.size() < total) slot.encoded = gpu::HostBuffer(total + total / 4);

  slot.reads.clear();
  slot.read_of_sample.assign(n, kNoRead);
  slot.offset_in_read.assign(n, 0);
  if (dataset_.files_are_shared() && options_.tar_chunk_bytes > 0) {
    plan_shard_reads(slot);
  } else {
    plan_file_reads(slot);
  }
  reader_->read(slot.reads);
  for (std::size_t i = 0; i < n; ++i) {
    if (slot.read_of_sample[i] == kNoRead) continue;  // could not open: already an error
    const io::ReadRequest& request = slot.reads[slot.read_of_sample[i]];
    std::byte* own = slot.encoded.data() + slot.encoded_offset[i];
    const std::uint64_t size = dataset_.sample(slot.indices[i]).size;
    // A chunk that failed part-way still holds every member that ends before the failure.
    const bool complete = slot.offset_in_read[i] + size <= request.bytes_read;
    if (request.error && !complete) {
      const bool short_file = request.error == io::ReadErrc::kUnexpectedEof;
      slot.errors[i] =
          dataset_.describe(slot.indices[i]) + ": read failed at byte " +
          std::to_string(request.offset + request.bytes_read) + ": " +
          (short_file
               ? "unexpected end of file after " + std::to_string(request.bytes_read) + " of " +
                     std::to_string(request.dest.size()) + " bytes (file changed since indexing?)"
               : request.error.message());
    } else if (request.dest.data() + slot.offset_in_read[i] != own) {
      // Read as part of a larger chunk: slice the sample out.
      std::memcpy(own, request.dest.data() + slot.offset_in_read[i],
                  static_cast<std::size_t>(size));
    }
  }
  for (io::File& file : slot.files) file = io::File();
  const io::ReadStats& stats = reader_->stats();
  bytes_read_.store(stats.bytes, std::memory_order_relaxed);
  read_operations_.store(stats.operations, std::memory_order_relaxed);
  {
    std::lock_guard lock(io_stats_mutex_);
    io_stats_.backend = stats.backend_description;
    io_stats_.throttle = io::describe(stats.throttle);
    io_stats_.latency_p50_us = stats.latency_p50_us;
    io_stats_.latency_p99_us = stats.latency_p99_us;
    io_stats_.average_in_flight = stats.average_in_flight;
    io_stats_.peak_in_flight = stats.peak_in_flight;
    io_stats_.direct_io_fallbacks = stats.direct_io_fallbacks;
    io_stats_.notes = stats.direct_io_fallback_reason;
    if (!stats.fixed_buffers_note.empty()) {
      io_stats_.notes += (io_stats_.notes.empty() ? "" : "; ") + stats.fixed_buffers_note;
    }
  }
  const auto end = Clock::now();
  read_ns_ += elapsed_ns(start, end);
  if (trace_.enabled()) {
    // The batch's reads are in flight together: each sample's span is the batch's window.
    for (std::size_t i = 0; i < n; ++i) trace_.span("read", start, end, slot.indices[i]);
  }
}

void Pipeline::plan_file_reads(Slot& slot) {
  for (std::size_t i = 0; i < slot.count; ++i) {
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    int fd = -1;
    if (dataset_.files_are_shared()) {
      fd = shared_files_[ref.file].fd();
    } else {
      std::error_code error;
      slot.files[i] = reader_->open(dataset_.files()[ref.file], error);
      if (error) {
        slot.errors[i] = dataset_.describe(slot.indices[i]) + ": cannot open: " + error.message();
        continue;
      }
      fd = slot.files[i].fd();
    }
    slot.read_of_sample[i] = slot.reads.size();
    io::ReadRequest request;
    request.fd = fd;
    request.offset = ref.offset;
    request.dest = {slot.encoded.data() + slot.encoded_offset[i],
                    static_cast<std::size_t>(ref.size)};
    slot.reads.push_back(request);
  }
}

void Pipeline::plan_shard_reads(Slot& slot) {
  // Members of one shard that lie close together are read as one large sequential chunk
  // (what a seeking disk needs), then sliced out; a chunk of one member is read in place.
  std::vector<std::size_t> order(slot.count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto ref = [&](std::size_t i) -> const SampleRef& {
    return dataset_.sample(slot.indices[i]);
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(ref(a).file, ref(a).offset) < std::pair(ref(b).file, ref(b).offset);
  });
  io::ChunkPlanner planner;
  planner.chunk_bytes = options_.tar_chunk_bytes;
  struct Chunk {
    std::uint32_t file;
    io::ByteRange range;
    std::vector<std::size_t> samples;
  };
  std::vector<Chunk> chunks;
  std::vector<io::ByteRange> ranges;
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin;
    const std::uint32_t file = ref(order[begin]).file;
    ranges.clear();
    while (end < order.size() && ref(order[end]).file == file) {
      ranges.push_back({ref(order[end]).offset, ref(order[end]).size});
      ++end;
    }
    const io::ChunkPlan plan = planner.plan(ranges);
    const std::size_t first_chunk = chunks.size();
    for (const io::ByteRange& range : plan.chunks) chunks.push_back({file, range, {}});
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      const std::size_t sample = order[begin + k];
      chunks[first_chunk + plan.slices[k].chunk].samples.push_back(sample);
      slot.offset_in_read[sample] = plan.slices[k].offset;
    }
    begin = end;
  }
  // Multi-member chunks land in the slot's chunk buffer; single members in their own place.
  std::uint64_t staged = 0;
  for (const Chunk& chunk : chunks) {
    if (chunk.samples.size() > 1) staged += chunk.range.size;
  }
  if (slot.chunks.size() < staged) slot.chunks = gpu::HostBuffer(staged);
  std::uint64_t at = 0;
  for (const Chunk& chunk : chunks) {
    io::ReadRequest request;
    request.fd = shared_files_[chunk.file].fd();
    request.offset = chunk.range.offset;
    const std::size_t size = static_cast<std::size_t>(chunk.range.size);
    if (chunk.samples.size() == 1) {
      request.dest = {slot.encoded.data() + slot.encoded_offset[chunk.samples[0]], size};
      slot.offset_in_read[chunk.samples[0]] = 0;
    } else {
      request.dest = {slot.chunks.data() + at, size};
      at += size;
    }
    for (std::size_t sample : chunk.samples) slot.read_of_sample[sample] = slot.reads.size();
    slot.reads.push_back(request);
  }
}

void Pipeline::decode_sample(Slot& slot, std::size_t i) {
  if (!slot.errors[i].empty()) return;
  const auto start = Clock::now();
  const std::uint32_t index = slot.indices[i];
  const std::span<const std::uint8_t> jpeg(
      reinterpret_cast<const std::uint8_t*>(slot.encoded.data() + slot.encoded_offset[i]),
      static_cast<std::size_t>(dataset_.sample(index).size));
  std::byte* out = slot.images.data() + i * sample_bytes_;
  const std::uint64_t seed = decode::sample_seed(options_.seed, slot.epoch, index);
  std::unique_ptr<Worker>& worker = workers_.local();

  gpu::TraceRange range("decode");
  decode::DecodeStatus status;
  if (decode_to_u8_) {
    status = worker->decoder.decode(jpeg, options_.transform, seed,
                                    {reinterpret_cast<std::uint8_t*>(out), sample_bytes_});
  } else {
    const std::size_t pixels =
        static_cast<std::size_t>(options_.transform.size) * options_.transform.size;
    worker->scratch.resize(pixels * 3);
    status = worker->decoder.decode(jpeg, options_.transform, seed, worker->scratch);
    if (status.ok()) {
      decode::hwc_to_chw_normalized(worker->scratch.data(), pixels, options_.normalization,
                                    reinterpret_cast<float*>(out));
    }
  }
  if (!status.ok()) {
    slot.errors[i] =
        dataset_.describe(index) + ": " + decode::errc_name(status.code) + ": " + status.message;
  }
  const auto end = Clock::now();
  decode_ns_ += elapsed_ns(start, end);
  trace_.span("decode", start, end, index);
}

void Pipeline::decode_task(Slot* slot, std::size_t i) {
  if (!cancel_) decode_sample(*slot, i);
  if (slot->pending.fetch_sub(1) == 1) {
    // Notify under the mutex: once the slot is kReady, stop() may return and the Pipeline (and
    // the ring, when no Batch holds it) may be destroyed, so nothing may touch them after it.
    std::lock_guard lock(ring_->mutex);
    slot->state = Slot::State::kReady;
    ring_->changed.notify_all();
  }
}

bool Pipeline::finish_batch(Slot& slot) {
  const auto failed = static_cast<std::size_t>(
      std::count_if(slot.errors.begin(), slot.errors.end(), [](auto& e) { return !e.empty(); }));
  if (failed == 0) return true;
  if (options_.on_bad == BadInputPolicy::kError) {
    const auto first =
        std::find_if(slot.errors.begin(), slot.errors.end(), [](auto& e) { return !e.empty(); });
    std::string message = *first;
    if (failed > 1) message += " (and " + std::to_string(failed - 1) + " more in this batch)";
    throw Error(message);
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.errors[i].empty()) {
      slot.skipped.push_back({slot.indices[i], dataset_.describe(slot.indices[i]), slot.errors[i]});
      continue;
    }
    if (kept != i) {
      std::memmove(slot.images.data() + kept * sample_bytes_,
                   slot.images.data() + i * sample_bytes_, sample_bytes_);
      slot.labels[kept] = slot.labels[i];
      slot.indices[kept] = slot.indices[i];
    }
    ++kept;
  }
  slot.labels.resize(kept);
  slot.indices.resize(kept);
  skipped_ += failed;
  {
    std::lock_guard lock(skipped_mutex_);
    for (const SkippedSample& s : slot.skipped) {
      if (skipped_samples_.size() < kMaxListedSkips) skipped_samples_.push_back(s);
    }
  }
  return kept > 0;
}

std::optional<Batch> Pipeline::next(const std::function<void()>& while_waiting) {
  const auto entered = Clock::now();
  if (last_return_ != Clock::time_point{}) {
    consumer_ns_ += elapsed_ns(last_return_, entered);
    trace_.span("consumer", last_return_, entered, static_cast<std::int64_t>(next_number_) - 1);
  }
  std::optional<Batch> batch;
  try {
    batch = next_batch(while_waiting);
  } catch (...) {
    last_return_ = Clock::now();  // the time until the next call is the consumer's again
    throw;
  }
  last_return_ = Clock::now();
  return batch;
}

// What the consumer is waiting on right now (called under the ring mutex).
Stall Pipeline::current_stall() const {
  if (!in_flight_.empty()) {
    const Slot& front = *in_flight_.front();
    if (front.state == Slot::State::kDecoding) return Stall::kCpu;
    return front.delayed_by;  // reading: kIo, unless its start waited for a slot or a copy
  }
  return io_waiting_.load();
}

std::optional<Batch> Pipeline::next_batch(const std::function<void()>& while_waiting) {
  if (!started_) start_epoch(0);
  while (!epoch_over_ && next_number_ < batches_per_epoch()) {
    Slot* slot = nullptr;
    {
      const auto wait_start = Clock::now();
      auto charged_until = wait_start;
      std::unique_lock lock(ring_->mutex);
      sample_in_flight();
      for (;;) {
        if (ring_->release_failure) {
          const std::exception_ptr failure = std::exchange(ring_->release_failure, nullptr);
          lock.unlock();
          std::rethrow_exception(failure);
        }
        if (failure_) {
          const std::exception_ptr failure = failure_;
          lock.unlock();
          epoch_over_ = true;
          stop();
          std::rethrow_exception(failure);
        }
        if (!in_flight_.empty()) {
          const Slot::State state = in_flight_.front()->state;
          if (state == Slot::State::kReady || state == Slot::State::kRead) break;
        } else if (ring_->free.empty()) {
          throw Error("the consumer holds all " + std::to_string(options_.prefetch_batches) +
                      " batch slots (prefetch_batches): destroy a Batch before asking for the "
                      "next one, or raise prefetch_batches");
        }
        // Charge the wait in short slices to what the awaited batch is waiting on then.
        const Stall stall = current_stall();
        ring_->changed.wait_for(lock, kStallSlice);
        if (while_waiting) {
          lock.unlock();  // the hook may take other locks (an interpreter's), or throw
          while_waiting();
          lock.lock();
        }
        const auto now = Clock::now();
        stall_ns_[static_cast<int>(stall)] += elapsed_ns(charged_until, now);
        charged_until = now;
      }
      slot = in_flight_.front();
      in_flight_.pop_front();
      slot->state = Slot::State::kHeld;
      trace_.span("wait", wait_start, Clock::now(), static_cast<std::int64_t>(slot->number));
    }
    ++next_number_;
    Batch batch(ring_, slot);  // returns the slot to the ring on every path below
    if (options_.num_workers == 0) {
      // Decoding on the consumer's thread keeps the consumer waiting: a CPU stall.
      const auto start = Clock::now();
      for (std::size_t i = 0; i < slot->count; ++i) decode_sample(*slot, i);
      stall_ns_[static_cast<int>(Stall::kCpu)] += elapsed_ns(start);
    }
    const auto assemble_start = Clock::now();
    try {
      if (!finish_batch(*slot)) continue;
    } catch (const Error&) {
      epoch_over_ = true;
      stop();
      throw;
    }
    const auto assemble_end = Clock::now();
    assemble_ns_ += elapsed_ns(assemble_start, assemble_end);
    trace_.span("assemble", assemble_start, assemble_end, static_cast<std::int64_t>(slot->number));
    {
      gpu::TraceRange range("copy");
      const auto copy_start = Clock::now();
      ring_->transfer->submit(slot->id, slot->images, slot->labels.data(), batch.size());
      const auto copy_end = Clock::now();
      copy_ns_ += elapsed_ns(copy_start, copy_end);
      trace_.span("copy", copy_start, copy_end, static_cast<std::int64_t>(slot->number));
      copy_bytes_ += batch.size() * sample_bytes_;
    }
    ++batches_;
    images_ += batch.size();
    return batch;
  }
  if (io_thread_.joinable()) io_thread_.join();
  return std::nullopt;
}

void Pipeline::sample_in_flight() {
  const auto in_flight = static_cast<double>(in_flight_.size());
  in_flight_sum_ += in_flight;
  in_flight_max_ = std::max(in_flight_max_, in_flight);
  ++in_flight_samples_;
  trace_.counter("batches in flight", static_cast<std::int64_t>(in_flight_.size()));
}

RunStats Pipeline::stats() const {
  RunStats stats;
  stats.batches = batches_;
  stats.images = images_;
  stats.skipped = skipped_;
  stats.bytes_read = bytes_read_;
  stats.read_operations = read_operations_;
  stats.read_busy_s = static_cast<double>(read_ns_) * 1e-9;
  stats.decode_busy_s = static_cast<double>(decode_ns_) * 1e-9;
  std::uint64_t waited = 0;
  for (const auto& ns : stall_ns_) waited += ns;
  stats.consumer_wait_s = static_cast<double>(waited) * 1e-9;
  stats.io_backend = io::backend_name(reader_->backend());
  {
    // The reader's statistics belong to the I/O thread: copied at the end of each batch.
    std::lock_guard lock(io_stats_mutex_);
    stats.io = io_stats_;
  }
  stats.io_fallback_reason = io_fallback_reason_;
  stats.device = ring_->slots.front()->device.name();
  {
    std::lock_guard lock(skipped_mutex_);
    stats.skipped_samples = skipped_samples_;
  }
  return stats;
}

}  // namespace feedrate

namespace feedrate {

Report Pipeline::report() const {
  Report r;
  const Clock::rep start = run_start_;
  if (start == 0) return r;
  const auto seconds = [](std::uint64_t ns) { return static_cast<double>(ns) * 1e-9; };
  r.wall_s = seconds(elapsed_ns(Clock::time_point(Clock::duration(start))));
  r.images = images_;
  const std::uint64_t batches = batches_;
  const std::uint64_t bytes = bytes_read_;
  if (r.wall_s > 0) {
    r.images_per_s = static_cast<double>(r.images) / r.wall_s;
    r.mb_per_s = static_cast<double>(bytes) / 1e6 / r.wall_s;
  }
  double in_flight_mean = 0, in_flight_max = 0;
  {
    std::lock_guard lock(ring_->mutex);
    if (in_flight_samples_ > 0) in_flight_mean = in_flight_sum_ / in_flight_samples_;
    in_flight_max = in_flight_max_;
  }
  r.in_flight_mean = in_flight_mean;
  r.in_flight_max = in_flight_max;
  r.in_flight_capacity = static_cast<double>(options_.prefetch_batches);

  const double decode_s = seconds(decode_ns_);
  const double consumer_s = seconds(consumer_ns_);
  const double stalls[4] = {seconds(stall_ns_[0]), seconds(stall_ns_[1]), seconds(stall_ns_[2]),
                            seconds(stall_ns_[3])};
  const double waited = stalls[0] + stalls[1] + stalls[2] + stalls[3];
  if (r.images > 0) {
    r.decode_cpu_ms_per_image = decode_s * 1e3 / static_cast<double>(r.images);
    r.read_bytes_per_image = static_cast<double>(bytes) / static_cast<double>(r.images);
  }
  if (batches > 0) r.consumer_ms_per_batch = consumer_s * 1e3 / static_cast<double>(batches);

  const auto stage = [&](const char* name, std::uint64_t items, std::uint64_t stage_bytes,
                         double busy, double starved, double blocked, double threads) {
    StageFigures f{name, items, stage_bytes, busy, starved, blocked, threads, 0};
    if (r.wall_s > 0) f.utilization = busy / (threads * r.wall_s);
    r.stages.push_back(f);
  };
  const double read_busy = seconds(read_ns_);
  const double read_blocked = seconds(read_blocked_ns_) + seconds(copy_blocked_ns_);
  stage("read", read_operations_, bytes, read_busy, 0, read_blocked, 1);
  const double workers = std::max(1, options_.num_workers);
  stage("decode", r.images, 0, decode_s, std::max(0.0, workers * r.wall_s - decode_s), 0, workers);
  stage("assemble", batches, 0, seconds(assemble_ns_), 0, 0, 1);
  stage("copy", batches, copy_bytes_, seconds(copy_ns_), 0, seconds(copy_blocked_ns_), 1);
  stage("consumer", batches, 0, consumer_s, waited, 0, 1);

  VerdictInputs in;
  in.wall_s = r.wall_s;
  in.images = r.images;
  in.batch_size = options_.batch_size;
  in.stall_io_s = stalls[static_cast<int>(Stall::kIo)];
  in.stall_cpu_s = stalls[static_cast<int>(Stall::kCpu)];
  in.stall_ram_s = stalls[static_cast<int>(Stall::kRam)];
  in.stall_h2d_s = stalls[static_cast<int>(Stall::kH2d)];
  in.decode_busy_s = decode_s;
  in.num_workers = options_.num_workers;
  in.cpus = available_cpus();
  in.bytes_read = bytes;
  in.consumer_busy_s = consumer_s;
  in.target_images_per_s = options_.training_images_per_s;
  in.dataset_bytes = dataset_.total_bytes();
  in.memory_bytes = memory_limit_bytes();
  in.in_flight_capacity = options_.prefetch_batches;
  in.slot_bytes = options_.batch_size * sample_bytes_;
  in.copy_busy_s = seconds(copy_ns_);
  in.copy_bytes = copy_bytes_;
  r.verdict = judge(in);
  return r;
}

}  // namespace feedrate
