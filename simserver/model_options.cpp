#include "model_options.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <cerrno>
#include <cmath>
#include <climits>
#include <limits>
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

enum class Scope { Global, PerNode };
// A property of the option's name on a node's NIC host overrides it
// (docs/model.md, "Reliability options and faults").
constexpr const char* kPerNodeNote = " [per node]";

// S4BXI reads "TRUE", "true" and "1" as true, anything else as false.
bool s4bxi_truthy(const std::string& value)
{
  return value == "TRUE" || value == "true" || value == "1";
}
std::string s4bxi_bool(const std::string& value)
{
  return s4bxi_truthy(value) ? "yes" : "no";
}
std::string s4bxi_negated_bool(const std::string& value)
{
  return s4bxi_truthy(value) ? "no" : "yes";
}

// Ranges of the numeric options below.
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr Range any_value() { return {}; }
constexpr Range at_least(double minimum) { return {minimum, kInfinity, false, false}; }
constexpr Range above(double minimum) { return {minimum, kInfinity, true, false}; }
constexpr Range between(double minimum, double maximum) { return {minimum, maximum, false, false}; }

std::string number_text(double value)
{
  char buffer[32];
  snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

// A flag plus its entry in the help table.
template <class T> struct Option {
  simgrid::config::Flag<T> flag;
  // A numeric option: a value out of `range` throws (and so is refused with
  // a sentence by the server's configuration step).
  Option(const char* name, const char* env, const char* help, T value, Range range, Scope scope = Scope::Global)
    requires std::is_arithmetic_v<T> && (not std::is_same_v<T, bool>)
      : flag(name, help, value, [name, range = with_kind(range)](const T& wanted) {
          if (not range.accepts(static_cast<double>(wanted)))
            throw std::invalid_argument(std::string(name) + " must be " + range.text());
        })
  {
    const bool per_node = scope == Scope::PerNode;
    registry().push_back({name, to_text(value), env ? env : "", std::string(help) + (per_node ? kPerNodeNote : ""),
                          per_node, nullptr, with_kind(range)});
  }
  Option(const char* name, const char* env, const char* help, T value, Scope scope = Scope::Global,
         std::string (*from_environment)(const std::string&) = nullptr)
    requires std::is_same_v<T, bool> || std::is_same_v<T, std::string>
      : flag(name, help, value)
  {
    const bool per_node = scope == Scope::PerNode;
    registry().push_back({name, to_text(value), env ? env : "", std::string(help) + (per_node ? kPerNodeNote : ""),
                          per_node, from_environment, std::nullopt});
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
    registry().push_back({name, to_text(value), env ? env : "", text, false, nullptr, std::nullopt});
  }
  const T& get() const { return flag.get(); }

private:
  static Range with_kind(Range range)
  {
    range.integer = std::is_integral_v<T>;
    return range;
  }
};

// Thesis values (chapter 4 and DESIGN.md) unless said otherwise.
Option<double> g_cpu_factor{"s4bxi/cpu-factor", "S4BXI_CPU_FACTOR",
                            "Simulated seconds per second of thread CPU time measured between two calls", 1.0,
                            at_least(0)};
Option<double> g_cpu_threshold{"s4bxi/cpu-threshold", "S4BXI_CPU_THRESHOLD",
                               "Compute bursts shorter than this (seconds, after the factor) are not injected", 1e-6,
                               at_least(0)};
Option<std::string> g_compute{"s4bxi/compute", "S4BXI_COMPUTE",
                              "How compute between calls enters simulated time", "cputime",
                              {{"cputime", "thread CPU time times s4bxi/cpu-factor"},
                               {"none", "zero compute: fully deterministic simulated times"}}};
Option<std::string> g_library_compute{
    "s4bxi/library-compute", nullptr,
    "How the CPU time a rank spends inside the MPI library (between the Portals calls of an MPI call) enters "
    "simulated time",
    "modelled",
    {{"modelled", "not at all: an MPI call costs what the Portals model charges for its calls and waits; only "
                  "the program's own CPU time between MPI calls is compute"},
     {"measured", "as compute, like the program's own (OpenMPI's progress loop and the emulator's work in the "
                  "process included)"}}};
Option<double> g_poll_cost{"s4bxi/poll-cost", "S4BXI_ACTIVE_POLLING_DELAY",
                           "Simulated seconds charged for an empty PtlEQGet/PtlCTGet/zero-timeout poll", 1e-7,
                           at_least(0)};
Option<int> g_poll_block{"s4bxi/poll-block-after", nullptr,
                         "After this many empty polls with nothing else in between (and no new object polled), "
                         "block until a polled object changes or nothing else can happen in the simulation "
                         "(charged as polling); 0 disables",
                         2, at_least(0)};
Option<int> g_poll_deadlock{"s4bxi/poll-deadlock-after", nullptr,
                            "Polls in a row that find nothing while nothing else can happen in the simulation, "
                            "after which the ranks are reported as deadlocked; 0 disables",
                            100000, at_least(0)};
Option<double> g_sync_quantum{"s4bxi/sync-quantum", nullptr,
                              "CPU seconds a rank thread may run without calling the emulator before it is "
                              "interrupted and the simulation advances to its time (delivering what lands in its "
                              "memory meanwhile); needs measured compute (not s4bxi/compute:none); 0 disables",
                              0.001, at_least(0)};
Option<bool> g_local_polls{"s4bxi/local-polls", nullptr,
                           "Let the process answer an empty PtlEQGet or zero-timeout PtlEQPoll itself when no "
                           "event can land in the polled queues before the poll ends (an event lands a PCIe write "
                           "after the NIC writes it); the server charges those polls with the next call (same "
                           "simulated results, no round trip per such poll)",
                           true};
Option<bool> g_horizon_from_traffic{
    "s4bxi/horizon-from-traffic", nullptr,
    "With s4bxi/local-polls: let the process answer its polls until the earliest time the NIC can write an event "
    "given the messages on their way and the least latencies of the model (nic/landing_bounds.hpp), not only for a "
    "PCIe write of an event after its last answer (same simulated results, fewer round trips)",
    true};
Option<bool> g_poll_period_in_block{
    "s4bxi/poll-period-in-block", nullptr,
    "Let the poll whose period ends in a block (s4bxi/poll-block-after) sleep that period within the block when "
    "nothing the block watches can change before it starts (same simulated results, one scheduling round less "
    "per such poll)",
    true};
Option<bool> g_replays_in_block{
    "s4bxi/replays-in-block", nullptr,
    "With s4bxi/poll-period-in-block: let the polls a process answered itself just before a poll that blocks be "
    "slept within that block too, when nothing the block watches can change before it starts (same simulated "
    "results, one scheduling round less per such call)",
    true};
Option<bool> g_answers_ahead{
    "s4bxi/answers-ahead", nullptr,
    "Let a blocked poll whose end is already on its way be answered at once, at the rank's later simulated time, "
    "when nothing the rank could see (a NIC write for its node, another rank's call, the poll sentinel) can happen "
    "before that time; the simulation goes on to that time while the process runs (same simulated results, the "
    "process and the simulation side by side)",
    true};
Option<bool> g_lone_commands{
    "s4bxi/lone-commands", nullptr,
    "Let a command that a rank writes over PCIe while nothing else can use the CPU-to-NIC side of its node's link "
    "be a sleep of its exact length instead of a communication of the network model (same simulated results, one "
    "scheduling round less per command)",
    true};
Option<bool> g_lone_dma_writes{
    "s4bxi/lone-dma-writes", nullptr,
    "Leave the NIC's DMA writes of payloads to host memory out of the network model where nothing else runs on "
    "their links (the NIC-to-CPU side of a node's split-duplex PCIe link): nothing waits for them, and they are "
    "still counted and traced (the same simulated results but for SimGrid's artifacts, two scheduling rounds less "
    "per write; nic/dma_writes.cpp)",
    true};
Option<bool> g_staged_writes{
    "s4bxi/staged-writes", nullptr,
    "Let a small payload that lands in a rank's heap or stack while its main thread waits in a call be copied by "
    "the rank itself when the call returns, instead of written by the server with a system call (same simulated "
    "results; job/staged_writes.hpp)",
    true};
Option<bool> g_lone_messages{
    "s4bxi/lone-messages", nullptr,
    "Let a message that crosses the wire while no other transfer can share a link of its route until it lands be "
    "a timer at its exact landing time instead of a communication of the network model (same simulated results, "
    "one scheduling round less per message)",
    true};
Option<bool> g_lone_arrivals{
    "s4bxi/lone-arrivals", nullptr,
    "With s4bxi/lone-messages: let a message alone on the wire that reaches an idle RX engine, with nothing else "
    "on its way to that engine until the end of its delay, be handed to the engine at the end of that delay "
    "instead of at its landing (same simulated results, one scheduling round less per such message)",
    true};
Option<bool> g_acks_at_landing{
    "s4bxi/acks-at-landing", nullptr,
    "Let a BXI ACK of a response that reaches an idle RX engine with nothing queued be handled at its landing by "
    "the simulation itself instead of by the engine's actor (same simulated results, one actor switch less per "
    "such ACK; nic/wire.hpp)",
    true};
Option<bool> g_tx_in_maestro{
    "s4bxi/tx-in-maestro", nullptr,
    "Let a message that an idle TX engine would take at once have its TX delay run and be sent by the simulation "
    "itself instead of by the engine's actor, when nothing of that can block (no DMA read of its payload; same "
    "simulated results, two actor switches less per such message; nic/nic.cpp)",
    true};
Option<bool> g_rx_in_maestro{
    "s4bxi/rx-in-maestro", nullptr,
    "Let a message that reaches an idle RX engine with nothing queued be handled at the end of the engine's delay "
    "by the simulation itself instead of by the engine's actor, when nothing of its handling can block (same "
    "simulated results, two actor switches less per such message; nic/wire.hpp)",
    true};
Option<bool> g_queued_puts{"s4bxi/queued-puts", nullptr,
                           "Let the process answer a PtlPut itself when it can check its arguments and its payload "
                           "fits the command (inline or PIO, at most 64 bytes): the Put goes to the server with the "
                           "process's next call and runs at the simulated time it was made (same simulated "
                           "results, one round trip less per such Put)",
                           true};
Option<bool> g_queued_dma_puts{"s4bxi/queued-dma-puts", nullptr,
                                "With s4bxi/queued-puts: let the process answer a PtlPut itself also when the NIC reads "
                                "its payload by DMA (larger than the PIO limit): nothing is captured, and the NIC "
                                "reads the memory when the Put runs, as for a Put the server was sent (same simulated "
                                "results, one round trip less per such Put)",
                                true};
Option<bool> g_put_forecasts{"s4bxi/put-forecasts", nullptr,
                              "With s4bxi/queued-puts: tell the process with each answer how a Put it queues would "
                              "end and when its SEND event would land, when nothing else can reach its NIC before "
                              "(the rank alone on its node, its NIC sending nothing; nic/put_forecast.cpp): it then "
                              "goes on answering its polls instead of asking the server after the Put (same "
                              "simulated results, one round trip less per such Put)",
                              true};
Option<bool> g_link_forecasts{"s4bxi/link-forecasts", nullptr,
                               "With s4bxi/queued-appends: tell the process with each answer the event queue of its "
                               "portal table entries, so that an append it answers itself whose one event is its LINK "
                               "(a priority entry where no unexpected header waits, or an overflow entry) lets it "
                               "expect that event a PCIe write later and go on answering its polls (same simulated "
                               "results, one round trip less per such append that the program waits on)",
                               true};
Option<bool> g_queued_unlinks{"s4bxi/queued-unlinks", nullptr,
                              "Let the process answer a PtlMEUnlink/PtlLEUnlink itself for an entry it appended that "
                              "the NIC never unlinks (neither use-once nor managing its local offset with a "
                              "min_free): the unlink goes to the server with the process's next call and happens at "
                              "the simulated time it was made (same simulated results, one round trip less each)",
                              true};
Option<bool> g_server_cpu{"s4bxi/server-cpu", nullptr,
                          "While the server is what the job waits for (it waits for the ranks less than 60% of the "
                          "time), have it keep the CPU it runs on and the ranks' main threads run on the others; every "
                          "process may run anywhere again while the ranks are what it waits for (more than 80%) or other "
                          "processes want the CPUs (same simulated results; a 32-rank alltoall on 2 cores about 0.8 of "
                          "the wall time)",
                          true};
Option<bool> g_huge_pages{"s4bxi/huge-pages", nullptr,
                          "Have each rank back the 2 MiB-aligned stretches of a buffer that it communicates with "
                          "(an appended entry, the local side of a Put or a Get) with transparent huge pages (madvise "
                          "MADV_COLLAPSE): those it covers whole, and for a buffer of 512 KiB or more copied whole "
                          "(the local side of a Put or a Get, an entry used once) those it covers a quarter of; the "
                          "server's copies of its payloads then walk 512 times fewer pages (same simulated results; a "
                          "4 MiB MPI message about 0.7 of the wall time)",
                          true};
Option<bool> g_queued_appends{"s4bxi/queued-appends", nullptr,
                              "Let the process answer a PtlMEAppend/PtlLEAppend itself on an allocated portal table "
                              "entry with room, with the handle the server set aside for it with its last answer: "
                              "the append goes to the server with the process's next call and happens at the "
                              "simulated time it was made (same simulated results, one round trip less each)",
                              true};
Option<int> g_wire_mailboxes{"s4bxi/wire-mailboxes-beyond", nullptr,
                             "Messages on their way beyond which a message crosses the wire as a communication "
                             "through a mailbox of its receiving engine rather than a host-to-host one: SimGrid "
                             "walks its list of host-to-host communications each time one ends, and a mailbox one "
                             "costs three simcalls instead (same route and times, same simulated results); -1: never",
                             256, at_least(-1)};
Option<bool> g_early_put_answer{"s4bxi/early-put-answer", nullptr,
                                "Answer PtlPut, PtlGet and the atomics once their arguments are checked, before the "
                                "PCIe write of their command, when nothing the NIC does can touch the rank's memory "
                                "meanwhile: the rank goes on during the write, its clock synced at its next call "
                                "or clock read (same simulated results, one process wake-up less per operation)",
                                true};
Option<bool> g_run_ahead{"s4bxi/run-ahead", nullptr,
                         "While a rank computes between two calls, let the rest of the simulation go on up to the "
                         "earliest time its next call can come (its last answer plus the CPU time it used since, "
                         "read from /proc), so that ranks that compute at the same time run on the machine's cores "
                         "at the same time; needs measured compute (not s4bxi/compute:none); experimental, off by "
                         "default",
                         false};
Option<double> g_stall_notice_after{"s4bxi/stall-notice-after", nullptr,
                                    "Real seconds the simulation waits for a rank's next call before saying what "
                                    "the rank does (blocked in the kernel, or running without calling anything), "
                                    "then again after three times as long; 0 disables",
                                    10.0, at_least(0)};
Option<double> g_park_after{"s4bxi/park-after", nullptr,
                            "Real seconds a rank may stay blocked in the kernel outside any emulated call (a pipe, a "
                            "socket, waitpid) before the simulation goes on without it; its clock resumes at the "
                            "simulated time it calls again (as a wait); 0: the simulation waits for it",
                            0.04, at_least(0)};
Option<double> g_livelock_after{"s4bxi/livelock-after", nullptr,
                                 "Simulated seconds during which operations keep failing (at least 1000 of them) "
                                 "and none succeeds anywhere, after which the run is stopped as a livelock (e.g. "
                                 "retrying forever against a disabled portal); 0 disables",
                                 1.0, at_least(0)};
// Not zero: programs take a zero tv_sec of CLOCK_MONOTONIC for "never read"
// (OpenMPI's MPI_Wtime keeps resetting its origin while tv_sec is 0, so it
// read 0 for the whole first simulated second), as no real machine shows it.
Option<double> g_uptime{"s4bxi/uptime", "S4BXI_UPTIME",
                        "CLOCK_MONOTONIC and CLOCK_BOOTTIME seen by the ranks at simulated time 0 (seconds since "
                        "the simulated nodes booted)",
                        1000.0, between(0, 1e9)};
Option<double> g_epoch{"s4bxi/epoch", "S4BXI_EPOCH",
                       "CLOCK_REALTIME seen by the ranks at simulated time 0 (seconds since 1970)", 1704067200.0,
                       between(0, 4e9)};
Option<bool> g_model_pci_commands{"s4bxi/model-pci-commands", "S4BXI_MODEL_PCI_COMMANDS",
                                  "Model the PCIe write of each command from the CPU to the NIC", true, Scope::PerNode};
Option<double> g_pci_latency{"s4bxi/pci-latency", nullptr, "PCIe latency (seconds) between a CPU and its NIC",
                             250e-9, at_least(0), Scope::PerNode};
Option<double> g_pci_bandwidth{"s4bxi/pci-bandwidth", nullptr,
                               "Shared PCIe link bandwidth (bytes/s), gen3 x16", 15.75e9, above(0), Scope::PerNode};
Option<double> g_pci_cap{"s4bxi/pci-transfer-cap", nullptr,
                         "Bandwidth cap of a single PCIe transfer (bytes/s), not shared", 12.5e9, above(0),
                         Scope::PerNode};
Option<double> g_bxi_bandwidth{"s4bxi/bxi-bandwidth", nullptr,
                               "BXI link bandwidth (bytes/s) of generated platforms", 12.5e9, above(0)};
Option<double> g_bxi_latency{"s4bxi/bxi-latency", nullptr,
                             "BXI link latency (seconds per hop) of generated platforms", 500e-9, at_least(0)};
Option<double> g_tx_delay{"s4bxi/nic-tx-delay", nullptr,
                          "NIC processing time in TX before a message goes on the wire (seconds)", 10e-9, at_least(0),
                          Scope::PerNode};
Option<double> g_rx_delay{"s4bxi/nic-rx-delay", nullptr,
                          "NIC processing time in RX before a request's events and ACK (seconds)", 200e-9, at_least(0),
                          Scope::PerNode};
Option<double> g_response_delay{"s4bxi/nic-response-delay", nullptr,
                                "NIC processing time in RX for an ACK or a Get response (seconds)", 50e-9, at_least(0),
                                Scope::PerNode};
Option<int> g_queue_depth{"s4bxi/command-queue-depth", nullptr,
                          "In-flight commands per NIC command queue (stands for the whole NIC pipeline)", 89,
                          between(1, 1000000), Scope::PerNode};
Option<int> g_inline_matching{"s4bxi/inline-limit-matching", nullptr,
                              "Payload bytes carried inside a command that has match bits", 8, at_least(0), Scope::PerNode};
Option<int> g_inline_plain{"s4bxi/inline-limit", nullptr, "Payload bytes carried inside a command without match bits",
                           16, at_least(0), Scope::PerNode};
Option<int> g_pio_matching{"s4bxi/pio-limit-matching", nullptr,
                           "Largest payload written by PIO (two PCIe writes and a fence) with match bits", 408,
                           at_least(0), Scope::PerNode};
Option<int> g_pio_plain{"s4bxi/pio-limit", nullptr, "Largest payload written by PIO without match bits", 416, at_least(0),
                        Scope::PerNode};
Option<int> g_early_send{"s4bxi/early-send-limit", nullptr,
                         "Largest payload whose SEND event comes when the message leaves (kept in the E2E context)",
                         64, at_least(0), Scope::PerNode};
Option<int> g_header{"s4bxi/header-bytes", nullptr, "Bytes of a message header on the wire (and of a command)", 64,
                    between(1, 1 << 20)};
Option<double> g_efficiency{"s4bxi/link-efficiency", nullptr,
                            "Payload bytes per wire byte: BXI packets of 72 B carry 64 B of payload", 64.0 / 72.0,
                            Range{0, 1, true, false}};
Option<int> g_cores{"s4bxi/cores-per-node", nullptr, "CPU cores of each node in generated platforms", 16,
                    between(1, 4096)};
Option<double> g_cpu_speed{"s4bxi/cpu-speed", nullptr, "CPU speed (flop/s) of generated platforms", 1e9, above(0)};

// NIC engines per virtual network: a real NIC has a handful; each is an actor
// per VN and node, so a large count only makes start-up crawl.
constexpr int kMaxEngines = 64;

// End-to-end reliability: defaults of S4BXI (its README and BxiEngine.cpp:
// S4BXI_MAX_RETRIES=5, S4BXI_RETRY_TIMEOUT=10.0 seconds, S4BXI_E2E_OFF=false,
// S4BXI_QUICK_ACKS=false, S4BXI_MAX_MEMCPY=-1).
Option<bool> g_e2e{"s4bxi/e2e", "S4BXI_E2E_OFF",
                   "End-to-end reliability: BXI ACKs, retransmission after s4bxi/e2e-retry-timeout, failure after "
                   "s4bxi/e2e-max-retries; off: no BXI ACK, no retransmission (the alias is negated: "
                   "S4BXI_E2E_OFF=1 turns it off)",
                   true, Scope::PerNode, s4bxi_negated_bool};
Option<double> g_retry_timeout{"s4bxi/e2e-retry-timeout", "S4BXI_RETRY_TIMEOUT",
                               "Simulated seconds after which E2E sends an unacknowledged message again", 10.0,
                               above(0), Scope::PerNode};
Option<int> g_max_retries{"s4bxi/e2e-max-retries", "S4BXI_MAX_RETRIES",
                          "Retransmissions of a message before E2E gives up on it (the operation fails with "
                          "PTL_NI_UNDELIVERABLE)",
                          5, at_least(0), Scope::PerNode};
Option<bool> g_quick_acks{"s4bxi/quick-acks", "S4BXI_QUICK_ACKS",
                          "The target's RX engine delivers the initiator's ACK itself: no Portals ACK (nor its BXI "
                          "ACK) on the wire",
                          false, Scope::PerNode, s4bxi_bool};
Option<int> g_max_memcpy{"s4bxi/max-memcpy", "S4BXI_MAX_MEMCPY",
                         "Payload bytes of a message actually copied between rank memories (negative: all); the rest "
                         "is simulated but not copied: faster, but the data beyond it is wrong",
                         -1, any_value(), Scope::PerNode};
Option<int> g_tx_actors{"s4bxi/tx-actors", nullptr,
                        "TX engines per virtual network (a destination is always served by the same one)", 1,
                        between(1, kMaxEngines), Scope::PerNode};
Option<int> g_rx_actors{"s4bxi/rx-actors", nullptr,
                        "RX engines per virtual network (a source is always handled by the same one)", 1,
                        between(1, kMaxEngines), Scope::PerNode};

// Fault injection (nic/faults.cpp): what a lost message is, docs/model.md, "Faults".
Option<double> g_loss_rate{"s4bxi/fault-loss-rate", nullptr,
                           "Probability that a message is lost at each faulty node or link it crosses (every "
                           "message, when no s4bxi/fault-nodes nor s4bxi/fault-links are given)",
                           0.0, between(0, 1)};
Option<std::string> g_fault_nodes{"s4bxi/fault-nodes", nullptr,
                                  "Comma-separated nodes (CPU host names) whose messages, sent or received, may be lost",
                                  ""};
Option<std::string> g_fault_links{"s4bxi/fault-links", nullptr,
                                  "Comma-separated network links (a split-duplex link's name covers both directions) "
                                  "on which messages may be lost",
                                  ""};
Option<int> g_fault_seed{"s4bxi/fault-seed", nullptr, "Seed of the loss draws (same seed, same losses)", 1, any_value()};
Option<std::string> g_drop_at{"s4bxi/fault-drop-at", nullptr,
                              "Comma-separated simulated times T[/KIND]: the first message of a faulty node or link "
                              "(of that kind: put, get, ack, response, bxi-ack) sent at or after T is lost",
                              ""};
Option<std::string> g_link_down{"s4bxi/link-down", nullptr,
                                "Comma-separated LINK@START+DURATION: the network link is off during that interval "
                                "of simulated time; messages crossing it then are lost",
                                ""};

} // namespace

