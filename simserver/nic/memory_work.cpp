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

// A command's PCIe write from the node's CPU to its NIC with nothing else on
// the bus: the route's latency, and the command at its narrowest bandwidth.
double fastest_command_write_s(const platform::Node& node)
{
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  node.cpu->route_to(node.nic, links, &latency);
  double bandwidth = std::numeric_limits<double>::infinity();
  for (const auto* link : links)
    bandwidth = std::min(bandwidth, link->get_bandwidth());
  return latency + static_cast<double>(options::header_bytes()) / bandwidth;
}

} // namespace

// A request sent by another process once this one was answered lands here
// after the RX engine's delay, which follows its own command write (or, for a
// triggered operation, its release) and TX delay; the wire is left out, as if
// it took no time. If even that comes after the end of this node's fastest
// command write, nothing sent meanwhile lands during it (a write slowed down
// by other traffic on the bus could still last longer: Nic::touch_memory).
void judge_early_answers(const std::vector<std::unique_ptr<Nic>>& nics)
{
  double earliest_command = std::numeric_limits<double>::infinity();
  double earliest_release = std::numeric_limits<double>::infinity();
  for (const auto& nic : nics) {
    const double tx = nic->params_.tx_delay_s;
    earliest_command = std::min(earliest_command, fastest_command_write_s(nic->node_) + tx);
    earliest_release = std::min(earliest_release, tx);
  }
  for (const auto& nic : nics) {
    const double write = fastest_command_write_s(nic->node_);
    nic->early_answers_exact_ = write < earliest_command + nic->params_.rx_delay_s;
    nic->early_answers_exact_with_triggered_ = write < earliest_release + nic->params_.rx_delay_s;
  }
}

void Nic::take_memory_work(Message& message)
{
  // The target's memory: written by a Put or an atomic, read by a Get or a
  // fetching atomic, when the target's NIC handles the request.
  if (RankPortals* target = world_.find(portals_nid(message.dst_nid), message.dst_pid))
    message.target_memory = MemoryWork(target->nic_memory_work);
  // The initiator's: the reply data of a Get or fetching atomic lands in it,
  // and a payload too large for the command is read from it by DMA.
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
