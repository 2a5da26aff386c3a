// The wire's communications, ended by the actors that started them when many
// are on their way.
//
// SimGrid 3.32 keeps every detached activity in one std::list of maestro's
// and takes each out with list::remove when it ends: a walk of the whole
// list, so each message costs as many steps as there are messages on their
// way. With 1,024 ranks putting at once (some 700 messages on their way)
// that walk was 8% of the server's time (CommImpl::finish, from
// EngineImpl::handle_ended_actions).
//
// So when many messages are on their way, a message's communication is
// started without being detached: only the actor that started it lists it,
// among its own few, and that actor ends it itself. Each time it puts
// another message on the wire, it waits for its oldest kept ones that have
// ended, in order, up to the first still on its way: a wait for an ended
// communication is answered at once, with no scheduling round (and it is
// the only way to take it off the actor's list: a test leaves it there).
// The receiver gets the message as before, at the same simulated time.
// With few on their way, detaching costs less than that wait.
//
// A detached communication that fails (a link of its route goes off) is
// cleaned at once; one kept here only at its actor's next message. So once
// a link may fail, every communication is detached (World::links_may_fail).
#pragma once

#include "message.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>

namespace s4bxi::nic {

class WireComms {
public:
  // Below this many messages on their way, detaching is the cheaper.
  static constexpr std::size_t kFewOnTheirWay = 64;

  // Ends the calling actor's oldest kept communications that have ended;
  // `failed(message, bytes_on_wire)` cleans one that failed.
  template <typename Failed>
  void end_ended(const Failed& failed)
  {
    if (kept_ == 0)
      return;
    auto found = by_actor_.find(simgrid::s4u::this_actor::get_pid());
    if (found == by_actor_.end())
      return;
    auto& kept = found->second;
    // (An ended communication has nothing left to carry; one on its way has
    // all or part of its bytes: its remaining amount is read, not simulated.)
    while (not kept.empty() && kept.front().comm->get_remaining() <= 0) {
      Kept& oldest = kept.front();
      try {
        oldest.comm->wait();
      } catch (const simgrid::Exception&) { // a link of its route went off
        failed(oldest.message, oldest.bytes_on_wire);
      }
      kept.pop_front();
      kept_--;
    }
  }

  // Keeps `comm`, which the calling actor has just started to carry `message`.
  void keep(simgrid::s4u::CommPtr comm, Message* message, uint64_t bytes_on_wire)
  {
    by_actor_[simgrid::s4u::this_actor::get_pid()].push_back({std::move(comm), message, bytes_on_wire});
    kept_++;
  }

  // How many communications are kept, by all actors (for tests).
  [[nodiscard]] std::size_t kept() const { return kept_; }

private:
  struct Kept {
    simgrid::s4u::CommPtr comm;
    Message* message;
    uint64_t bytes_on_wire;
  };

  std::size_t kept_ = 0;
  std::unordered_map<aid_t, std::deque<Kept>> by_actor_;
};

} // namespace s4bxi::nic
