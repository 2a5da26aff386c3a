// The forecast of a PtlPut that a process queues itself (ipc::PutForecast,
// preload/queued_puts.hpp): when nothing but the Put itself can reach the
// CPU-to-NIC side of the rank's node before it has left, its end and its
// SEND event follow from the model's parameters alone.
//
// A queued Put's payload beyond what its command carries inline is written
// over PCIe by PIO when the server runs it, then its command (nic.cpp,
// submit); then the TX engine takes it (after its TX delay) and, for a
// payload it keeps in its E2E context (s4bxi/early-send-limit) or a message
// sent without E2E, writes the SEND event, which lands a PCIe write later
// (nic.cpp, transmit); a larger payload's SEND comes with the message's
// acknowledgment (initiator.cpp), after the target's RX delay at the least.
// Another command, a DMA read, a request in a TX queue of the node or a
// response whose payload its engine reads would delay these steps (a
// response without one takes the engines of the other virtual network); with the rank alone on its node none comes from another
// process, and what the NIC could start itself (a response, a DMA read for
// one, a released triggered operation, an E2E retransmission) comes no
// earlier than the NIC's next event write, which LandingBounds bounds. So a
// Put that starts early enough for its PCIe writes and TX delay to end by
// then goes exactly so.
#include "nic.hpp"

#include "../model_options.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace s4bxi::nic {

void configure_put_forecasts(World& world)
{
  double least_rx = std::numeric_limits<double>::infinity();
  double least_tx = std::numeric_limits<double>::infinity();
  for (const auto& nic : world.nics) {
    least_rx = std::min(least_rx, nic->params_.rx_delay_s);
    least_tx = std::min(least_tx, nic->params_.tx_delay_s);
  }
  const bool on = options::put_forecasts() && options::queued_puts() && options::local_polls();
  for (const auto& nic : world.nics) {
    nic->least_rx_s_ = least_rx;
    nic->least_tx_s_ = least_tx;
    nic->forecasts_exact_ = on && not nic->params_.quick_acks && nic->lone_writes_exact_;
  }
}

ipc::PutForecast Nic::forecast_put(double now, double earliest_write)
{
  ipc::PutForecast forecast;
  // (A response the NIC sends meanwhile takes the engines of the other
  // virtual network, and the wire after the Put's SEND: only one whose
  // payload its engine reads by DMA would share the Put's PCIe side.)
  if (not forecasts_exact_ || ranks_on_node_ != 1 || not world_.landing.sends_no_request(node_.nid) ||
      not world_.landing.reads_nothing(node_.nid) ||
      not dma_reads_.empty() || queue(VirtualNetwork::Request).free_slots() < 1)
    return forecast;
  const double command = params_.model_pci_commands ? command_write_s_ : 0.0;
  // The latest start whose command write (after the PIO write of its payload,
  // which the process adds) and TX delay end by the NIC's next possible event
  // write (its SEND then lands by the horizon too).
  const double until = earliest_write - command - params_.tx_delay_s;
  if (not(until > now))
    return forecast;
  // An event the TX engine writes lands a PCIe write later (the delay of
  // portals::event_landing_time, which adds its terms to the clock one by one).
  const double event_write = params_.pci_latency_s + kEventBytes / params_.pci_bandwidth_Bps;
  forecast.until = until;
  forecast.command_s = command;
  if (params_.model_pci_commands) { // (else no PIO write either: Nic::submit)
    forecast.pio_latency_s = pcie_latency_s_;
    forecast.pio_Bps = pcie_narrowest_Bps_;
  }
  forecast.send_landing_s = params_.tx_delay_s + event_write;
  // A SEND that comes with the acknowledgment: the target's RX engine
  // handles the message and sends a BXI ACK at once, which this RX engine
  // takes without delay (the wires cross no time at the least).
  forecast.late_send_s = params_.tx_delay_s + least_rx_s_ + event_write;
  // Its other events here come with its answer: the target's RX engine
  // handles it and its TX engine sends the answer, which this RX engine
  // handles (the wires again crossing no time).
  forecast.own_events_s = params_.tx_delay_s + least_rx_s_ + least_tx_s_ + params_.response_delay_s + event_write;
  forecast.send_at_tx_max = params_.e2e ? static_cast<uint32_t>(params_.early_send_limit) : UINT32_MAX;
  forecast.dma_payloads = options::queued_dma_puts() ? 1 : 0;
  forecast.max_length_matching = static_cast<uint32_t>(params_.pio_limit_matching);
  forecast.max_length_plain = static_cast<uint32_t>(params_.pio_limit_plain);
  forecast.inline_matching = static_cast<uint32_t>(params_.inline_limit_matching);
  forecast.inline_plain = static_cast<uint32_t>(params_.inline_limit_plain);
  return forecast;
}

} // namespace s4bxi::nic
