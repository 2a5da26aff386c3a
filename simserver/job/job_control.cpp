#include "job_control.hpp"

#include "../model_options.hpp"
#include "../nic/nic.hpp"
#include "../nic/nic_parameters.hpp"
#include "../nic/wire.hpp"
#include "../trace/json_text.hpp"
#include "../trace/recorder.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <iomanip>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace s4bxi::job {

namespace {

// What every rank and every NIC did, summed.
struct Totals {
  double compute_s = 0;
  double wait_s = 0;
  double poll_s = 0;
  uint64_t portals_calls = 0;
  uint64_t answered_in_process = 0;
  uint64_t messages = 0;
  uint64_t wire_bytes = 0;
  uint64_t retransmissions = 0;
  uint64_t messages_lost = 0;
  uint64_t operations_failed = 0;
  uint64_t operations_dropped = 0;
  double server_waited_s = 0;
  uint64_t answers = 0;
  uint64_t wake_ups = 0;
  uint64_t side_by_side = 0;
  uint64_t early_answers = 0;
};

// What rank processes counted of their calls into the MPI library
// (ipc::LibraryTotals; zeros for a program without MPI).
// The simulated time inside MPI calls splits into the network's (blocked in
// or polling on Portals events: RankStatistics::library_waits_s) and the
// library's own (the rest: what the model charges for the Portals calls it
// makes, and its PMI exchanges in MPI_Init and MPI_Finalize).
struct MpiTotals {
  uint64_t calls = 0;
  double time_s = 0;
  double cpu_s = 0;
  double network_s = 0;
  void add(const ipc::Channel* channel, const RankStatistics& stats)
  {
    if (channel == nullptr)
      return;
    calls += channel->library.calls.load(std::memory_order_relaxed);
    time_s += static_cast<double>(channel->library.simulated_ns.load(std::memory_order_relaxed)) * 1e-9;
    cpu_s += static_cast<double>(channel->library.cpu_ns.load(std::memory_order_relaxed)) * 1e-9;
    network_s += stats.library_waits_s;
  }
  // (The rank's clock counts the time inside; the server charges the waits:
  // the two may differ by a rounding.)
  [[nodiscard]] double library_s() const { return std::max(0.0, time_s - network_s); }
};

std::string mpi_json(const ipc::Channel* channel, const RankStatistics& stats)
{
  MpiTotals mpi;
  mpi.add(channel, stats);
  std::ostringstream out;
  out << std::setprecision(12) << ", \"mpi_calls\": " << mpi.calls << ", \"mpi_time_s\": " << mpi.time_s
      << ", \"mpi_network_s\": " << mpi.network_s << ", \"mpi_library_s\": " << mpi.library_s()
      << ", \"mpi_cpu_s\": " << mpi.cpu_s;
  return out.str();
}

Totals totals_of(const World& world)
{
  Totals totals;
  for (const auto& rank : world.ranks) {
    totals.compute_s += rank.stats.compute_s;
    totals.wait_s += rank.stats.wait_s;
    totals.poll_s += rank.stats.poll_s;
    totals.portals_calls += rank.stats.portals_calls;
    totals.answered_in_process += rank.stats.answered_in_process;
    totals.server_waited_s += rank.stats.server_waited_s;
    totals.answers += rank.stats.answers;
    totals.wake_ups += rank.stats.wake_ups;
    totals.side_by_side += rank.stats.side_by_side;
    totals.early_answers += rank.stats.early_answers;
  }
  totals.server_waited_s += world.held_for_outside_s;
  for (const auto& nic : world.nics) {
    if (not nic)
      continue;
    for (const auto& traffic : nic->statistics().sent_by_kind)
      totals.messages += traffic.messages;
    totals.wire_bytes += nic->statistics().wire_bytes_sent;
    totals.retransmissions += nic->statistics().retransmissions;
    totals.messages_lost += nic->statistics().messages_lost;
    totals.operations_failed += nic->statistics().operations_failed;
    totals.operations_dropped += nic->statistics().operations_dropped;
  }
  return totals;
}

// A fraction of the time a PCIe direction of `bandwidth` could have carried `bytes`.
double utilisation(uint64_t bytes, double simulated_s, double bandwidth)
{
  return simulated_s > 0 && bandwidth > 0 ? static_cast<double>(bytes) / (simulated_s * bandwidth) : 0;
}

} // namespace