double cpu_factor() { return g_cpu_factor.get(); }
double cpu_threshold_s() { return g_cpu_threshold.get(); }
bool library_cpu_is_compute() { return g_library_compute.get() == "measured"; }
ComputeModel compute_model() { return g_compute.get() == "none" ? ComputeModel::None : ComputeModel::CpuTime; }
double poll_cost_s() { return g_poll_cost.get(); }
int poll_block_after() { return g_poll_block.get(); }
bool early_put_answer() { return g_early_put_answer.get(); }
bool run_ahead() { return g_run_ahead.get(); }
bool local_polls() { return g_local_polls.get(); }
bool horizon_from_traffic() { return g_horizon_from_traffic.get(); }
bool poll_period_in_block() { return g_poll_period_in_block.get(); }
bool replays_in_block() { return g_replays_in_block.get(); }
bool answers_ahead() { return g_answers_ahead.get(); }
bool lone_commands() { return g_lone_commands.get(); }
bool staged_writes() { return g_staged_writes.get(); }
bool lone_dma_writes() { return g_lone_dma_writes.get(); }
bool lone_messages() { return g_lone_messages.get(); }
bool lone_arrivals() { return g_lone_arrivals.get(); }
bool acks_at_landing() { return g_acks_at_landing.get(); }
bool rx_in_maestro() { return g_rx_in_maestro.get(); }
bool tx_in_maestro() { return g_tx_in_maestro.get(); }
bool queued_puts() { return g_queued_puts.get(); }
bool queued_dma_puts() { return g_queued_dma_puts.get(); }
bool put_forecasts() { return g_put_forecasts.get(); }
bool link_forecasts() { return g_link_forecasts.get(); }
bool queued_unlinks() { return g_queued_unlinks.get(); }
bool huge_pages() { return g_huge_pages.get(); }
bool server_cpu() { return g_server_cpu.get(); }
bool queued_appends() { return g_queued_appends.get(); }
long wire_mailboxes_beyond() { return g_wire_mailboxes.get(); }
double sync_quantum_s() { return g_sync_quantum.get() > 0 ? g_sync_quantum.get() : 0; }
double park_after_s() { return g_park_after.get() > 0 ? g_park_after.get() : 0; }
double stall_notice_after_s() { return g_stall_notice_after.get() > 0 ? g_stall_notice_after.get() : 0; }
double livelock_after_s() { return g_livelock_after.get() > 0 ? g_livelock_after.get() : 0; }
unsigned long poll_deadlock_after() { return g_poll_deadlock.get() > 0 ? g_poll_deadlock.get() : 0; }
double realtime_epoch_s() { return g_epoch.get(); }
double uptime_s() { return g_uptime.get(); }
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
bool e2e() { return g_e2e.get(); }
double e2e_retry_timeout_s() { return g_retry_timeout.get(); }
int e2e_max_retries() { return g_max_retries.get(); }
bool quick_acks() { return g_quick_acks.get(); }
int max_memcpy() { return g_max_memcpy.get(); }
int tx_actors() { return g_tx_actors.get(); }
int rx_actors() { return g_rx_actors.get(); }
double fault_loss_rate() { return g_loss_rate.get(); }
std::string fault_nodes() { return g_fault_nodes.get(); }
std::string fault_links() { return g_fault_links.get(); }
int fault_seed() { return g_fault_seed.get(); }
std::string fault_drop_at() { return g_drop_at.get(); }
std::string link_down() { return g_link_down.get(); }

