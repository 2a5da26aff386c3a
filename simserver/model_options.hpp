// Every model option of the emulator, its default and its help text, in one
// place. The options are SimGrid configuration flags (set with
// --cfg=s4bxi/name:value, as SimGrid users expect); some also read an S4BXI_*
// environment variable, for users of the original S4BXI.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace s4bxi::options {

enum class ComputeModel { CpuTime, None };

// Values read once the command line has been parsed (Engine constructed).
double cpu_factor();
double cpu_threshold_s();
ComputeModel compute_model();
// s4bxi/library-compute:measured: the CPU time ranks spend inside the MPI
// library is compute like the program's own (else it is left out).
bool library_cpu_is_compute();
double poll_cost_s();
int poll_block_after();
bool early_put_answer();
bool run_ahead();
bool local_polls();
bool horizon_from_traffic();
bool poll_period_in_block();
bool replays_in_block();
// A blocked poll's answer may come before the clock reaches it, the
// simulation going on to it while the process runs (rank_proxy.cpp).
bool answers_ahead();
bool lone_commands();
// Small payloads copied by the rank itself when its call returns (job/staged_writes.hpp).
bool staged_writes();
bool lone_messages();
bool lone_arrivals();
// The NIC's DMA writes to host memory left out of the network model where
// nothing else runs on their links (nic/dma_writes.cpp).
bool lone_dma_writes();
// A BXI ACK of a response handled at its landing, without its RX engine (nic/wire.hpp).
bool acks_at_landing();
// A message an idle RX engine would take at its landing, handled at the end
// of the engine's delay without its actor (nic/wire.hpp).
bool rx_in_maestro();
// A message an idle TX engine would take at once, its delay run and sent
// without the engine's actor (nic/nic.cpp).
bool tx_in_maestro();
bool queued_puts();
bool queued_dma_puts();
bool put_forecasts();
bool link_forecasts();
bool queued_unlinks();
// Ranks back their large communication buffers with huge pages (preload/huge_pages.hpp).
bool huge_pages();
// The server keeps a CPU of its own while the job waits on it (job/server_cpu.hpp).
bool server_cpu();
bool queued_appends();
// Messages on the wire beyond which a message goes through a mailbox (nic/wire.hpp); -1: never.
long wire_mailboxes_beyond();
unsigned long poll_deadlock_after();
double livelock_after_s();
double stall_notice_after_s();
double park_after_s();
double sync_quantum_s();
double realtime_epoch_s();
double uptime_s();
bool model_pci_commands();
double pci_latency_s();
double pci_bandwidth_Bps();        // shared PCIe link (gen3 x16)
double pci_transfer_cap_Bps();     // per-transfer cap, no sharing
double bxi_bandwidth_Bps();
double bxi_latency_s();
double nic_tx_delay_s();
double nic_rx_delay_s();
double nic_response_delay_s();
int command_queue_depth();
int inline_limit_matching();
int inline_limit_plain();
int pio_limit_matching();
int pio_limit_plain();
int early_send_limit();
int header_bytes();
double link_payload_efficiency();  // payload bytes per wire byte (72 B packets carry 64 B)
int cpu_cores_per_node();
double cpu_speed_flops();
// End-to-end reliability and the NIC's performance options (thesis 4.2.1, 4.3.4).
bool e2e();
double e2e_retry_timeout_s();
int e2e_max_retries();
bool quick_acks();
int max_memcpy(); // bytes of a payload copied between rank memories; negative: all
int tx_actors();  // TX engines per virtual network
int rx_actors();  // RX engines per virtual network
// Fault injection (nic/faults.cpp parses the lists).
double fault_loss_rate();
std::string fault_nodes();
std::string fault_links();
int fault_seed();
std::string fault_drop_at();
std::string link_down();

// The values a numeric option accepts (always finite): checked where a value
// is read (--cfg, the S4BXI_* aliases, a NIC host's property) and stated in
// --help-cfg, so that a value the model cannot use is refused before the run
// is built rather than failing deep inside SimGrid.
struct Range {
  double minimum = -std::numeric_limits<double>::infinity();
  double maximum = std::numeric_limits<double>::infinity();
  bool above_minimum = false; // the minimum itself is excluded
  bool integer = false;

  [[nodiscard]] bool accepts(double value) const;
  // "a number of at least 0", "an integer from 1 to 256", ...
  [[nodiscard]] std::string text() const;
};

struct Description {
  std::string name;
  std::string default_value;
  std::string environment_alias; // empty when none
  std::string help;
  // A node's NIC host may override the value with a property of the same
  // name (nic/nic_parameters.cpp).
  bool per_node = false;
  // The --cfg value for the alias's value, when it is not the value itself
  // (S4BXI's booleans, S4BXI_E2E_OFF).
  std::string (*from_environment)(const std::string&) = nullptr;
  // The values a numeric option accepts (nullopt for the others).
  std::optional<Range> range;
};
const std::vector<Description>& all();
// The option called `name`, or nullptr.
const Description* find(const std::string& name);

// Option values written as text (host properties), read as SimGrid reads
// --cfg values; nullopt when the text is not such a value.
std::optional<bool> parse_bool(const std::string& text);
std::optional<int> parse_int(const std::string& text);
std::optional<double> parse_double(const std::string& text);

// Nullopt if `value` is acceptable for the option `name` (or the option is not
// numeric), otherwise the values it accepts ("an integer from 1 to 64").
std::optional<std::string> unacceptable(const std::string& name, double value);

// --cfg arguments equivalent to the S4BXI_* variables present in `environ`.
std::vector<std::string> from_environment();

// Forces the registration of the flags (static objects in model_options.cpp).
void declare();

} // namespace s4bxi::options
