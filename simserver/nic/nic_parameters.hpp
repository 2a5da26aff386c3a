// The model parameters of one node's NIC and PCIe: the global options
// (model_options.hpp), each overridable per node by a property of the same
// name on the node's NIC host in an XML platform, e.g.
//   <host id="node3_NIC" ...><prop id="s4bxi/nic-rx-delay" value="3e-7"/></host>
// Resolved once when the NIC is created: no string lookup per message.
// The wire format (s4bxi/header-bytes, s4bxi/link-efficiency) is global: both
// ends of a link must agree on it.
#pragma once

#include <simgrid/forward.h>

#include <cstdint>
#include <limits>

namespace s4bxi::nic {

// Bytes the NIC writes over PCIe for one full or counting event.
inline constexpr double kEventBytes = 64; // one BXI event record
inline constexpr uint64_t kPciePacketBytes = 512; // BXI's usual PCIe packet size

struct NicParameters {
  // PCIe, as the NIC model uses it (generated platforms also build their
  // PCIe links from the global values; an XML platform's links are its own).
  bool model_pci_commands = true;
  double pci_latency_s = 0;
  double pci_bandwidth_Bps = 0;
  double pci_transfer_cap_Bps = 0;
  // Processing.
  double tx_delay_s = 0;
  double rx_delay_s = 0;
  double response_delay_s = 0;
  int command_queue_depth = 1;
  uint64_t inline_limit_matching = 0;
  uint64_t inline_limit_plain = 0;
  uint64_t pio_limit_matching = 0;
  uint64_t pio_limit_plain = 0;
  uint64_t early_send_limit = 0;
  int tx_actors = 1;
  int rx_actors = 1;
  // End-to-end reliability and performance options.
  bool e2e = true;
  double retry_timeout_s = 0;
  int max_retries = 0;
  bool quick_acks = false;
  uint64_t max_memcpy = std::numeric_limits<uint64_t>::max(); // bytes of a payload copied between memories

  [[nodiscard]] uint64_t copied(uint64_t length) const { return length < max_memcpy ? length : max_memcpy; }
};

// The global values, with the overrides of `nic_host`'s properties. Throws
// std::invalid_argument with a sentence naming the host, the option and the
// fix for a bad value, a property that is not a per-node option, or an s4bxi/
// property put on the CPU host `cpu_host` instead of the NIC host.
NicParameters resolve_parameters(const simgrid::s4u::Host& nic_host, const simgrid::s4u::Host* cpu_host = nullptr);

// The parameters of node `node` as its NIC resolved them (the global values
// for a node without a NIC yet), for the code outside the NIC that depends on
// them (event landing, command thresholds).
const NicParameters& node_parameters(unsigned node);
void register_node_parameters(unsigned node, const NicParameters& parameters);

} // namespace s4bxi::nic