volatile std::sig_atomic_t JobControl::interrupt_signal = 0;

JobControl::JobControl(World& world, std::string report_path, double wall_start)
    : world_(world), report_path_(std::move(report_path)), wall_start_(wall_start),
      ticks_start_(ipc::contention_ticks()), ticks_wall_start_(wall_clock_now())
{
}

void JobControl::install_signal_handlers()
{
  struct sigaction action {};
  action.sa_handler = [](int signal) { interrupt_signal = signal; };
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
}

void JobControl::check_interrupt()
{
  if (interrupt_signal != 0)
    finish(128 + interrupt_signal, std::string("interrupted by signal ") + std::to_string(interrupt_signal) + " (" +
                                        strsignal(interrupt_signal) + "); all ranks were stopped");
}

std::string JobControl::blocked_json(const RankPortals& rank)
{
  if (not rank.alive || rank.current_call == "user code" || rank.current_call == "exit" || rank.current_call.empty())
    return "null";
  std::string json = "{\"in\": ";
  trace::append_json_string(json, rank.current_call);
  json += ", \"call_site\": ";
  if (rank.call_site.empty())
    json += "null";
  else
    trace::append_json_string(json, rank.call_site);
  return json + "}";
}

std::string JobControl::crash_json(unsigned rank) const
{
  auto crash = world_.crashes.of(rank);
  if (not crash)
    return "null";
  std::string json = "{\"signal\": " + std::to_string(crash->signal) + ", \"address\": ";
  trace::append_json_string(json, address_text(crash->address));
  json += ", \"last_portals_call\": ";
  trace::append_json_string(json, world_.ranks[rank].last_call);
  json += ", \"backtrace\": [";
  for (size_t i = 0; i < crash->frames.size(); ++i) {
    json += i == 0 ? "" : ", ";
    trace::append_json_string(json, describe_frame(crash->frames[i]));
  }
  return json + "]}";
}

std::optional<std::string> JobControl::unwritable_report(const std::string& path)
{
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    return "the report '" + path + "' is a directory; give --report a file name";
  const bool existed = std::filesystem::exists(path, ignored);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return "the report '" + path + "' cannot be written (" + strerror(errno) + "); give --report a file you may write";
  close(fd);
  if (not existed) // written at the end; no empty file if the run never starts
    std::filesystem::remove(path, ignored);
  return std::nullopt;
}

