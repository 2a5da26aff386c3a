// The SimGrid engine of a unit test that runs one scenario of actors (SimGrid
// allows one engine per process): its configuration is set before the
// platform is built, and one_host() builds the platform most scenarios need.
#pragma once

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

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

  void run() { engine_.run(); }

private:
  std::string name_;
  int argc_ = 1;
  char* argv_[2];
  simgrid::s4u::Engine engine_;
};
