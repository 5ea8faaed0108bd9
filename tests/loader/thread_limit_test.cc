// ThreadLimit: TBB's worker limit follows the largest need of the loaders alive, so a loader
// made while another lived keeps its workers when the other goes.
#include "loader/pipeline/thread_limit.h"

#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>

#include <memory>

namespace feedrate {
namespace {

std::size_t active() {
  return tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
}

TEST(ThreadLimit, TheLargestNeedOfTheLoadersAliveHolds) {
  const auto cores = static_cast<std::size_t>(tbb::info::default_concurrency());
  auto first = std::make_unique<ThreadLimit>(cores + 1);
  EXPECT_EQ(active(), cores + 1);
  auto second = std::make_unique<ThreadLimit>(cores + 1);
  auto larger = std::make_unique<ThreadLimit>(cores + 3);
  EXPECT_EQ(active(), cores + 3);
  larger.reset();
  EXPECT_EQ(active(), cores + 1);
  first.reset();  // the second was made while the first lived: it keeps its workers
  EXPECT_EQ(active(), cores + 1);
  const ThreadLimit within(1);  // TBB's default covers it: no control of its own
  second.reset();
  EXPECT_EQ(active(), cores);
}

}  // namespace
}  // namespace feedrate