const std::vector<Description>& all() { return registry(); }

bool Range::accepts(double value) const
{
  if (not std::isfinite(value) || value > maximum)
    return false;
  if (integer && value != std::floor(value))
    return false;
  return above_minimum ? value > minimum : value >= minimum;
}

std::string Range::text() const
{
  std::string text = integer ? "an integer" : "a number";
  const bool bounded_below = std::isfinite(minimum);
  const bool bounded_above = std::isfinite(maximum);
  if (bounded_below && bounded_above && not above_minimum)
    return text + " from " + number_text(minimum) + " to " + number_text(maximum);
  if (bounded_below)
    text += (above_minimum ? " greater than " : " of at least ") + number_text(minimum);
  if (bounded_above)
    text += std::string(bounded_below ? " and" : "") + " at most " + number_text(maximum);
  return text;
}

std::optional<std::string> unacceptable(const std::string& name, double value)
{
  const Description* option = find(name);
  if (option == nullptr || not option->range || option->range->accepts(value))
    return std::nullopt;
  return option->range->text();
}

const Description* find(const std::string& name)
{
  for (const auto& option : registry())
    if (option.name == name)
      return &option;
  return nullptr;
}

std::optional<bool> parse_bool(const std::string& text)
{
  // The spellings SimGrid's configuration accepts.
  for (const char* yes : {"yes", "on", "true", "1"})
    if (text == yes)
      return true;
  for (const char* no : {"no", "off", "false", "0"})
    if (text == no)
      return false;
  return std::nullopt;
}

std::optional<int> parse_int(const std::string& text)
{
  if (text.empty())
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 0);
  if (*end != '\0' || errno != 0 || value < INT_MIN || value > INT_MAX)
    return std::nullopt;
  return static_cast<int>(value);
}

std::optional<double> parse_double(const std::string& text)
{
  if (text.empty())
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' || errno != 0 || not std::isfinite(value))
    return std::nullopt;
  return value;
}

std::vector<std::string> from_environment()
{
  std::vector<std::string> arguments;
  for (const auto& option : registry()) {
    if (option.environment_alias.empty())
      continue;
    if (const char* value = std::getenv(option.environment_alias.c_str()))
      arguments.push_back("--cfg=" + option.name + ":" +
                          (option.from_environment ? option.from_environment(value) : std::string(value)));
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
