// pthread_create, interposed: every thread the program creates gets the
// preemption timer of sync_timer.cpp when it starts, so that a helper thread
// spinning on memory is interrupted like the main thread; and the server
// learns that the rank has threads (one may PtlAbort another's wait).
#include "export.hpp"
#include "rank_client.hpp"
#include "real_functions.hpp"
#include "sync_timer.hpp"

#include <cerrno>
#include <new>

namespace {

struct Start {
  void* (*routine)(void*);
  void* argument;
};

void* start_with_timer(void* raw)
{
  Start start = *static_cast<Start*>(raw);
  delete static_cast<Start*>(raw);
  s4bxi::preload::sync_timer::start_for_new_thread();
  return start.routine(start.argument);
}

} // namespace

extern "C" S4BXI_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attributes,
                                           void* (*routine)(void*), void* argument)
{
  auto* start = new (std::nothrow) Start{routine, argument};
  if (start == nullptr)
    return EAGAIN;
  const int result = s4bxi::preload::real::pthread_create(thread, attributes, start_with_timer, start);
  if (result != 0)
    delete start;
  else
    s4bxi::preload::client::note_thread_created();
  return result;
}
