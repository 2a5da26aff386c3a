// pthread_create, interposed: every thread the program creates gets a lane
// of its own to the server, opened at its creator's simulated time (the
// simulation goes on only once the thread has called or blocked),
// and the preemption timer of sync_timer.cpp when it starts, so that a
// helper thread spinning on memory is interrupted like the main thread; and
// the server learns that the rank has threads (one may PtlAbort another's
// wait).
#include "export.hpp"
#include "rank_client.hpp"
#include "real_functions.hpp"
#include "sim_clock.hpp"
#include "sync_timer.hpp"

#include <cerrno>
#include <new>

namespace {

struct Start {
  void* (*routine)(void*);
  void* argument;
  int lane;        // taken for it by its creator, or -1
  int64_t born_ns; // its creator's clock once the lane was open
};

void* start_with_timer(void* raw)
{
  Start start = *static_cast<Start*>(raw);
  delete static_cast<Start*>(raw);
  s4bxi::preload::client::adopt_lane(start.lane, start.born_ns);
  s4bxi::preload::sync_timer::start_for_new_thread();
  return start.routine(start.argument);
}

} // namespace

extern "C" S4BXI_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attributes,
                                           void* (*routine)(void*), void* argument)
{
  namespace client = s4bxi::preload::client;
  auto* start = new (std::nothrow) Start{routine, argument, -1, 0};
  if (start == nullptr)
    return EAGAIN;
  const int lane = client::claim_lane_for_new_thread();
  start->lane = lane;
  start->born_ns = s4bxi::preload::sim_clock::now_ns();
  const int result = s4bxi::preload::real::pthread_create(thread, attributes, start_with_timer, start);
  if (result != 0) {
    client::release_unborn_lane(lane);
    delete start;
  } else {
    client::note_thread_created();
    client::open_lane_of_new_thread(lane);
  }
  return result;
}