bool JobControl::write_report(int status, const std::string& stop_reason) const
{
  if (report_path_.empty())
    return true;
  // Built in memory, then written and closed with every error checked: a
  // stream would lose a failed write (ENOSPC) at its destruction.
  std::ostringstream out;
  out << std::setprecision(12);
  const double simulated_s = sim_now();
  const Totals totals = totals_of(world_);
  out << "{\n";
  out << "  \"simulated_time_s\": " << simulated_s << ",\n";
  out << "  \"wall_time_s\": " << wall_clock_now() - wall_start_ << ",\n";
  out << "  \"exit_status\": " << status << ",\n";
  std::string reason = "null";
  if (not stop_reason.empty()) {
    reason.clear();
    trace::append_json_string(reason, stop_reason);
  }
  out << "  \"stop_reason\": " << reason << ",\n";
  out << "  \"ranks\": " << world_.ranks.size() << ",\n";
  out << "  \"layer\": \"" << layer_ << "\",\n";
  // Peak resident memory: the server's own, and the ranks' (as reaped).
  struct rusage server_usage {};
  getrusage(RUSAGE_SELF, &server_usage);
  long rank_rss_max = 0;
  double rank_rss_sum = 0;
  size_t ranks_measured = 0;
  for (const auto& rank : world_.ranks)
    if (rank.stats.max_rss_kb >= 0) {
      rank_rss_max = std::max(rank_rss_max, rank.stats.max_rss_kb);
      rank_rss_sum += static_cast<double>(rank.stats.max_rss_kb);
      ranks_measured++;
    }
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  out << "  \"server_cpu_s\": {\"user\": " << seconds(server_usage.ru_utime) << ", \"system\": "
      << seconds(server_usage.ru_stime) << "},\n";
  // How often, and how long, the server kept a CPU of its own (s4bxi/server-cpu).
  const ServerCpu* own = world_.server_cpu;
  out << "  \"own_cpu\": {\"taken\": " << (own != nullptr ? own->times_taken() : 0)
      << ", \"held_s\": " << (own != nullptr ? own->held_s() : 0.0) << "},\n";
  // Wall time spent waiting for the rank processes' calls, against wall time
  // simulating; and the answers that had to wake their process up.
  // Of that wait: how long the processes ran between an answer and their
  // next call (ipc::ProcessRuns, in ticks: converted at the counter's rate
  // over the job), the rest being the hand-overs both ways.
  uint64_t run_ticks = 0;
  uint64_t runs = 0;
  for (unsigned rank = 0; rank < world_.ranks.size(); ++rank)
    if (const ipc::Channel* channel = world_.processes->channel(rank); channel != nullptr) {
      run_ticks += channel->runs.ticks.load(std::memory_order_relaxed);
      runs += channel->runs.count.load(std::memory_order_relaxed);
    }
  const double ticks_per_s = static_cast<double>(ipc::contention_ticks() - ticks_start_) /
                             std::max(1e-9, wall_clock_now() - ticks_wall_start_);
  const double runs_s = ticks_per_s > 0 ? static_cast<double>(run_ticks) / ticks_per_s : 0;
  out << "  \"server_waiting\": {\"for_ranks_s\": " << totals.server_waited_s << ", \"answers\": " << totals.answers
      << ", \"wake_ups\": " << totals.wake_ups << ", \"relayed\": " << world_.wakes_relayed
      << ", \"relayed_missed\": " << world_.relayed_wakes_missed << ", \"side_by_side\": " << totals.side_by_side
      << ", \"ranks_ran_s\": " << runs_s << ", \"ranks_ran\": " << runs << "},\n";
  out << "  \"engine_rounds\": " << world_.engine_rounds << ",\n";
  // Messages that crossed the wire through a mailbox rather than host to
  // host (s4bxi/wire-mailboxes-beyond).
  out << "  \"wire_through_mailboxes\": " << (world_.wire != nullptr ? world_.wire->through_mailboxes() : 0) << ",\n";
  out << "  \"wire_alone\": " << (world_.wire != nullptr ? world_.wire->lone_messages() : 0) << ",\n";
  out << "  \"wire_alone_arrivals\": " << (world_.wire != nullptr ? world_.wire->lone_arrivals() : 0) << ",\n";
  out << "  \"wire_acks_at_landing\": " << (world_.wire != nullptr ? world_.wire->handled_at_landing() : 0) << ",\n";
  out << "  \"rx_in_maestro\": {\"handled\": " << (world_.wire != nullptr ? world_.wire->handled_in_maestro() : 0)
      << ", \"sent_back\": " << (world_.wire != nullptr ? world_.wire->sent_back_to_engines() : 0) << "},\n";
  uint64_t sent_from_maestro = 0, tx_sent_back = 0;
  for (const auto& nic : world_.nics)
    if (nic) {
      sent_from_maestro += nic->statistics().sent_from_maestro;
      tx_sent_back += nic->statistics().tx_sent_back;
    }
  out << "  \"tx_in_maestro\": {\"sent\": " << sent_from_maestro << ", \"sent_back\": " << tx_sent_back << "},\n";
  // Ranks and threads parked while blocked in the kernel, and how often their
  // proxies were woken to look whether they may go on.
  out << "  \"parks\": {\"count\": " << world_.parks << ", \"wake_ups\": " << world_.park_wake_ups << "},\n";
  // Calls answered before their simulated end (s4bxi/early-put-answer), and
  // the NIC's accesses to the memory of a rank running ahead (expected none).
  out << "  \"early_answers\": {\"calls\": " << totals.early_answers
      << ", \"memory_accesses_meanwhile\": " << world_.early_answer_overlaps << "},\n";
  // PtlPuts queued by the processes with a forecast of their end and SEND
  // event, and those that did not go as forecast (expected none).
  out << "  \"put_forecasts\": {\"used\": " << world_.put_forecasts << ", \"missed\": " << world_.put_forecast_misses
      << "},\n";
  // The same for appends queued with a forecast of their LINK event.
  out << "  \"link_forecasts\": {\"used\": " << world_.link_forecasts << ", \"missed\": " << world_.link_forecast_misses
      << "},\n";
  // Commands written over PCIe alone, as sleeps (s4bxi/lone-commands), and
  // the other writes that began during one (expected none).
  out << "  \"lone_commands\": {\"written\": " << world_.lone_commands
      << ", \"overlapped\": " << world_.lone_command_overlaps << "},\n";
  // DMA writes to host memory left out of the network model, nothing else
  // being on their links (s4bxi/lone-dma-writes).
  out << "  \"lone_dma_writes\": " << world_.lone_dma_writes << ",\n";
  // Answers given at the rank's later time before the clock got there, and
  // the simulated time the simulation went through while those ranks ran
  // (s4bxi/answers-ahead).
  out << "  \"answers_ahead\": {\"count\": " << world_.answers_ahead << ", \"simulated_s\": " << world_.answered_ahead_s
      << "},\n";
  // Writes into ranks' memory that their processes copied themselves, and
  // those of them the server made after all (s4bxi/staged-writes).
  uint64_t staged = 0, flushed = 0;
  for (const RankPortals& rank : world_.ranks) {
    staged += rank.staged.staged();
    flushed += rank.staged.flushed();
  }
  out << "  \"staged_writes\": {\"staged\": " << staged << ", \"flushed\": " << flushed << "},\n";
  out << "  \"memory\": {\"server_max_rss_kb\": " << server_usage.ru_maxrss
      << ", \"rank_max_rss_kb\": " << rank_rss_max
      << ", \"rank_mean_max_rss_kb\": " << (ranks_measured > 0 ? rank_rss_sum / static_cast<double>(ranks_measured) : 0)
      << "},\n";
  out << "  \"totals\": {\"compute_s\": " << totals.compute_s << ", \"wait_s\": " << totals.wait_s
      << ", \"poll_s\": " << totals.poll_s << ", \"portals_calls\": " << totals.portals_calls
      << ", \"answered_in_process\": " << totals.answered_in_process << ", \"messages\": " << totals.messages << ", \"wire_bytes\": " << totals.wire_bytes
      << ", \"retransmissions\": " << totals.retransmissions << ", \"messages_lost\": " << totals.messages_lost
      << ", \"operations_failed\": " << totals.operations_failed
      << ", \"operations_dropped\": " << totals.operations_dropped << "},\n";
  out << "  \"per_rank\": [\n";
  for (size_t i = 0; i < world_.ranks.size(); ++i) {
    const auto& rank = world_.ranks[i];
    const auto& end = world_.processes->termination(static_cast<unsigned>(i));
    out << "    {\"rank\": " << rank.rank << ", \"node\": " << rank.node << ", \"exit_status\": ";
    if (end)
      out << end->shell_status();
    else
      out << "null";
    out << ", \"max_rss_kb\": ";
    if (rank.stats.max_rss_kb >= 0)
      out << rank.stats.max_rss_kb;
    else
      out << "null";
    out << ", \"compute_s\": " << rank.stats.compute_s << ", \"compute_ahead_s\": " << rank.stats.compute_ahead_s
        << ", \"wait_s\": " << rank.stats.wait_s
        << ", \"poll_s\": " << rank.stats.poll_s << ", \"portals_calls\": " << rank.stats.portals_calls
        << ", \"answered_in_process\": " << rank.stats.answered_in_process << ", \"bytes_sent\": " << rank.stats.bytes_sent << ", \"events_written\": " << rank.stats.events_written
        << mpi_json(world_.processes->channel(static_cast<unsigned>(i)), rank.stats)
        << ", \"crash\": " << crash_json(static_cast<unsigned>(i)) << ", \"blocked\": " << blocked_json(rank) << "}"
        << (i + 1 < world_.ranks.size() ? "," : "")
        << "\n";
  }
  out << "  ],\n";
  out << "  \"per_nic\": [\n";
  bool first = true;
  for (size_t nid = 0; nid < world_.nics.size(); ++nid) {
    if (not world_.nics[nid])
      continue;
    const auto& s = world_.nics[nid]->statistics();
    uint64_t messages = 0;
    for (const auto& traffic : s.sent_by_kind)
      messages += traffic.messages;
    out << (first ? "" : ",\n") << "    {\"node\": " << nid << ", \"messages\": " << messages
        << ", \"payload_bytes\": " << s.payload_bytes_sent << ", \"wire_bytes\": " << s.wire_bytes_sent
        << ",\n     \"by_kind\": {";
    for (int kind = 0; kind < trace::kMessageKinds; ++kind) {
      const auto& traffic = s.sent_by_kind[kind];
      out << (kind == 0 ? "" : ", ") << "\"" << trace::name(static_cast<trace::Kind>(kind))
          << "\": {\"messages\": " << traffic.messages << ", \"payload_bytes\": " << traffic.payload_bytes
          << ", \"wire_bytes\": " << traffic.wire_bytes << "}";
    }
    // Events are written by the NIC into the memory of the node's ranks.
    uint64_t to_host = s.pcie_bytes_to_host;
    for (const auto& rank : world_.ranks)
      if (rank.node == nid)
        to_host += rank.stats.events_written * static_cast<uint64_t>(nic::kEventBytes);
    const double bandwidth = nic::node_parameters(static_cast<unsigned>(nid)).pci_bandwidth_Bps;
    out << "},\n     \"pcie\": {\"bandwidth_Bps\": " << bandwidth << ", \"to_nic_bytes\": " << s.pcie_bytes_to_nic
        << ", \"to_host_bytes\": " << to_host
        << ", \"to_nic_utilisation\": " << utilisation(s.pcie_bytes_to_nic, simulated_s, bandwidth)
        << ", \"to_host_utilisation\": " << utilisation(to_host, simulated_s, bandwidth) << "},\n";
    out << "     \"e2e\": {\"bxi_acks\": " << s.bxi_acks_sent << ", \"retransmissions\": " << s.retransmissions
        << ", \"messages_lost\": " << s.messages_lost << ", \"duplicates_received\": " << s.duplicates_received
        << ", \"messages_given_up\": " << s.messages_given_up << ", \"operations_failed\": " << s.operations_failed
        << "}}";
    first = false;
  }
  out << "\n  ]\n}\n";
  const std::string text = out.str();
  std::FILE* file = std::fopen(report_path_.c_str(), "w");
  bool written = file != nullptr && std::fwrite(text.data(), 1, text.size(), file) == text.size() &&
                 std::fflush(file) == 0;
  int error = errno;
  if (file != nullptr && std::fclose(file) != 0 && written) {
    written = false;
    error = errno;
  }
  if (not written)
    std::fprintf(stderr, "s4bxi-run: cannot write the report '%s' (%s)\n", report_path_.c_str(), strerror(error));
  return written;
}

