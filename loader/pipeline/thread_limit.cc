#include "loader/pipeline/thread_limit.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>

#include <memory>
#include <mutex>
#include <set>

namespace feedrate {
namespace {

struct Limits {
  std::mutex mutex;
  std::multiset<std::size_t> needs;  // of the ThreadLimit objects alive
  std::unique_ptr<tbb::global_control> control;
  std::size_t controlled = 0;  // control's value; 0 without one

  // Makes the control hold the largest need, or drops it when TBB's default covers every need.
  void follow() {
    const std::size_t wanted = needs.empty() ? 0 : *needs.rbegin();
    const auto default_threads = static_cast<std::size_t>(tbb::info::default_concurrency());
    if (wanted <= default_threads) {
      control.reset();
      controlled = 0;
    } else if (wanted != controlled) {
      control.reset();  // two controls at once would apply the smaller one
      control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                      wanted);
      controlled = wanted;
    }
  }
};

Limits& limits() {
  static Limits* instance = new Limits;  // never destroyed: loaders may outlive static order
  return *instance;
}

}  // namespace

ThreadLimit::ThreadLimit(std::size_t threads) : threads_(threads) {
  Limits& l = limits();
  std::lock_guard lock(l.mutex);
  l.needs.insert(threads_);
  l.follow();
}

ThreadLimit::~ThreadLimit() {
  Limits& l = limits();
  std::lock_guard lock(l.mutex);
  l.needs.erase(l.needs.find(threads_));
  l.follow();
}

}  // namespace feedrate
