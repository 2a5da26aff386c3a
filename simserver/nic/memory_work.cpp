// The NIC's side of the early answer (memory_work.hpp): which messages and
// operations hold a unit of a rank's count, and the check that the NIC never
// reads or writes the memory of a rank that runs ahead of its call's end.
#include "nic.hpp"

#include "../model_options.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <limits>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_nic);

namespace s4bxi::nic {

namespace {

// A write of `bytes` over PCIe with nothing else on the bus: the route's
// latency, and the bytes at its narrowest bandwidth.
double fastest_write_s(double latency_s, double narrowest_Bps, uint64_t bytes)
{
  return latency_s + static_cast<double>(bytes) / narrowest_Bps;
}

} // namespace

// A request sent by another process once this one was answered lands here
// after the RX engine's delay, which follows its own command write (a
// triggered operation's registration is one too) and TX delay; the wire is
// left out, as if it took no time. If even that comes after the end of this node's writes of
// a command (and its PIO payload) with nothing else on the bus, nothing sent
// meanwhile lands during them (writes slowed down by other traffic on the
// bus could still last longer: Nic::touch_memory).
void judge_early_answers(World& world)
{
  const auto& nics = world.nics;
  const auto header = static_cast<uint64_t>(options::header_bytes());
  double earliest_command = std::numeric_limits<double>::infinity();
  for (const auto& nic : nics) {
    std::vector<simgrid::s4u::Link*> links;
    nic->node_.cpu->route_to(nic->node_.nic, links, &nic->pcie_latency_s_);
    nic->pcie_narrowest_Bps_ = std::numeric_limits<double>::infinity();
    for (const auto* link : links)
      nic->pcie_narrowest_Bps_ = std::min(nic->pcie_narrowest_Bps_, link->get_bandwidth());
    nic->lone_writes_exact_ = lone_writes_exact(links, nic->pcie_latency_s_, nic->pcie_narrowest_Bps_);
    nic->command_write_s_ = fastest_write_s(nic->pcie_latency_s_, nic->pcie_narrowest_Bps_, header);
    earliest_command = std::min(earliest_command, nic->command_write_s_ + nic->params_.tx_delay_s);
  }
  for (const auto& nic : nics) {
    nic->earliest_landing_s_ = earliest_command + nic->params_.rx_delay_s;
    nic->ranks_on_node_ = 0;
  }
  for (const auto& rank : world.ranks)
    nics[rank.node]->ranks_on_node_++;
}

bool Nic::early_answer_exact(uint64_t pio_bytes)
{
  // A full command queue would hold the command back after its write, for
  // as long as the NIC takes to free a slot: the rank would run meanwhile.
  // Every rank of the node may push one command during the write.
  if (queue(VirtualNetwork::Request).free_slots() < ranks_on_node_)
    return false;
  double writes = command_write_s_;
  if (pio_bytes > 0)
    writes += fastest_write_s(pcie_latency_s_, pcie_narrowest_Bps_, pio_bytes);
  return writes < earliest_landing_s_;
}

void Nic::take_memory_work(Message& message)
{
  // The target's memory: written by a Put or an atomic, read by a Get or a
  // fetching atomic, when the target's NIC handles the request.
  if (RankPortals* target = world_.find(portals_nid(message.dst_nid), message.dst_pid))
    message.target_memory = MemoryWork(target->nic_memory_work);
  // The initiator's: the reply data of a Get or fetching atomic lands in it,
  // and a payload too large for the command (or a triggered operation's,
  // when it is released) is read from it by DMA.
  if (message.op && (message.op->receives_data() || message.needs_dma_read))
    message.op->initiator_memory = MemoryWork(world_.ranks[message.op->rank].nic_memory_work);
}

void Nic::touch_memory(const RankPortals& rank)
{
  if (not rank.running_ahead)
    return;
  // Only a message sent after the rank was answered can land here before
  // its PCIe command write ended: the write took longer than the fastest
  // path of another command to this rank's memory.
  if (world_.early_answer_overlaps++ == 0)
    XBT_WARN("rank %u ran ahead of its call's end (s4bxi/early-put-answer) while the NIC accessed its memory: its "
             "simulated results may differ from a run with --cfg=s4bxi/early-put-answer:no (counted in the report)",
             rank.rank);
}

} // namespace s4bxi::nic
