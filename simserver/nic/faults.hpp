// Fault injection, to exercise the NIC's end-to-end reliability.
//
// A message is lost when it does not reach the RX engine of its destination:
//  - the fault model drops it when its TX engine puts it on the wire: with
//    probability s4bxi/fault-loss-rate at each faulty node (source or
//    destination in s4bxi/fault-nodes) and each faulty link of its route
//    (s4bxi/fault-links), every message being exposed once when neither list
//    is given; or as the first message exposed at or after a time of
//    s4bxi/fault-drop-at. A dropped message still loads the links of its
//    route (its bytes travel, nobody receives them);
//  - or its SimGrid communication fails: a link of its route is off (see
//    s4bxi/link-down) when it starts or before its last byte arrives.
// A lost message has no effect at the receiver and the sender is not told:
// only the E2E timeout of a reliable message recovers it (a Put from a
// PTL_MD_UNRELIABLE MD never is one: its loss is final). A lost BXI ACK is
// recovered when the message it acknowledged is sent again (the receiver
// recognizes the duplicate and acknowledges it again).
#pragma once

#include "message.hpp"
#include "../platform/cluster.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace s4bxi::nic {

struct LinkOutage {
  std::string link;
  double start = 0;
  double duration = 0;
};

struct ScheduledDrop {
  double time = 0;
  std::optional<Message::Kind> kind; // any kind when empty
};

// Parsers of the option values (throw std::invalid_argument with a sentence).
std::vector<std::string> split_list(const std::string& text); // comma-separated, blanks trimmed, empties dropped
std::vector<LinkOutage> parse_link_down(const std::string& spec);  // LINK@START+DURATION,...
std::vector<ScheduledDrop> parse_drop_at(const std::string& spec); // T[/KIND],... sorted by time
std::optional<Message::Kind> kind_by_name(const std::string& name); // put, get, ack, response, bxi-ack

class Faults {
public:
  // From the s4bxi/fault-* and s4bxi/link-down options; schedules the link
  // outages. Throws std::invalid_argument for an unknown node or link, a PCIe
  // link, or a malformed value.
  static std::shared_ptr<Faults> from_options(const std::vector<platform::Node>& nodes);

  // Whether `message`, being put on the wire now by its source NIC, is lost.
  // Draws from the source node's generator: deterministic for a given seed.
  bool lose(const Message& message);

  [[nodiscard]] bool active() const { return active_; }
  // Whether any message can be lost: dropped, or on a link that goes down.
  [[nodiscard]] bool can_lose() const { return active_ || turns_links_off(); }
  // Whether links go down during the run (s4bxi/link-down).
  [[nodiscard]] bool turns_links_off() const { return not link_events_.empty(); }

private:
  explicit Faults(const std::vector<platform::Node>& nodes) : nodes_(nodes) {}
  // Faulty nodes and links a message from `src` to `dst` crosses.
  int exposure(unsigned src, unsigned dst);
  void schedule(const LinkOutage& outage, const std::vector<simgrid::s4u::Link*>& links);
  void run_link_events(); // the link_faults actor

  struct LinkEvent {
    double time = 0;
    std::vector<simgrid::s4u::Link*> links;
    std::string name;
    bool down = false;
  };

  std::vector<platform::Node> nodes_;
  bool active_ = false;
  bool everywhere_ = false; // a loss rate without a list of nodes or links
  double rate_ = 0;
  std::vector<bool> faulty_node_;
  std::set<const simgrid::s4u::Link*> faulty_links_;
  std::vector<int8_t> route_exposure_; // faulty links per (src, dst), -1: not computed yet
  std::vector<ScheduledDrop> drops_;
  std::vector<std::mt19937_64> generators_; // by source node
  std::vector<LinkEvent> link_events_;
  std::map<simgrid::s4u::Link*, int> outages_in_progress_;
};

} // namespace s4bxi::nic
