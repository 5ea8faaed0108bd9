#include "feedrate/trace.h"

#include <pthread.h>

namespace feedrate {
namespace {

// Each thread gets a small id per recorder, in order of its first event.
thread_local const TraceRecorder* tls_recorder = nullptr;
thread_local std::uint32_t tls_thread = 0;

}  // namespace

TraceRecorder::TraceRecorder(bool enabled, Clock::time_point origin, std::size_t capacity)
    : enabled_(enabled), capacity_(capacity), origin_(origin) {}

double TraceRecorder::since_start_us(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - origin_).count();
}

std::uint32_t TraceRecorder::thread_id() {
  // Called with mutex_ held.
  if (tls_recorder != this) {
    char name[32] = "thread";
    pthread_getname_np(pthread_self(), name, sizeof(name));
    tls_recorder = this;
    tls_thread = static_cast<std::uint32_t>(thread_names_.size());
    thread_names_.push_back(std::string(name) + " #" + std::to_string(tls_thread));
  }
  return tls_thread;
}

void TraceRecorder::span(const char* name, Clock::time_point start, Clock::time_point end,
                         std::int64_t value) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (events_.size() >= capacity_) {
    ++dropped_;
    return;
  }
  events_.push_back({name, 'X', thread_id(), since_start_us(start),
                     std::chrono::duration<double, std::micro>(end - start).count(), value});
}

void TraceRecorder::counter(const char* name, Clock::time_point at, std::int64_t value) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (events_.size() >= capacity_) {
    ++dropped_;
    return;
  }
  events_.push_back({name, 'C', thread_id(), since_start_us(at), 0, value});
}

std::vector<TraceEvent> TraceRecorder::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::vector<std::string> TraceRecorder::thread_names() const {
  std::lock_guard lock(mutex_);
  return thread_names_;
}

std::uint64_t TraceRecorder::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace feedrate
