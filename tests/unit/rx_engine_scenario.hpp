// One RX engine of a NIC and the wire that brings it messages, under a real
// SimGrid engine (ScenarioEngine), for the tests of what the wire hands to
// the simulation instead of the engine (simserver/nic/wire.hpp): two hosts
// behind one link of CM02 with unit factors and no cross-traffic, so that a
// message's way is its latency, then its bytes at the link's bandwidth; a
// sender host whose actors send named messages; and an engine that works as
// the NIC's do (nic.cpp, rx_loop): it takes a message, sleeps its delay unless
// that has run or it is a BXI ACK, and handles it. What is handled, where and
// when, is written down in `handled`.
#pragma once

#include "actor_sleep.hpp"
#include "nic/wire.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <map>
#include <string>
#include <vector>

class RxEngineScenario {
  // (First: the SimGrid engine exists before the wire and the lane.)
  ScenarioEngine scenario_;
  ScenarioEngine::TwoHosts hosts_;

public:
  static constexpr double kBandwidth = 1e9; // B/s (ScenarioEngine::two_hosts)
  static constexpr double kLatency = 1e-3;  // s
  static constexpr double kDelay = 2e-4;    // s, the engine's
  static constexpr uint64_t kBytes = 100;
  // A message's way over the link.
  static constexpr double kWay = kLatency + static_cast<double>(kBytes) / kBandwidth;

  struct Handled {
    std::string name;
    double taken; // when the engine took it (RxLane::taken_at), or its landing (in maestro)
    double at;    // when it was handled
    bool by_engine;
  };

  explicit RxEngineScenario(const char* program)
      : scenario_(program, {"network/model:CM02", "network/latency-factor:1", "network/bandwidth-factor:1",
                            "network/TCP-gamma:0", "network/crosstraffic:0"}),
        hosts_(scenario_.two_hosts(kLatency))
  {
    simgrid::s4u::Actor::create("rx", hosts_.b, [this] {
      wire.serve(lane, kDelay);
      while (true) {
        s4bxi::nic::MessagePtr message = lane.next();
        if (message->kind != s4bxi::nic::Message::Kind::BxiAck && not lane.delay_ran())
          s4bxi::sleep_until(lane.taken_at() + kDelay);
        handled.push_back({name_of(*message), lane.taken_at(), simgrid::s4u::Engine::get_clock(), true});
      }
    })->daemonize();
  }

  // A message of `kind` from the sender host (to be called from an actor there).
  void send(const std::string& name, s4bxi::nic::Message::Kind kind, bool acknowledges_response = false)
  {
    s4bxi::nic::MessagePtr message(new s4bxi::nic::Message);
    message->kind = kind;
    message->acknowledges_response = acknowledges_response;
    names_[message.get()] = name;
    wire.carry(message, kBytes, hosts_.a, hosts_.b, 0, lane, on_lost_, /*links_may_fail=*/false);
  }
  // Runs `script` on the sender host, then the scenario (the engine, a
  // daemon, ends with the last other actor).
  template <class Script> void run(Script script)
  {
    simgrid::s4u::Actor::create("sender", hosts_.a, script);
    scenario_.run();
  }
  [[nodiscard]] const std::string& name_of(const s4bxi::nic::Message& message) const { return names_.at(&message); }

  s4bxi::nic::Wire wire{-1}; // (host-to-host communications: nothing crosses alone)
  s4bxi::nic::RxLane lane;
  std::vector<Handled> handled;

private:
  std::map<const s4bxi::nic::Message*, std::string> names_;
  const s4bxi::nic::LostHandler on_lost_ = [](s4bxi::nic::Message&, uint64_t) { ADD_FAILURE() << "a message lost"; };
};
