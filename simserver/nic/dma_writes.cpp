// The NIC's DMA writes of payloads to host memory, as the network model sees
// them (s4bxi/lone-dma-writes).
//
// A write is posted: the NIC goes on at once, and the bytes are in memory
// before any event about them (write_to_host). Nobody waits for its PCIe
// transfer: event writes are not transfers of the network model (their
// landing is computed: portals/event_delivery.cpp), and the CPU-to-NIC
// transfers (commands, DMA reads) take the other side of the node's
// split-duplex link, and cross the per-transfer cap beside it, which is a
// FATPIPE link and shares nothing. So where no other traffic runs on the
// links of the NIC-to-CPU route (platform::host_writes_share_no_link), a write
// can slow down only other such writes, which nobody waits for either: the
// network model's communication for it changes nothing that happens, and costs
// an activity of the model and two scheduling rounds (the end of its latency
// and its end). The write is still counted and traced as before.
//
// What it does change is SimGrid's own arithmetic, by the rounds it adds:
// with network/optim:Full (the exact solver), an ACK and a BXI ACK that one
// node sent at one instant in mpi_collectives on a 16-node fat tree, landing
// together, were handled in the other order; with the lazy
// solver (the default), the 27-rank halo on a 2-level fat tree had one Put land
// 0.63 ns earlier with the writes, during 5 ns in which a link of its route
// carried 1.56e10 B/s of its 1.25e10 (the lazy solver left the link
// overcommitted until a later round; Link::get_usage, every round, both runs).
// The lazy solver's results there differ from the exact solver's by up to 7.5
// ns either way.
#include "nic.hpp"

#include "../model_options.hpp"

#include <simgrid/s4u/Comm.hpp>

namespace s4bxi::nic {

void configure_lone_dma_writes(World& world, const std::string& platform_spec)
{
  if (not options::lone_dma_writes() || not platform::host_writes_share_no_link(world.nodes, platform_spec))
    return;
  for (const auto& nic : world.nics)
    nic->dma_writes_in_network_ = false;
}

void Nic::load_host_link(uint64_t bytes)
{
  if (not dma_writes_in_network_) {
    world_.lone_dma_writes++;
    return;
  }
  // Below one PCIe packet its load is negligible and its latency is on no
  // path: not simulated at all (it would cost an activity per small message).
  if (bytes < kPciePacketBytes)
    return;
  simgrid::s4u::Comm::sendto_init(node_.nic, node_.cpu)->set_payload_size(static_cast<double>(bytes))->detach();
}

} // namespace s4bxi::nic
