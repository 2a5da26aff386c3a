// The warm rank's relay of the server's futex wakes (ipc/wake_relay.hpp):
// a sleeper whose wake is relayed is woken, by the warm waiter or by the
// relay that leaves; no relay, or requests that are full, leave the wake to
// the server; what a program writes over the relay's words is survived.
#include "doorbell.hpp"
#include "wake_relay.hpp"
#include "waiting_helpers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <thread>

using s4bxi::ipc::Doorbell;
using s4bxi::ipc::kNoWakeRelay;
using s4bxi::ipc::kWakeRelaySlots;
using s4bxi::ipc::relay_wake;
using s4bxi::ipc::SpinBudget;
using s4bxi::ipc::SpinCondition;
using s4bxi::ipc::wait_for_ring;
using s4bxi::ipc::WakeRelay;
using s4bxi::ipc::WakeRelayRole;

namespace {

// Two channels' doorbells, in one area as the segment's channels are.
struct Channels {
  Doorbell sleeper; // rank 1's reply bell
  Doorbell warm;    // rank 2's
  [[nodiscard]] const char* base() const { return reinterpret_cast<const char*>(this); }
  [[nodiscard]] uint32_t offset_of(const Doorbell& bell) const
  {
    return static_cast<uint32_t>(reinterpret_cast<const char*>(&bell.sequence) - base());
  }
};

// Rank 1 waits for its answer and sleeps at once (the server serves another);
// `tid` is its thread.
std::thread sleeping_waiter(Doorbell& bell, std::atomic<uint32_t>& served, std::atomic<bool>& answered,
                            std::atomic<pid_t>& tid)
{
  return std::thread([&bell, &served, &answered, &tid] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    const SpinCondition not_served{&served, 1, nullptr};
    SpinBudget budget;
    wait_for_ring(bell, 0, budget, nullptr, nullptr, &not_served);
    answered = true;
  });
}

} // namespace

TEST(WakeRelay, TheWarmWaiterWakesTheSleeperTheServerHandedIt)
{
  const WithoutContentionDetection steady;
  Channels channels;
  WakeRelay relay;
  std::atomic<uint32_t> served{99};
  std::atomic<uint32_t> warm_word{0};
  std::atomic<bool> answered{false};
  std::atomic<pid_t> tid{0};
  std::thread sleeper = sleeping_waiter(channels.sleeper, served, answered, tid);
  // In the kernel: a waiter that only announced its sleep would see the
  // answer by itself, without the wake under test.
  EXPECT_TRUE(within_a_second([&] { return tid.load() != 0 && asleep_in_futex(tid.load()); }));

  // The server answered rank 1 and handed its wake over while a relay was
  // there (as relay_wake does; that relay has left since, before its turn).
  EXPECT_TRUE(channels.sleeper.publish());
  relay.requests[0] = channels.offset_of(channels.sleeper);
  relay.appended = 1;

  // Rank 2 waits unserved: it takes the warm slot and the relay role with
  // it, and wakes rank 1 at its first turn (or, at the latest, when it
  // leaves: how long it stays warm depends on the machine's load).
  const WakeRelayRole role{&relay, channels.base(), sizeof channels, 2};
  const SpinCondition warm_condition{&served, 2, &warm_word, &role};
  std::thread warm([&] {
    SpinBudget budget;
    wait_for_ring(channels.warm, 0, budget, nullptr, nullptr, &warm_condition);
  });
  EXPECT_TRUE(within_a_second([&] { return answered.load(); })) << "the relayed wake did not come";
  EXPECT_EQ(warm_word.load(), 2U) << "the waiter did not keep warm";
  channels.sleeper.wake(); // (releases it if the relay failed; else nobody sleeps there)
  sleeper.join();
  EXPECT_EQ(relay.taken.load(), 1U);

  // Answered, the warm waiter gives the role up.
  channels.warm.ring();
  warm.join();
  EXPECT_EQ(relay.helper.load(), kNoWakeRelay);
}

