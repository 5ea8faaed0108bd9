// SlotRing: the states a slot goes through on every backend. A released slot whose staging a
// copy still reads is not free: the I/O thread's acquire() waits for it without blocking on the
// device, and says the wait is the copy's (h2d); a slot held by the consumer is a RAM wait.
// The copy runs on a worker, not on the consumer's thread (the trace shows it).
#include "loader/pipeline/slot_ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <set>
#include <thread>

#include "feedrate/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using detail::Slot;
using detail::Stall;
using namespace std::chrono_literals;

// A copier whose copies finish when the test says so.
class HeldCopies final : public gpu::Transfer {
 public:
  gpu::HostBuffer allocate_staging(std::size_t bytes) override { return gpu::HostBuffer(bytes); }
  void submit(std::size_t slot, const gpu::HostBuffer&, const std::int32_t*, std::size_t,
              std::size_t) override {
    submitted[slot] = true;
  }
  gpu::DeviceBatch output(std::size_t, const gpu::HostBuffer& staging,
                          std::int32_t* labels) const override {
    return {gpu::Device{}, staging.data(), labels, gpu::ElementType::kUint8};
  }
  void wait(std::size_t, void*) override {}
  void release(std::size_t slot) override { released[slot] = true; }
  bool staging_idle(std::size_t slot) override { return !submitted[slot] || copies_done; }

  std::atomic<bool> copies_done{false};
  std::atomic<bool> submitted[2] = {false, false};
  std::atomic<bool> released[2] = {false, false};
};

// What acquire() waits on once it is waiting (the thread may start late on a busy machine).
Stall waiting_cause(const SlotRing& ring) {
  for (int i = 0; i < 5000 && ring.acquire_waiting() == Stall::kIo; ++i) {
    std::this_thread::sleep_for(1ms);
  }
  return ring.acquire_waiting();
}

struct Ring {
  Ring() {
    auto owned = std::make_unique<HeldCopies>();
    copies = owned.get();
    ring = std::make_shared<SlotRing>(std::move(owned), 2, 4, 12, OutputLayout::kUint8NHWC, 2,
                                      gpu::Device{});
  }
  // Takes a slot through read, decode and copy to the consumer.
  Slot* deliver() {
    Slot* slot = ring->acquire(cancel);
    EXPECT_NE(slot, nullptr);
    EXPECT_EQ(slot->state, Slot::State::kReading);
    ring->advance(*slot, Slot::State::kCopying);
    copies->submit(slot->id, slot->images, nullptr, 0, 0);
    ring->advance(*slot, Slot::State::kReady);
    std::optional<Stall> waited;
    Slot* taken = ring->take_front(1ms, &waited);
    EXPECT_EQ(taken, slot);
    EXPECT_EQ(taken->state, Slot::State::kHeld);
    return taken;
  }

  HeldCopies* copies = nullptr;
  std::shared_ptr<SlotRing> ring;
  std::atomic<bool> cancel{false};
};

TEST(SlotRing, AReleasedSlotIsFreeOnlyOnceItsCopyHasReadTheStaging) {
  Ring r;
  Slot* first = r.deliver();
  Slot* second = r.deliver();
  r.ring->release(first);
  r.ring->release(second);
  EXPECT_TRUE(r.copies->released[first->id]);
  EXPECT_EQ(first->state, Slot::State::kReturning);

  auto acquired = std::async(std::launch::async, [&] { return r.ring->acquire(r.cancel); });
  // The copies are still running: acquire() polls and charges its wait to the copy.
  EXPECT_EQ(waiting_cause(*r.ring), Stall::kH2d);
  EXPECT_EQ(acquired.wait_for(50ms), std::future_status::timeout);
  r.copies->copies_done = true;
  ASSERT_EQ(acquired.wait_for(5s), std::future_status::ready);
  Slot* slot = acquired.get();
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->delayed_by, Stall::kH2d);
  EXPECT_EQ(r.ring->acquire_waiting(), Stall::kIo);
}

