#include "model_options.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>

namespace s4bxi::options {
namespace {

std::vector<Description>& registry()
{
  static std::vector<Description> descriptions;
  return descriptions;
}

template <class T> std::string to_text(const T& value)
{
  if constexpr (std::is_same_v<T, std::string>)
    return value;
  else if constexpr (std::is_same_v<T, bool>)
    return value ? "yes" : "no";
  else {
    std::string text = std::to_string(value);
    if constexpr (std::is_floating_point_v<T>) {
      // Prints 1e-06 style values readably.
      char buffer[64];
      snprintf(buffer, sizeof buffer, "%g", static_cast<double>(value));
      text = buffer;
    }
    return text;
  }
}

// A flag plus its entry in the help table.
template <class T> struct Option {
  simgrid::config::Flag<T> flag;
  Option(const char* name, const char* env, const char* help, T value) : flag(name, help, value)
  {
    registry().push_back({name, to_text(value), env ? env : "", help});
  }
  // An option with a closed set of values. A wrong value throws (SimGrid's own
  // valid-values check aborts the process instead).
  Option(const char* name, const char* env, const char* help, T value,
         const std::map<std::string, std::string, std::less<>>& valid)
      : flag(name, help, value, [valid, name](const T& wanted) {
          if (valid.count(wanted) == 0) {
            std::string choices;
            for (const auto& [choice, meaning] : valid)
              choices += (choices.empty() ? "" : ", ") + choice;
            throw std::invalid_argument("'" + wanted + "' is not a value of " + name + "; choose " + choices);
          }
        })
  {
    std::string text = help;
    for (const auto& [choice, meaning] : valid)
      text += "; " + choice + ": " + meaning;
    registry().push_back({name, to_text(value), env ? env : "", text});
  }
  const T& get() const { return flag.get(); }
};

// Thesis values (chapter 4 and DESIGN.md) unless said otherwise.
Option<double> g_cpu_factor{"s4bxi/cpu-factor", "S4BXI_CPU_FACTOR",
                            "Simulated seconds per second of thread CPU time measured between two calls", 1.0};
Option<double> g_cpu_threshold{"s4bxi/cpu-threshold", "S4BXI_CPU_THRESHOLD",
                               "Compute bursts shorter than this (seconds, after the factor) are not injected", 1e-6};
Option<std::string> g_compute{"s4bxi/compute", "S4BXI_COMPUTE",
                              "How compute between calls enters simulated time", "cputime",
                              {{"cputime", "thread CPU time times s4bxi/cpu-factor"},
                               {"none", "zero compute: fully deterministic simulated times"}}};
Option<double> g_poll_cost{"s4bxi/poll-cost", "S4BXI_ACTIVE_POLLING_DELAY",
                           "Simulated seconds charged for an empty PtlEQGet/PtlCTGet/zero-timeout poll", 1e-7};
Option<int> g_poll_block{"s4bxi/poll-block-after", nullptr,
                         "After this many identical empty polls, block until the polled object changes "
                         "(charging the elapsed time as polling); 0 disables",
                         64};
Option<double> g_epoch{"s4bxi/epoch", "S4BXI_EPOCH",
                       "CLOCK_REALTIME seen by the ranks at simulated time 0 (seconds since 1970)", 1704067200.0};
Option<bool> g_model_pci_commands{"s4bxi/model-pci-commands", "S4BXI_MODEL_PCI_COMMANDS",
                                  "Model the PCIe write of each command from the CPU to the NIC", true};
Option<double> g_pci_latency{"s4bxi/pci-latency", nullptr, "PCIe latency (seconds) between a CPU and its NIC",
                             250e-9};
Option<double> g_pci_bandwidth{"s4bxi/pci-bandwidth", nullptr,
                               "Shared PCIe link bandwidth (bytes/s), gen3 x16", 15.75e9};
Option<double> g_pci_cap{"s4bxi/pci-transfer-cap", nullptr,
                         "Bandwidth cap of a single PCIe transfer (bytes/s), not shared", 12.5e9};
Option<double> g_bxi_bandwidth{"s4bxi/bxi-bandwidth", nullptr,
                               "BXI link bandwidth (bytes/s) of generated platforms", 12.5e9};
Option<double> g_bxi_latency{"s4bxi/bxi-latency", nullptr,
                             "BXI link latency (seconds per hop) of generated platforms", 500e-9};
Option<double> g_tx_delay{"s4bxi/nic-tx-delay", nullptr,
                          "NIC processing time in TX before a message goes on the wire (seconds)", 10e-9};
Option<double> g_rx_delay{"s4bxi/nic-rx-delay", nullptr,
                          "NIC processing time in RX before a request's events and ACK (seconds)", 200e-9};
Option<double> g_response_delay{"s4bxi/nic-response-delay", nullptr,
                                "NIC processing time in RX for an ACK or a Get response (seconds)", 50e-9};
Option<int> g_queue_depth{"s4bxi/command-queue-depth", nullptr,
                          "In-flight commands per NIC command queue (stands for the whole NIC pipeline)", 89};
Option<int> g_inline_matching{"s4bxi/inline-limit-matching", nullptr,
                              "Payload bytes carried inside a command that has match bits", 8};
Option<int> g_inline_plain{"s4bxi/inline-limit", nullptr, "Payload bytes carried inside a command without match bits",
                           16};
Option<int> g_pio_matching{"s4bxi/pio-limit-matching", nullptr,
                           "Largest payload written by PIO (two PCIe writes and a fence) with match bits", 408};
Option<int> g_pio_plain{"s4bxi/pio-limit", nullptr, "Largest payload written by PIO without match bits", 416};
Option<int> g_early_send{"s4bxi/early-send-limit", nullptr,
                         "Largest payload whose SEND event comes when the message leaves (kept in the E2E context)",
                         64};
Option<int> g_header{"s4bxi/header-bytes", nullptr, "Bytes of a message header on the wire (and of a command)", 64};
Option<double> g_efficiency{"s4bxi/link-efficiency", nullptr,
                            "Payload bytes per wire byte: BXI packets of 72 B carry 64 B of payload", 64.0 / 72.0};
Option<int> g_cores{"s4bxi/cores-per-node", nullptr, "CPU cores of each node in generated platforms", 16};
Option<double> g_cpu_speed{"s4bxi/cpu-speed", nullptr, "CPU speed (flop/s) of generated platforms", 1e9};

} // namespace

double cpu_factor() { return g_cpu_factor.get(); }
double cpu_threshold_s() { return g_cpu_threshold.get(); }
ComputeModel compute_model() { return g_compute.get() == "none" ? ComputeModel::None : ComputeModel::CpuTime; }
double poll_cost_s() { return g_poll_cost.get(); }
int poll_block_after() { return g_poll_block.get(); }
double realtime_epoch_s() { return g_epoch.get(); }
bool model_pci_commands() { return g_model_pci_commands.get(); }
double pci_latency_s() { return g_pci_latency.get(); }
double pci_bandwidth_Bps() { return g_pci_bandwidth.get(); }
double pci_transfer_cap_Bps() { return g_pci_cap.get(); }
double bxi_bandwidth_Bps() { return g_bxi_bandwidth.get(); }
double bxi_latency_s() { return g_bxi_latency.get(); }
double nic_tx_delay_s() { return g_tx_delay.get(); }
double nic_rx_delay_s() { return g_rx_delay.get(); }
double nic_response_delay_s() { return g_response_delay.get(); }
int command_queue_depth() { return g_queue_depth.get(); }
int inline_limit_matching() { return g_inline_matching.get(); }
int inline_limit_plain() { return g_inline_plain.get(); }
int pio_limit_matching() { return g_pio_matching.get(); }
int pio_limit_plain() { return g_pio_plain.get(); }
int early_send_limit() { return g_early_send.get(); }
int header_bytes() { return g_header.get(); }
double link_payload_efficiency() { return g_efficiency.get(); }
int cpu_cores_per_node() { return g_cores.get(); }
double cpu_speed_flops() { return g_cpu_speed.get(); }

const std::vector<Description>& all() { return registry(); }

std::vector<std::string> from_environment()
{
  std::vector<std::string> arguments;
  for (const auto& option : registry()) {
    if (option.environment_alias.empty())
      continue;
    if (const char* value = std::getenv(option.environment_alias.c_str()))
      arguments.push_back("--cfg=" + option.name + ":" + value);
  }
  return arguments;
}

void declare()
{
  // The flags are namespace-scope objects of this file: referencing the
  // registry is enough to make sure the file is linked in and initialised.
  (void)registry();
}

} // namespace s4bxi::options