void JobControl::rank_failed(unsigned rank, const Termination& end)
{
  std::string sentence = "rank " + std::to_string(rank) + " " + end.describe();
  std::string backtrace;
  if (auto crash = world_.crashes.of(rank); crash && end.signaled && crash->signal == end.code) {
    // A stray write into the emulator's memory: the rank maps no other
    // channel than its own writable (preload/rank_client.cpp).
    if (crash->in_segment)
      sentence = "rank " + std::to_string(rank) + " wrote outside its channel, into the emulator's shared memory (a "
                 "stray pointer or an overrun), and " + end.describe();
    sentence += crash_place(*crash);
    char when[64];
    std::snprintf(when, sizeof when, ", at simulated time %.9f s", sim_now());
    sentence += when;
    const auto& last = world_.ranks[rank].last_call;
    sentence += last.empty() ? ", before any Portals call" : ", last Portals call " + last;
    for (size_t i = 0; i < crash->frames.size(); ++i)
      backtrace += "\ns4bxi-run:   #" + std::to_string(i) + " " + describe_frame(crash->frames[i]);
  }
  finish(end.shell_status(), sentence + "; the other ranks were stopped" + backtrace);
}

void JobControl::finish(int status, const std::string& sentence)
{
  // What the lanes still open counted belongs to their ranks' figures.
  for (auto& lane : world_.lanes)
    if (lane.alive && lane.owner != nullptr) {
      lane.owner->stats.add(lane.stats);
      lane.stats = RankStatistics{};
    }
  world_.processes->kill_all();
  session_.remove();
  std::fflush(stdout);
  if (not sentence.empty())
    std::fprintf(stderr, "s4bxi-run: %s\n", sentence.c_str());
  // A run whose report is lost did not succeed.
  if (not write_report(status, sentence) && status == 0)
    status = kUsageErrorStatus;
  trace::finish(sim_now());
  if (const Totals totals = totals_of(world_); totals.portals_calls > 0) {
    std::fprintf(stderr, "s4bxi-run: compute %.9g s, waiting %.9g s, polling %.9g s (all ranks)\n", totals.compute_s,
                 totals.wait_s, totals.poll_s);
    MpiTotals mpi;
    for (unsigned rank = 0; rank < world_.ranks.size(); ++rank)
      mpi.add(world_.processes->channel(rank), world_.ranks[rank].stats);
    // Where an MPI program's time went: inside MPI, simulated; and the CPU
    // time spent there, which is not the program's compute unless asked.
    if (mpi.calls > 0) {
      char cpu[160] = "";
      if (mpi.cpu_s > 0)
        std::snprintf(cpu, sizeof cpu, "; their %.9g s of CPU %s", mpi.cpu_s,
                      options::library_cpu_is_compute() ? "counted as compute (s4bxi/library-compute:measured)"
                                                        : "not counted as compute (s4bxi/library-compute)");
      std::fprintf(stderr,
                   "s4bxi-run: %llu MPI calls, %.9g s inside them (all ranks): %.9g s waiting for the network, "
                   "%.9g s in the library's own calls%s\n",
                   static_cast<unsigned long long>(mpi.calls), mpi.time_s, mpi.network_s, mpi.library_s(), cpu);
    }
    std::string faults;
    if (totals.messages_lost > 0)
      faults += ", " + std::to_string(totals.messages_lost) + " lost";
    if (totals.operations_failed > 0)
      faults += ", " + std::to_string(totals.operations_failed) + " operations undeliverable";
    if (totals.operations_dropped > 0)
      faults += ", " + std::to_string(totals.operations_dropped) +
                " operations not sent (their rank ended before the NIC read their data)";
    std::fprintf(stderr, "s4bxi-run: %llu messages, %llu bytes on the wire, %llu retransmissions%s\n",
                 static_cast<unsigned long long>(totals.messages), static_cast<unsigned long long>(totals.wire_bytes),
                 static_cast<unsigned long long>(totals.retransmissions), faults.c_str());
  }
  std::fprintf(stderr, "s4bxi-run: simulated time %.9f s, wall time %.3f s, %zu ranks\n",
               sim_now(), wall_clock_now() - wall_start_, world_.ranks.size());
  std::fflush(stderr);
  // Not exit(): we may be inside an actor, and SimGrid's teardown of blocked
  // actors is neither needed nor safe here.
  std::_Exit(status);
}

} // namespace s4bxi::job
