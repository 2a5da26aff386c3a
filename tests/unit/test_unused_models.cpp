// SimGrid's main loop without the models the server never uses
// (simserver/platform/unused_models.hpp): under a real engine, the four are
// left out and the two left (CPUs, network) still end what the server does
// with them at the times SimGrid gives: a computation, a communication
// between two hosts, a sleep, side by side.
// (One engine per process: one scenario.)
#include "platform/unused_models.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <string>
#include <vector>

namespace s4u = simgrid::s4u;

TEST(UnusedModels, LeftOutAndTheRestStillEndsAtSimGridsTimes)
{
  ScenarioEngine scenario("unit_unused_models");
  const ScenarioEngine::TwoHosts hosts = scenario.two_hosts(1e-6);
  s4u::Host* a = hosts.a;
  s4u::Host* b = hosts.b;

  EXPECT_EQ(s4u::Engine::get_instance()->get_all_models().size(), 6U);
  EXPECT_EQ(s4bxi::platform::leave_out_unused_models(), 4);
  std::vector<std::string> left;
  for (const auto* model : s4u::Engine::get_instance()->get_all_models())
    left.push_back(model->get_name());
  ASSERT_EQ(left.size(), 2U);
  EXPECT_EQ(left[0], "Cpu_Cas01");
  EXPECT_EQ(left[1].rfind("Network_", 0), 0U) << left[1]; // the default network model here
  EXPECT_EQ(s4bxi::platform::leave_out_unused_models(), 0); // once is enough

  double computed = -1;
  double sent = -1;
  double slept = -1;
  s4u::Actor::create("compute", a, [&] {
    s4u::this_actor::execute(2e9); // 2 s at 1 Gflop/s
    computed = s4u::Engine::get_clock();
  });
  s4u::Actor::create("send", a, [&] {
    s4u::Comm::sendto(a, b, 1e9); // latency, then 1 s of bandwidth (less SimGrid's 0.97 factor)
    sent = s4u::Engine::get_clock();
  });
  s4u::Actor::create("sleep", b, [&] {
    s4u::this_actor::sleep_for(0.5);
    slept = s4u::Engine::get_clock();
  });
  scenario.run();

  EXPECT_DOUBLE_EQ(computed, 2.0);
  EXPECT_DOUBLE_EQ(slept, 0.5);
  EXPECT_GT(sent, 1.0);
  EXPECT_LT(sent, 1.2);
}
