// The SimGrid engine of a unit test that runs one scenario of actors (SimGrid
// allows one engine per process): its configuration is set before the
// platform is built, and one_host() builds the platform most scenarios need.
#pragma once

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <functional>
#include <initializer_list>
#include <string>

class ScenarioEngine {
public:
  explicit ScenarioEngine(const char* program, std::initializer_list<const char*> config = {})
      : name_(program), argv_{name_.data(), nullptr}, engine_(&argc_, argv_)
  {
    for (const char* setting : config)
      simgrid::s4u::Engine::set_config(setting);
  }

  // A full zone with one host (1 Gflop/s), sealed.
  simgrid::s4u::Host* one_host()
  {
    auto* zone = simgrid::s4u::create_full_zone("zone");
    simgrid::s4u::Host* host = zone->create_host("host", 1e9);
    zone->seal();
    return host;
  }

  // A full zone with two hosts "a" and "b" (1 Gflop/s each) routed through one
  // link of 1 GB/s and `latency`, which `set_up` may change before it is sealed.
  struct TwoHosts {
    simgrid::s4u::Host* a;
    simgrid::s4u::Host* b;
    simgrid::s4u::Link* link;
  };
  TwoHosts two_hosts(double latency, const std::function<void(simgrid::s4u::Link*)>& set_up = {})
  {
    auto* zone = simgrid::s4u::create_full_zone("zone");
    TwoHosts hosts{zone->create_host("a", 1e9), zone->create_host("b", 1e9),
                   zone->create_link("link", 1e9)->set_latency(latency)};
    if (set_up)
      set_up(hosts.link);
    hosts.link->seal();
    zone->add_route(hosts.a->get_netpoint(), hosts.b->get_netpoint(), nullptr, nullptr,
                    {simgrid::s4u::LinkInRoute(hosts.link)});
    zone->seal();
    return hosts;
  }

  void run() { engine_.run(); }

private:
  std::string name_;
  int argc_ = 1;
  char* argv_[2];
  simgrid::s4u::Engine engine_;
};
