// The NIC's side of the early answer (memory_work.hpp): which messages and
// operations hold a unit of a rank's count, and the check that the NIC never
// reads or writes the memory of a rank that runs ahead of its call's end.
#include "nic.hpp"

#include <xbt/log.h>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_nic);

namespace s4bxi::nic {

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
