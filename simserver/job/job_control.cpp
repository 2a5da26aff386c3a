#include "job_control.hpp"

#include "../nic/nic.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>

namespace s4bxi::job {

volatile std::sig_atomic_t JobControl::interrupt_signal = 0;

double wall_clock_now()
{
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

JobControl::JobControl(World& world, std::string report_path, double wall_start)
    : world_(world), report_path_(std::move(report_path)), wall_start_(wall_start)
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

void JobControl::write_report(int status) const
{
  if (report_path_.empty())
    return;
  std::ofstream out(report_path_);
  if (not out) {
    std::fprintf(stderr, "s4bxi-run: cannot write the report '%s': %s\n", report_path_.c_str(), strerror(errno));
    return;
  }
  out << std::setprecision(12);
  out << "{\n";
  out << "  \"simulated_time_s\": " << simgrid::s4u::Engine::get_clock() << ",\n";
  out << "  \"wall_time_s\": " << wall_clock_now() - wall_start_ << ",\n";
  out << "  \"exit_status\": " << status << ",\n";
  out << "  \"ranks\": " << world_.ranks.size() << ",\n";
  out << "  \"per_rank\": [\n";
  for (size_t i = 0; i < world_.ranks.size(); ++i) {
    const auto& rank = world_.ranks[i];
    const auto& end = world_.processes->termination(static_cast<unsigned>(i));
    out << "    {\"rank\": " << rank.rank << ", \"node\": " << rank.node << ", \"exit_status\": ";
    if (end)
      out << end->shell_status();
    else
      out << "null";
    out << ", \"compute_s\": " << rank.stats.compute_s << ", \"wait_s\": " << rank.stats.wait_s
        << ", \"portals_calls\": " << rank.stats.portals_calls << ", \"bytes_sent\": " << rank.stats.bytes_sent
        << "}" << (i + 1 < world_.ranks.size() ? "," : "") << "\n";
  }
  out << "  ],\n";
  out << "  \"per_nic\": [\n";
  bool first = true;
  for (size_t nid = 0; nid < world_.nics.size(); ++nid) {
    if (not world_.nics[nid])
      continue;
    const auto& s = world_.nics[nid]->statistics();
    out << (first ? "" : ",\n") << "    {\"node\": " << nid << ", \"puts\": " << s.messages_sent[0]
        << ", \"gets\": " << s.messages_sent[1] << ", \"acks\": " << s.messages_sent[2]
        << ", \"get_responses\": " << s.messages_sent[3] << ", \"payload_bytes\": " << s.payload_bytes_sent
        << ", \"wire_bytes\": " << s.wire_bytes_sent << "}";
    first = false;
  }
  out << "\n  ]\n}\n";
}

void JobControl::finish(int status, const std::string& sentence)
{
  world_.processes->kill_all();
  std::fflush(stdout);
  if (not sentence.empty())
    std::fprintf(stderr, "s4bxi-run: %s\n", sentence.c_str());
  write_report(status);
  std::fprintf(stderr, "s4bxi-run: simulated time %.9f s, wall time %.3f s, %zu ranks\n",
               simgrid::s4u::Engine::get_clock(), wall_clock_now() - wall_start_, world_.ranks.size());
  std::fflush(stderr);
  // Not exit(): we may be inside an actor, and SimGrid's teardown of blocked
  // actors is neither needed nor safe here.
  std::_Exit(status);
}

} // namespace s4bxi::job