TEST(WakeRelay, ARelayThatLeavesWakesWhatWasHandedToItMeanwhile)
{
  Channels channels;
  WakeRelay relay;
  std::atomic<uint32_t> served{99};
  std::atomic<bool> answered{false};
  std::atomic<pid_t> tid{0};
  std::thread sleeper = sleeping_waiter(channels.sleeper, served, answered, tid);
  // In the kernel: a waiter that only announced its sleep would see the
  // answer by itself, without the wake under test.
  EXPECT_TRUE(within_a_second([&] { return tid.load() != 0 && asleep_in_futex(tid.load()); }));
  const WakeRelayRole role{&relay, channels.base(), sizeof channels, 2};
  role.take();
  uint32_t appended = 0;
  uint32_t relayed_to = 0;
  EXPECT_TRUE(channels.sleeper.publish());
  EXPECT_TRUE(relay_wake(relay, appended, channels.offset_of(channels.sleeper), 1, relayed_to));
  role.leave(); // before its next turn: its drain makes the wake
  EXPECT_EQ(relay.helper.load(), kNoWakeRelay);
  EXPECT_TRUE(within_a_second([&] { return answered.load(); })) << "the leaving relay did not wake it";
  channels.sleeper.wake();
  sleeper.join();
}

TEST(WakeRelay, WithoutARelayOrWithNoRoomTheServerWakesItself)
{
  WakeRelay relay;
  uint32_t appended = 0;
  uint32_t to = 0;
  EXPECT_FALSE(relay_wake(relay, appended, 0, 1, to)) << "no relay";
  EXPECT_EQ(appended, 0U);
  relay.helper = 1;
  EXPECT_FALSE(relay_wake(relay, appended, 0, 1, to)) << "the relay is the rank to wake";
  relay.helper = 2;
  for (uint32_t i = 0; i < kWakeRelaySlots; ++i)
    EXPECT_TRUE(relay_wake(relay, appended, 0, 1, to));
  EXPECT_FALSE(relay_wake(relay, appended, 0, 1, to)) << "every slot waits for the relay";
  EXPECT_EQ(appended, kWakeRelaySlots);
}

// A relay that missed a wake (stopped by a debugger) is dropped, unless
// another took the role meanwhile.
TEST(WakeRelay, ARelayThatMissedAWakeIsDropped)
{
  WakeRelay relay;
  relay.helper = 3;
  s4bxi::ipc::drop_relay(relay, 2);
  EXPECT_EQ(relay.helper.load(), 3U) << "another rank's role was taken";
  s4bxi::ipc::drop_relay(relay, 3);
  EXPECT_EQ(relay.helper.load(), kNoWakeRelay);
}

// The page is one every rank writes: garbage in the counts or the offsets
// is dropped or skipped, never followed outside the channel area.
TEST(WakeRelay, GarbageOverTheRelayIsSurvived)
{
  Channels channels;
  WakeRelay relay;
  const WakeRelayRole role{&relay, channels.base(), sizeof channels, 2};
  role.take();
  // A count of requests far ahead of what was taken: dropped.
  relay.appended = 0xa5a5a5a5;
  relay.taken = 3;
  role.serve();
  EXPECT_EQ(relay.taken.load(), 0xa5a5a5a5U);
  // Offsets past the area, or not aligned: skipped.
  relay.appended = relay.taken.load() + 3;
  const uint32_t at = relay.taken.load();
  relay.requests[at % kWakeRelaySlots] = 0xa5a5a5a5;
  relay.requests[(at + 1) % kWakeRelaySlots] = sizeof channels - 2;
  relay.requests[(at + 2) % kWakeRelaySlots] = 1;
  role.serve();
  EXPECT_EQ(relay.taken.load(), at + 3);
  // The server's own count, not the page's, says where it appends: a
  // taken count that the program moved leaves it waking itself.
  uint32_t appended = 0;
  uint32_t to = 0;
  relay.taken = 0x5a5a5a5a;
  EXPECT_FALSE(relay_wake(relay, appended, 0, 1, to));
}