TEST(SlotRing, SlotsHeldByTheConsumerAreARamWaitAndCancelEndsIt) {
  Ring r;
  r.deliver();
  r.deliver();  // both held, never released
  auto acquired = std::async(std::launch::async, [&] { return r.ring->acquire(r.cancel); });
  EXPECT_EQ(waiting_cause(*r.ring), Stall::kRam);
  EXPECT_EQ(acquired.wait_for(50ms), std::future_status::timeout);
  r.cancel = true;
  r.ring->fail(nullptr);  // any state change wakes the waiter
  ASSERT_EQ(acquired.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(acquired.get(), nullptr);
}

TEST(SlotRing, WhileEverySlotIsTakenAcquireDoesTheOtherWorkThenWaits) {
  Ring r;
  Slot* first = r.deliver();
  r.deliver();
  // Three pieces of work, then none: acquire() runs them only while no slot is free, stops
  // asking once there is none, and still takes the slot released afterwards.
  std::atomic<int> calls{0};
  const std::function<bool()> meanwhile = [&] { return ++calls <= 3; };
  auto acquired =
      std::async(std::launch::async, [&] { return r.ring->acquire(r.cancel, meanwhile); });
  for (int i = 0; i < 5000 && calls < 4; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(acquired.wait_for(50ms), std::future_status::timeout);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(r.ring->acquire_waiting(), Stall::kRam);
  r.copies->copies_done = true;
  r.ring->release(first);
  ASSERT_EQ(acquired.wait_for(5s), std::future_status::ready);
  Slot* slot = acquired.get();
  ASSERT_EQ(slot, first);
  EXPECT_EQ(slot->delayed_by, Stall::kRam);
  EXPECT_EQ(calls, 4);

  // With a slot free, nothing else runs.
  r.ring->advance(*slot, Slot::State::kReady);
  std::optional<Stall> waited;
  r.ring->release(r.ring->take_front(1ms, &waited));
  calls = 0;
  Slot* next = r.ring->acquire(r.cancel, meanwhile);
  EXPECT_NE(next, nullptr);
  EXPECT_EQ(calls, 0);
}

TEST(SlotRing, TheConsumerWaitsOnWhatTheFrontBatchWaitsOn) {
  Ring r;
  Slot* slot = r.ring->acquire(r.cancel);
  ASSERT_NE(slot, nullptr);
  const std::pair<Slot::State, Stall> cases[] = {{Slot::State::kReading, Stall::kIo},
                                                 {Slot::State::kDecoding, Stall::kCpu},
                                                 {Slot::State::kCopying, Stall::kH2d}};
  for (const auto& [state, expected] : cases) {
    r.ring->advance(*slot, state);
    std::optional<Stall> waited;
    EXPECT_EQ(r.ring->take_front(1ms, &waited), nullptr);
    ASSERT_TRUE(waited.has_value());
    EXPECT_EQ(*waited, expected) << "state " << static_cast<int>(state);
  }
  r.ring->advance(*slot, Slot::State::kReady);
  std::optional<Stall> waited;
  EXPECT_EQ(r.ring->take_front(1ms, &waited), slot);
  EXPECT_FALSE(waited.has_value());  // ready at once: no wait to charge
}

TEST(SlotRing, AFailureReachesTheConsumerAndStopClearsIt) {
  Ring r;
  ASSERT_NE(r.ring->acquire(r.cancel), nullptr);
  r.ring->fail(std::make_exception_ptr(std::runtime_error("disk on fire")));
  EXPECT_TRUE(r.ring->failed());
  std::optional<Stall> waited;
  EXPECT_THROW(r.ring->take_front(1ms, &waited), std::runtime_error);
  r.ring->stop_all();
  EXPECT_FALSE(r.ring->failed());
  EXPECT_EQ(r.ring->in_flight(), 0u);
}

TEST(CopyStage, CopiesRunOnWorkerThreadsNotTheConsumers) {
  testing::TempDir dir;
  testing::make_image_folder(dir.path(), 24, 2);
  LoaderOptions options;
  options.source = dir.path().string();
  options.batch_size = 4;
  options.transform.size = 32;
  options.num_workers = 2;
  options.trace = true;
  options.rank = 0;
  options.world_size = 1;
  Loader loader(options);
  std::size_t batches = 0;
  while (loader.next()) ++batches;
  ASSERT_EQ(batches, 6u);
  std::set<std::uint32_t> copy_threads, consumer_threads;
  std::size_t copies = 0;
  for (const TraceEvent& event : loader.trace().events()) {
    const std::string name = event.name;
    if (name == "copy") {
      copy_threads.insert(event.thread);
      ++copies;
    }
    if (name == "wait" || name == "consumer") consumer_threads.insert(event.thread);
  }
  EXPECT_EQ(copies, batches);
  ASSERT_EQ(consumer_threads.size(), 1u);
  EXPECT_EQ(copy_threads.count(*consumer_threads.begin()), 0u);
}

}  // namespace
}  // namespace feedrate
