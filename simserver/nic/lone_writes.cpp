// PCIe writes from a node's CPU to its NIC with nothing else on that
// direction of the bus: how long SimGrid's network model makes them last,
// and when the NIC may sleep that time instead of starting a communication
// (s4bxi/lone-commands).
//
// A rank's command (and its PIO payload before it) is written over the
// CPU-to-NIC direction of its node's PCIe link (platform/cluster.cpp; the
// NIC's DMA writes to the host take the other direction). Nothing else uses
// that direction but another command (of another rank of the node, or of
// another thread of the rank) and the DMA reads of the node's TX engines; and
// a TX engine starts one only for a message it takes: one in its queue now,
// or one the NIC creates when it handles a message (a response, a released
// triggered operation), which comes no earlier than the node's next event
// write (LandingBounds). So with the rank alone on its node, without
// threads, with no DMA read in progress and no message in the TX queues
// whose payload its engine will read (a response without payload reads
// nothing), a write that ends by then is alone for its whole length; a SimGrid
// communication would take exactly its latency and then its bytes at the
// route's narrowest bandwidth (lone_writes_exact), and a sleep to that time
// gives the same simulated results, for one scheduling round less (the end
// of the latency is one) and no activity in the network model.
#include "nic.hpp"

#include "../actor_sleep.hpp"
#include "../model_options.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <string>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_nic);

namespace s4bxi::nic {

bool lone_writes_exact(const std::vector<simgrid::s4u::Link*>& route, double latency_s, double narrowest_Bps)
{
  // SimGrid's CM02 model with unit factors, no TCP window narrower than the
  // route (network/TCP-gamma 0 is none), and every shared link of the route
  // wide enough that the crosstraffic of writes the other way (5% of their
  // rate, at most the link's bandwidth in all, network/crosstraffic) leaves
  // it the narrowest bandwidth.
  if (simgrid::config::get_value<std::string>("network/model") != "CM02" ||
      simgrid::config::get_value<double>("network/latency-factor") != 1.0 ||
      simgrid::config::get_value<double>("network/bandwidth-factor") != 1.0)
    return false;
  const double gamma = simgrid::config::get_value<double>("network/TCP-gamma");
  if (gamma > 0 && latency_s > 0 && gamma / (2.0 * latency_s) < narrowest_Bps)
    return false;
  const double crosstraffic = simgrid::config::get_value<bool>("network/crosstraffic") ? 0.05 : 0.0;
  for (const auto* link : route)
    if (link->get_sharing_policy() != simgrid::s4u::Link::SharingPolicy::FATPIPE &&
        link->get_bandwidth() * (1.0 - crosstraffic) < narrowest_Bps)
      return false;
  return true;
}

double Nic::lone_write_end(double start, uint64_t bytes) const
{
  // As SimGrid adds them: the end of the latency is a date of its own.
  return (start + pcie_latency_s_) + static_cast<double>(bytes) / pcie_narrowest_Bps_;
}

bool Nic::writes_alone(const Message& message, uint64_t pio_bytes, double start)
{
  // (A thread of the rank that has made no Portals call yet may make its
  // first one during the write, in a race that real time decides: noticed,
  // counted and said by note_lone_overlap.)
  if (not options::lone_commands() || not lone_writes_exact_ || ranks_on_node_ != 1 || not dma_reads_.empty() ||
      not world_.landing.reads_nothing(node_.nid) || not message.op ||
      world_.ranks[message.op->rank].calling_lanes != 0)
    return false;
  // (From the clock to `start`, the rank's time, nothing starts on that
  // side either, for the same reasons.)
  const double now = sim_now();
  const double pio_end = pio_bytes > 0 ? lone_write_end(start, pio_bytes) : start;
  const double end = lone_write_end(pio_end, static_cast<uint64_t>(options::header_bytes()));
  if (not(world_.landing.earliest_write(node_.nid, now) > end))
    return false;
  world_.lone_commands++;
  lone_until_ = end;
  return true;
}

void Nic::write_over_pcie(bool alone, double start, uint64_t bytes, RankPortals* caller)
{
  if (alone) {
    const double end = lone_write_end(start, bytes);
    if (caller != nullptr)
      caller->sleep_in_call_until(end); // (its command is in then, not sooner)
    else
      s4bxi::sleep_until(end);
    return;
  }
  note_lone_overlap();
  simgrid::s4u::Comm::sendto(node_.cpu, node_.nic, bytes);
}

void Nic::note_lone_overlap()
{
  if (lone_until_ <= sim_now())
    return;
  if (world_.lone_command_overlaps++ == 0)
    XBT_WARN("a PCIe write of node %u began while a command was written alone (s4bxi/lone-commands): a thread's "
             "first Portals call came meanwhile; both writes may end up to their bandwidth's part earlier than with "
             "--cfg=s4bxi/lone-commands:no (counted in the report)",
             node_.nid);
}

} // namespace s4bxi::nic
