// The io capacity of a remote source: the store's own rate bounds it, measured when the read-ahead
// kept its requests in flight, projected from one request's rate when it did not; and the
// verdict on a link that binds names io even when the I/O thread also waited for slots.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "feedrate/report.h"
#include "feedrate/verdict_text.h"
#include "loader/diagnosis/capacity.h"
#include "loader/diagnosis/verdict.h"

namespace feedrate {
namespace {

// 10 s, 11,200 images of 110 KB from an https store over 2 decode threads whose CPU would
// decode 1,336 images/s; the I/O thread read for 7.6 s (1,474 images/s of reading: the rest of
// the time it waited for slots).
Report link_run() {
  Report r;
  r.run.batch_size = 64;
  r.run.num_workers = 2;
  r.run.cpus = 2;
  r.run.slots = 3;
  r.run.slot_bytes = 9'633'792;
  r.run.image_size = 224;
  r.run.dataset_bytes = 1'232'000'000;
  r.run.dataset_samples = 11'200;
  r.run.format = "tar-shards";
  r.run.memory_bytes = 24'000'000'000;
  r.run.queue_depth = 64;
  r.run.device = "host";
  r.wall_s = 10;
  r.images = 11'200;
  r.images_per_s = 1'120;
  r.figures.batches = 175;
  r.figures.bytes_read = 1'232'000'000;
  r.figures.read_operations = 11'200;
  r.figures.read_busy_s = 7.6;
  r.figures.decode_busy_s = r.figures.decode_cpu_s = 2 * 11'200 / 1'336.0;
  r.figures.loader_cpu_s = r.figures.decode_cpu_s;
  r.figures.stall_io_s = 3;
  r.store.remote = true;
  r.store.scheme = "https";
  r.store.max_in_flight = 64;
  r.store.requests = 8'000;
  r.store.bytes = 1'232'000'000;
  r.store.busy_s = 9.9;
  r.store.bytes_per_s = 1'232'000'000 / 9.9;  // 124 MB/s: 1,131 images/s
  return r;
}

TEST(StoreCapacity, AStoreWithItsRequestsInFlightBoundsIoAtItsRate) {
  Report r = link_run();
  r.store.average_in_flight = 63.5;
  r.store.bytes_per_s_per_connection = r.store.bytes_per_s / 63.5;
  r.capacities = capacities(r);
  const Capacity& io = r.capacities.of(Resource::kIo);
  EXPECT_NEAR(io.images_per_s, 11'200 / 9.9, 1e-6);
  EXPECT_NE(io.basis.find("the store (https) delivered 1,131"), std::string::npos) << io.basis;
  r.verdict = judge(r);
  ASSERT_TRUE(r.verdict.bottleneck.has_value());
  EXPECT_EQ(*r.verdict.bottleneck, Resource::kIo) << verdict_summary(r);
  EXPECT_EQ(verdict_summary(r).rfind("io: the store (https) delivers 1,131 images/s", 0), 0u)
      << verdict_summary(r);
}

TEST(StoreCapacity, FewRequestsInFlightProjectOneRequestsRateToThoseAllowed) {
  Report r = link_run();
  r.store.average_in_flight = 8;
  r.store.bytes_per_s_per_connection = 2'200'000;  // 20 images/s a request: 1,280 with 64
  r.capacities = capacities(r);
  const Capacity& io = r.capacities.of(Resource::kIo);
  EXPECT_NEAR(io.images_per_s, 64 * 2'200'000 / 110'000.0, 1e-6);
  EXPECT_NE(io.basis.find("would deliver 1,280 with its 64 requests"), std::string::npos)
      << io.basis;
}

TEST(StoreCapacity, ALocalRunIsNotBoundByStoreFigures) {
  Report r = link_run();
  r.store = StoreFigures{};
  r.capacities = capacities(r);
  EXPECT_NEAR(r.capacities.of(Resource::kIo).images_per_s, 11'200 / 7.6, 1e-6);
  r.verdict = judge(r);
  ASSERT_TRUE(r.verdict.bottleneck.has_value());
  EXPECT_EQ(*r.verdict.bottleneck, Resource::kCpu) << verdict_summary(r);
}

}  // namespace
}  // namespace feedrate
