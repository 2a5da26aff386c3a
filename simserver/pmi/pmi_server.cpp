#include "pmi_server.hpp"

#include "../trace/recorder.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <cerrno>
#include <charconv>
#include <mutex>
#include <sys/socket.h>
#include <unistd.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_pmi, "PMI-1 service of the run (key-value space, barrier)");

namespace s4bxi::pmi {

namespace {
// Lengths as get_maxes reports them: buffer sizes, the terminating NUL
// included. 1024 for values, as Hydra reports it, which stock simple-PMI
// clients expect; OpenMPI cuts its modex into chunks of vallen_max - 1
// characters whatever the maximum is, so a larger one would only save a few
// gets.
constexpr unsigned kKvsNameMax = 256;
constexpr unsigned kKeyMax = 256;
constexpr unsigned kValueMax = 1024;

// The job's exit status for an abort's `exitcode`: the code itself, 0
// included (shmem_global_exit(0) ends the job well), as the shell sees it
// (its low 8 bits); an abort without a readable code, or whose code the
// shell would read as 0 (256), is a failure.
int abort_status(const std::string& code)
{
  long value = 0;
  const auto [end, error] = std::from_chars(code.data(), code.data() + code.size(), value);
  if (code.empty() or error != std::errc() or end != code.data() + code.size())
    return 1;
  const int status = static_cast<int>(value & 0xff);
  return value != 0 and status == 0 ? 1 : status;
}
} // namespace

Server::Server(World& world, job::JobControl& control, std::vector<int> sockets, job::RankWatcher& watcher)
    : world_(world)
    , control_(control)
    , sockets_(sockets)
    , pending_input_(sockets.size())
    , closed_(sockets.size(), false)
    , kvs_name_("kvs_" + std::to_string(getpid()) + "_0")
    , mutex_(simgrid::s4u::Mutex::create())
    , barrier_done_(simgrid::s4u::ConditionVariable::create())
    , watcher_(watcher)
{
}

void Server::answer(unsigned rank, const std::string& line)
{
  // The rank reads the answer then may look at its clock at once: the
  // simulated time of this release must be published first.
  ipc::Channel* channel = world_.processes->channel(rank);
  channel->release_now = sim_now();
  channel->release_generation.fetch_add(1, std::memory_order_release);
  size_t done = 0;
  while (done < line.size()) {
    ssize_t written = send(sockets_[rank], line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) // the rank closed its end or died: its proxy will see it end
      return;
    done += static_cast<size_t>(written);
  }
}

void Server::serve(unsigned rank)
{
  char buffer[4096];
  while (true) {
    ssize_t got = recv(sockets_[rank], buffer, sizeof buffer, MSG_DONTWAIT);
    if (got > 0) {
      pending_input_[rank].append(buffer, static_cast<size_t>(got));
      continue;
    }
    if (got == 0)
      closed_[rank] = true;
    else if (errno == EINTR)
      continue;
    break; // EAGAIN: everything available was read
  }
  for (const auto& line : take_lines(pending_input_[rank])) {
    auto command = parse_line(line);
    if (not command) {
      XBT_WARN("rank %u sent a PMI line without cmd=: '%s'", rank, line.c_str());
      continue;
    }
    XBT_DEBUG("rank %u: PMI %s", rank, line.c_str());
    handle(rank, *command);
  }
  if (not closed_[rank])
    watcher_.rearm_pmi(rank);
}

void Server::handle(unsigned rank, const Command& command)
{
  const std::string size = std::to_string(world_.ranks.size());
  const std::string& name = command.name;
  if (name == "init") {
    const bool ours = command.field("pmi_version") == "1";
    answer(rank, format_line("response_to_init",
                             {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", ours ? "0" : "-1"}}));
  } else if (name == "get_maxes") {
    answer(rank, format_line("maxes", {{"kvsname_max", std::to_string(kKvsNameMax)},
                                       {"keylen_max", std::to_string(kKeyMax)},
                                       {"vallen_max", std::to_string(kValueMax)},
                                       {"rc", "0"}}));
  } else if (name == "get_appnum") {
    answer(rank, format_line("appnum", {{"appnum", "0"}, {"rc", "0"}}));
  } else if (name == "get_my_kvsname") {
    answer(rank, format_line("my_kvsname", {{"kvsname", kvs_name_}, {"rc", "0"}}));
  } else if (name == "get_universe_size") {
    answer(rank, format_line("universe_size", {{"size", size}, {"rc", "0"}}));
  } else if (name == "put") {
    const std::string key = command.field("key");
    if (command.field("kvsname") != kvs_name_) {
      answer(rank, format_line("put_result", {{"rc", "-1"}, {"msg", "unknown_kvsname"}}));
    } else if (key.empty() || key.size() >= kKeyMax) {
      answer(rank, format_line("put_result", {{"rc", "-1"}, {"msg", "invalid_key_length"}}));
    } else if (command.field("value").size() >= kValueMax) {
      answer(rank, format_line("put_result", {{"rc", "-1"}, {"msg", "value_too_long"}}));
    } else {
      kvs_[key] = command.field("value");
      answer(rank, format_line("put_result", {{"rc", "0"}, {"msg", "success"}}));
    }
  } else if (name == "get") {
    auto it = command.field("kvsname") == kvs_name_ ? kvs_.find(command.field("key")) : kvs_.end();
    if (it == kvs_.end())
      answer(rank, format_line("get_result", {{"rc", "-1"}, {"msg", "key_" + command.field("key") + "_not_found"}}));
    else
      answer(rank, format_line("get_result", {{"rc", "0"}, {"msg", "success"}, {"value", it->second}}));
  } else if (name == "barrier_in") {
    barrier(rank);
    answer(rank, format_line("barrier_out", {{"rc", "0"}}));
  } else if (name == "finalize") {
    answer(rank, format_line("finalize_ack", {{"rc", "0"}}));
  } else if (name == "abort") {
    const std::string code = command.field("exitcode");
    control_.finish(abort_status(code), "rank " + std::to_string(rank) + " called PMI_Abort (exit code " +
                                            (code.empty() ? "unset" : code) + "); the other ranks were stopped");
  } else {
    XBT_WARN("rank %u sent the PMI command '%s', which this PMI-1 server does not offer", rank, name.c_str());
    answer(rank, format_line(name + "_result", {{"rc", "-1"}, {"msg", "unsupported_command"}}));
  }
}

void Server::barrier(unsigned rank)
{
  RankPortals& waiting = world_.ranks[rank];
  waiting.current_call = "PMI barrier";
  std::unique_lock lock(*mutex_);
  const uint64_t generation = barrier_generation_;
  if (++barrier_arrived_ == world_.ranks.size()) {
    barrier_arrived_ = 0;
    barrier_generation_++;
    barrier_done_->notify_all();
    return;
  }
  waiting.expect_long_wait();
  const double start = sim_now();
  while (barrier_generation_ == generation)
    barrier_done_->wait(lock);
  const double end = sim_now();
  waiting.stats.wait_s += end - start;
  if (trace::active != nullptr && end > start)
    trace::active->record({.kind = trace::Kind::Wait,
                           .node = waiting.node,
                           .rank = static_cast<int>(rank),
                           .start = start,
                           .end = end,
                           .what = "PMI barrier"});
}

} // namespace s4bxi::pmi
