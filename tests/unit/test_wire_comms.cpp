// The wire's kept communications (simserver/nic/wire_comms.hpp) under a real
// SimGrid engine: messages sent through kept communications arrive at the
// same simulated times as through detached ones, the sender's actor ends
// them as it goes (so it keeps only those still on their way), and one that
// a link failure ended is handed to the cleaner at the actor's next message
// (and only such one).
// (One engine per process: one scenario.)
#include "nic/wire_comms.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace s4u = simgrid::s4u;
using s4bxi::nic::Message;
using s4bxi::nic::WireComms;

TEST(WireComms, KeptCommunicationsArriveAsDetachedOnesAndAreEndedAsTheActorGoes)
{
  ScenarioEngine scenario("unit_wire_comms", {"network/model:CM02"});
  auto* zone = s4u::create_full_zone("zone");
  s4u::Host* sender = zone->create_host("sender", 1e9);
  s4u::Host* receiver = zone->create_host("receiver", 1e9);
  s4u::Link* link = zone->create_link("wire", 1e7)->set_latency(1e-3);
  zone->add_route(sender->get_netpoint(), receiver->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(link)}, true);
  zone->seal();

  // A burst of 100 messages of 100 B, one every 10 us: about 100 on their
  // way at once (1 ms of latency), sharing the link. Sent detached at t = 0,
  // then the same burst kept at t = 1, then a burst during which the link
  // goes off, then one message once it is on again.
  constexpr int kBurst = 100;
  constexpr double kKeptStart = 1.0;
  constexpr double kFailingStart = 2.0;
  std::vector<std::unique_ptr<Message>> messages;
  for (int i = 0; i < 3 * kBurst + 1; ++i)
    messages.push_back(std::make_unique<Message>());
  std::vector<double> arrived(messages.size(), -1);
  std::vector<Message*> failed;
  std::size_t most_kept = 0;
  std::size_t kept_before_last = 0;
  WireComms wire;
  s4u::Mailbox* inbox = s4u::Mailbox::by_name("inbox");
  auto clean = [&failed](Message* message, uint64_t /*bytes*/) { failed.push_back(message); };

  s4u::ActorPtr rx = s4u::Actor::create("rx", receiver, [&] {
    while (true) {
      Message* message = nullptr;
      try {
        message = inbox->get<Message>();
      } catch (const simgrid::NetworkFailureException&) {
        continue; // lost on the link (as in Nic::receive)
      }
      for (std::size_t i = 0; i < messages.size(); ++i)
        if (messages[i].get() == message)
          arrived[i] = s4u::Engine::get_clock();
    }
  });
  rx->daemonize();
  inbox->set_receiver(rx);
  s4u::Actor::create("tx", sender, [&] {
    auto burst = [&](int first, bool keep) {
      for (int i = first; i < first + kBurst; ++i) {
        auto comm = inbox->put_init(messages[i].get(), 100);
        wire.end_ended(clean);
        if (keep) {
          comm->start();
          wire.keep(comm, messages[i].get(), 100);
        } else {
          comm->detach();
        }
        most_kept = std::max(most_kept, wire.kept());
        s4u::this_actor::sleep_for(1e-5);
      }
    };
    burst(0, false);
    s4u::this_actor::sleep_until(kKeptStart);
    burst(kBurst, true);
    s4u::this_actor::sleep_until(kFailingStart);
    burst(2 * kBurst, true);
    s4u::this_actor::sleep_until(kFailingStart + 1.0);
    kept_before_last = wire.kept();
    auto last = inbox->put_init(messages.back().get(), 100);
    wire.end_ended(clean);
    last->start();
    wire.keep(last, messages.back().get(), 100);
    s4u::this_actor::sleep_for(0.1); // (the simulation ends with the last actor that is not a daemon)
  });
  // The link is off from half-way through the third burst, for a while.
  s4u::Actor::create("outage", sender, [&] {
    s4u::this_actor::sleep_until(kFailingStart + kBurst / 2 * 1e-5);
    link->turn_off();
    s4u::this_actor::sleep_for(0.1);
    link->turn_on();
  });
  scenario.run();

  for (int i = 0; i < kBurst; ++i) {
    ASSERT_GT(arrived[i], 0) << "detached message " << i;
    ASSERT_GT(arrived[kBurst + i], 0) << "kept message " << i;
    EXPECT_NEAR(arrived[kBurst + i] - kKeptStart, arrived[i], 1e-12) << "message " << i;
  }
  // The actor kept only what was on its way: at most the burst, and
  // fewer than the burst once the first ones had arrived.
  EXPECT_LE(most_kept, static_cast<std::size_t>(kBurst));
  EXPECT_GT(most_kept, 10U);
  // The failing burst: those sent before the outage arrived, or failed on
  // the link; those sent during it failed. Every one of them that did not
  // arrive was handed to the cleaner at the next message, and only those.
  std::size_t lost = 0;
  for (int i = 2 * kBurst; i < 3 * kBurst; ++i)
    if (arrived[i] < 0)
      lost++;
  EXPECT_GT(lost, static_cast<std::size_t>(kBurst / 2) - 1);
  EXPECT_EQ(failed.size(), lost);
  for (Message* message : failed) {
    const auto index = static_cast<std::size_t>(
        std::find_if(messages.begin(), messages.end(), [message](const auto& m) { return m.get() == message; }) -
        messages.begin());
    EXPECT_LT(arrived[index], 0);
  }
  // (The burst's last one, which failed, waited for that next message.)
  EXPECT_GE(kept_before_last, 1U);
  EXPECT_GT(arrived.back(), kFailingStart + 1.0);
}
