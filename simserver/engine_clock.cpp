#include "engine_clock.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

namespace s4bxi {

namespace detail {
double engine_clock = 0;
} // namespace detail

namespace {
void copy_the_clock()
{
  detail::engine_clock = simgrid::s4u::Engine::get_clock();
}

// Connected at static initialization (libsimgrid's own is done by then): before
// any callback the server or a test connects, so that those read the new
// time too. A process has one engine, which starts at time 0.
// SimGrid's solve step calls back before the time-advance callbacks, and
// the server listens to those calls too: a communication's action that ends
// or fails as the models update (the clock moved already), and a link that
// a state profile turns off or on (the clock is the event's date for the
// while of that call). So the clock is copied first there as well.
const bool following = [] {
  simgrid::s4u::Engine::on_time_advance_cb([](double) { copy_the_clock(); });
  simgrid::s4u::Link::on_communication_state_change_cb(
      [](simgrid::kernel::resource::NetworkAction&, simgrid::kernel::resource::Action::State) { copy_the_clock(); });
  simgrid::s4u::Link::on_state_change_cb([](const simgrid::s4u::Link&) { copy_the_clock(); });
  simgrid::s4u::Link::on_bandwidth_change_cb([](const simgrid::s4u::Link&) { copy_the_clock(); });
  return true;
}();
} // namespace

} // namespace s4bxi
