// Attaching to the run's segment before main, detaching after the program's
// own destructors, and the request/reply exchange in between.
#include "rank_client.hpp"

#include "crash_handler.hpp"
#include "sync_timer.hpp"
#include "doorbell.hpp"
#include "huge_pages.hpp"
#include "local_polls.hpp"
#include "other_processes.hpp"
#include "own_memory.hpp"
#include "staged_writes.hpp"
#include "queued_appends.hpp"
#include "queued_unlinks.hpp"
#include "sim_clock.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <string_view>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::preload::client {
namespace {

std::atomic<State> current_state{State::NotLaunched};
std::atomic<bool> explained{false};

int segment_fd = -1;
void* segment_base = nullptr; // the whole mapping, for crash reports
std::size_t segment_length = 0;
const ipc::SegmentHeader* header = nullptr; // read-only in this process
// The header's clock settings, copied when the process attaches: the program
// may map the segment writable itself and scribble over the header, which
// must then change nothing (tests/e2e/test_robust_segment.cpp).
ipc::ClockConfig clock_settings = {};
ipc::SharedScheduling* scheduling = nullptr;
// This rank's part in relaying the server's wakes while it is the warm rank.
ipc::WakeRelayRole wake_relay;
ipc::Channel* channel = nullptr;
uint32_t channel_rank = 0;
ipc::HelloResult hello_result{};
// The write end of the run's crash pipe, which also carries PtlAbort notices.
int notice_fd = -1;
// Threads in (or queued for) a wait or poll that PtlAbort can end.
std::atomic<uint32_t> abortable_waiters{0};

// Serializes the threads that call through the channel (the main thread,
// and the others while no lane is free); also guards the spin budget, which
// adapts to how fast this rank's peer answers.
std::mutex channel_mutex;
ipc::SpinBudget spin_budget;
// The thread that attached: it calls through the channel. Any other thread
// takes a lane of its own at its first call (ipc::Lane).
pid_t main_tid = 0;
// This thread's lane, once it has one; whether it found none free (it then
// calls through the channel, after the others).
thread_local ipc::Lane* own_lane = nullptr;
thread_local bool no_lane_free = false;
thread_local ipc::SpinBudget lane_spin_budget;
// Calls this thread made on its lane: a thread that made none (a library's
// thread that only ever sleeps in the kernel) leaves its lane to be closed
// with the process, so that its end adds no step to the simulation at a
// moment only real time decides.
thread_local uint64_t lane_calls = 0;
// A thread called on a lane: from then on the process answers nothing itself
// (local polls, queued calls), since the event queues it would answer from
// change with other threads' calls that its mirror does not show.
std::atomic<bool> lanes_taken{false};
// Lanes of this process open now: the proxy of each may be the one the
// server waits on when another thread calls (kAttentionSibling).
std::atomic<int> lanes_open{0};
// Ends the lane of a thread when the thread ends (its value: the lane).
pthread_key_t lane_key;
bool lane_key_made = false;
// Whether this thread is in an exchange: the sync timer's handler must not
// start another one on it (sync_timer.cpp).
thread_local bool in_exchange = false;
// The last reply came before its call's simulated end (ipc::kReplyClockPending):
// the clock is synced before it is read.
std::atomic<bool> clock_pending{false};
// How a Put queued before the next exchange goes on (ipc::PutForecast), from
// the latest reply of the channel (under the channel mutex).
ipc::PutForecast put_forecast{};

// Messages go through write(2): this runs in constructors and destructors,
// where stdio may not be usable, and must not be reordered by buffering.
void say(std::string_view text)
{
  while (not text.empty()) {
    ssize_t n = write(STDERR_FILENO, text.data(), text.size());
    if (n < 0 and errno == EINTR)
      continue;
    if (n <= 0)
      return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The server waits for this process; carrying on without the channel would
// only turn the problem into a confusing hang or failure later.
[[noreturn]] void fatal(std::string_view text)
{
  say(text);
  _exit(1);
}

bool parse_int(const char* text, long& value)
{
  std::string_view view(text);
  auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  return error == std::errc() and end == view.data() + view.size() and not view.empty();
}

// A notice through the crash pipe, for what the server must learn while no
// proxy waits on this rank's doorbell (ipc::kNotice*). errno is preserved.
void send_notice(uint32_t notice)
{
  const int saved_errno = errno;
  if (notice_fd >= 0)
    while (write(notice_fd, &notice, sizeof notice) < 0 and errno == EINTR) {
    }
  errno = saved_errno;
}

// Tells the proxies of the process's other threads that this one (on
// `mine`, nullptr for the channel) called: whichever the server waits on lets
// this call's proxy serve it.
void wake_siblings(const ipc::Lane* mine)
{
  if (mine != nullptr)
    ipc::wake_without_ringing(channel->request_bell, channel->attention, ipc::kAttentionSibling);
  if (lanes_open.load(std::memory_order_relaxed) <= (mine != nullptr ? 1 : 0))
    return;
  for (ipc::Lane& lane : channel->lanes)
    if (&lane != mine and lane.state.load(std::memory_order_relaxed) == ipc::kLaneOpen)
      ipc::wake_without_ringing(lane.request_bell, lane.attention, ipc::kAttentionSibling);
}

// When the latest answer on the channel reached the process (ticks; 0: none
// yet): the run from there to the next request is counted (ipc::ProcessRuns).
uint64_t answered_at_ticks = 0;

// The exchange itself; the caller holds channel_mutex. The wait loop makes no
// system call but the futex: anything else there would stretch every round
// trip.
void exchange(ipc::Request& request, ipc::Reply& reply)
{
  if (answered_at_ticks != 0) { // (only this process writes them, under channel_mutex; the server reads at the end)
    ipc::ProcessRuns& runs = channel->runs;
    runs.ticks.store(runs.ticks.load(std::memory_order_relaxed) + (ipc::contention_ticks() - answered_at_ticks),
                     std::memory_order_relaxed);
    runs.count.store(runs.count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  in_exchange = true;
  thread_local const int32_t tid = static_cast<int32_t>(syscall(SYS_gettid));
  channel->exchange_tid.store(tid, std::memory_order_relaxed);
  sim_clock::call_begins();
  request.compute_ns = sim_clock::compute_since_reply(sim_clock::thread_cpu_if_measured());
  request.flags = sim_clock::inside_library() ? ipc::kRequestInsideLibrary : 0;
  request.local_polls = local_polls::take_report();
  uint32_t seen = channel->reply_bell.current();
  staged_writes::publish(channel->staged);
  channel->request = request;
  channel->request_bell.ring();
  // (Both sides use sequentially consistent operations: either the server
  // sees the ring before it parks the rank, or this sees `parked`.)
  if (channel->parked.load(std::memory_order_seq_cst) != 0)
    send_notice(channel_rank | ipc::kNoticeCallTag);
  if (lanes_open.load(std::memory_order_relaxed) > 0)
    wake_siblings(nullptr);
  // With more ranks than cores, spin only while the server still serves us,
  // or while no other rank stopped being served after us (the warm rank).
  const ipc::SpinCondition served{&scheduling->served_rank, channel_rank, &scheduling->warm_rank, &wake_relay};
  ipc::wait_for_ring(channel->reply_bell, seen, spin_budget, nullptr, nullptr,
                     header->only_served_rank_spins != 0 ? &served : nullptr);
  reply = channel->reply;
  // What landed in its memory while it waited, before anything else.
  if (reply.staged_writes != 0)
    staged_writes::apply(channel->staged, reply.staged_writes);
  // Read after the wait, so that neither the spinning nor the time blocked
  // counts as compute.
  const uint64_t cpu_now = sim_clock::thread_cpu_if_measured();
  sim_clock::on_reply(reply.now, cpu_now);
  local_polls::on_reply(reply, channel->mirror, channel->published_polls);
  queued_appends::on_reply(channel->append_permits, hello_result.queued_appends != 0);
  clock_pending.store((reply.flags & ipc::kReplyClockPending) != 0, std::memory_order_relaxed);
  put_forecast = reply.put_forecast;
  sync_timer::after_reply(cpu_now, request.op == ipc::Op::Sync);
  channel->exchange_tid.store(0, std::memory_order_relaxed);
  in_exchange = false;
  answered_at_ticks = ipc::contention_ticks();
}

// The exchange of a thread with a lane of its own, on that lane: no other
// thread uses it, and the process answers nothing itself meanwhile.
void lane_exchange(ipc::Lane& lane, ipc::Request& request, ipc::Reply& reply)
{
  in_exchange = true;
  // (Only a Portals call may change the queues the process answers from.)
  if (ipc::is_portals_call(request.op) and not lanes_taken.load(std::memory_order_relaxed))
    lanes_taken.store(true, std::memory_order_seq_cst);
  request.compute_ns = sim_clock::compute_since_reply(sim_clock::thread_cpu_if_measured());
  request.flags = sim_clock::inside_library() ? ipc::kRequestInsideLibrary : 0;
  request.local_polls = {};
  lane_calls++;
  uint32_t seen = lane.reply_bell.current();
  lane.request = request;
  lane.request_bell.ring();
  if (lane.parked.load(std::memory_order_seq_cst) != 0)
    send_notice(channel_rank | ipc::kNoticeCallTag);
  wake_siblings(&lane);
  ipc::wait_for_ring(lane.reply_bell, seen, lane_spin_budget, nullptr, nullptr, nullptr);
  reply = lane.reply;
  const uint64_t cpu_now = sim_clock::thread_cpu_if_measured();
  sim_clock::on_reply(reply.now, cpu_now);
  sync_timer::after_reply(cpu_now, request.op == ipc::Op::Sync);
  in_exchange = false;
}

// The lane of a thread that ends: its proxy ends, and the lane is free again.
void close_lane(void* value)
{
  auto* lane = static_cast<ipc::Lane*>(value);
  if (lane == nullptr or current_state.load(std::memory_order_acquire) != State::Attached)
    return;
  if (lane == own_lane and lane_calls == 0) {
    own_lane = nullptr;
    return;
  }
  ipc::Request request;
  request.op = ipc::Op::LaneClose;
  ipc::Reply reply;
  lane_exchange(*lane, request, reply);
  if (own_lane == lane)
    own_lane = nullptr;
  lanes_open.fetch_sub(1, std::memory_order_relaxed);
}

// Takes a free lane for `owner` (a thread id, or kLaneUnborn), ready to be
// opened (kLaneOpening) from `opened_at_ns`; nullptr when none is free.
ipc::Lane* claim_lane(int32_t owner, int64_t opened_at_ns)
{
  for (ipc::Lane& lane : channel->lanes) {
    int32_t free_owner = 0;
    // Taken by its owner's id; the server frees it (state, then owner) once
    // its proxy has ended.
    if (lane.state.load(std::memory_order_acquire) != ipc::kLaneFree or
        not lane.owner_tid.compare_exchange_strong(free_owner, owner, std::memory_order_acq_rel))
      continue;
    if (lane.state.load(std::memory_order_acquire) != ipc::kLaneFree) {
      lane.owner_tid.store(0, std::memory_order_release);
      continue;
    }
    lane.opened_at_ns = opened_at_ns;
    lane.opened_bell = lane.request_bell.current();
    lane.attention.store(0, std::memory_order_relaxed);
    lane.parked.store(0, std::memory_order_relaxed);
    lane.state.store(ipc::kLaneOpening, std::memory_order_seq_cst);
    lanes_open.fetch_add(1, std::memory_order_relaxed);
    return &lane;
  }
  return nullptr;
}

// The lane of a thread from now on: its clock follows its own replies from
// `born_ns`, and the lane ends with the thread.
void take_as_own(ipc::Lane& lane, int64_t born_ns)
{
  own_lane = &lane;
  sim_clock::start_own_timeline(born_ns);
  if (lane_key_made)
    pthread_setspecific(lane_key, &lane);
}

// This thread's lane: its own, or a free one it takes now; nullptr for the
// main thread, or when every lane is taken (it then calls through the
// channel, after the other threads there).
ipc::Lane* lane_of_this_thread()
{
  if (own_lane != nullptr or no_lane_free)
    return own_lane;
  static thread_local const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (tid == main_tid)
    return nullptr;
  const int64_t now = sim_clock::now_ns();
  ipc::Lane* lane = claim_lane(tid, now);
  if (lane == nullptr) {
    no_lane_free = true;
    say("libportals (s4bxi): more threads of this rank call the emulator than it has lanes for; the others call "
        "through the main thread's channel, one at a time\n");
    return nullptr;
  }
  take_as_own(*lane, now);
  // The rank's proxy opens it if it waits on this process (after what the
  // process answered itself); else whoever handles the notice does.
  ipc::wake_without_ringing(channel->request_bell, channel->attention, ipc::kAttentionLane);
  send_notice(channel_rank | ipc::kNoticeLaneTag);
  return own_lane;
}

// A Sync exchange: brings the rank's clock to its simulated time and the
// server up to date with what the process did itself; on the thread's own
// `lane`, or (nullptr) on the channel, whose mutex the caller then holds.
void sync_exchange(ipc::Lane* lane = nullptr)
{
  ipc::Request request;
  request.op = ipc::Op::Sync;
  ipc::Reply reply;
  if (lane != nullptr)
    lane_exchange(*lane, request, reply);
  else
    exchange(request, reply);
}

bool abortable(ipc::Op op)
{
  return op == ipc::Op::EQWait or op == ipc::Op::EQPoll or op == ipc::Op::CTWait or op == ipc::Op::CTPoll;
}

// A process forked by the rank shares nothing with the server: the channel
// is the parent's. Its copy of the descriptor goes, so that neither it nor
// what it executes can reach the segment; and so does the number: the child
// reuses it for what it opens next (a shell running a pipeline: a pipe end),
// and its own forks, which run this handler too, would close that instead.
void on_fork_child()
{
  current_state.store(State::NotTheRank, std::memory_order_release);
  if (segment_fd >= 0)
    close(segment_fd);
  segment_fd = -1;
  crash::forget(); // a child's crash is not the rank's
  own_memory::forget_pid();
  sim_clock::publish_readings_to(nullptr); // nor are its clock's readings
}

// The segment as this rank may touch it: its header read-only, the shared
// scheduling page and its own channel writable, every other rank's channel
// read-only (the wakes it relays, ipc/wake_relay.hpp, only read). A stray
// write of the program into the segment (a wild pointer, an overrun) then
// faults in the program, whose crash report says where, instead of silently
// changing another rank's request or the layout. Left as mapped if the
// layout is not in whole pages of this machine.
void protect_segment(void* base, std::size_t length, const ipc::SegmentLayout& layout, uint32_t rank)
{
  if (layout.page_size != static_cast<std::size_t>(sysconf(_SC_PAGESIZE)))
    return;
  auto* bytes = static_cast<char*>(base);
  const std::size_t channels_end = layout.size();
  mprotect(base, layout.scheduling_offset(), PROT_READ);
  mprotect(bytes + layout.channels_offset(), channels_end - layout.channels_offset(), PROT_READ);
  mprotect(bytes + layout.channel_offset(rank), layout.channel_stride(), PROT_READ | PROT_WRITE);
  if (length > channels_end) // not the server's segment size: nothing there for us
    mprotect(bytes + channels_end, length - channels_end, PROT_NONE);
  segment_base = base;
  segment_length = length;
}

// A long wait of this rank (a ring noticed a slice late, a long yield) marks
// the job contended only if a process outside the job wants a CPU now: the
// job's own processes (the server and the ranks it started) explain it
// otherwise. Marked by the job's own load at start-up (three processes on two
// cores while a rank is in MPI_Init), the first sizes of a 2-rank MPI sweep
// ran at 60 to 140 us per message instead of 20 to 30, 4 runs in 10. The
// answer holds for a while (kExplainedTicks, a fifth of the contended while)
// for every rank of the job (SharedScheduling::own_load_explained_until): the
// machine is read (about a millisecond per 70 processes) at most that often,
// by one rank at a time. Not for a rank under a debugger: its parent is the
// debugger.
void explain_long_waits_by_the_job(pid_t server)
{
  static constexpr uint64_t kExplainedTicks = ipc::CpuContention::kContendedTicks / 5;
  // (Kept for the life of the process: a waiter may ask until its last call.
  // It may ask from the sync timer's signal handler: atomics and system calls.)
  static const auto* own_load = new ipc::CpuContention::OwnLoad([server](uint64_t, uint64_t now) {
    return ipc::own_load_explains(scheduling->own_load_explained_until, scheduling->own_load_looked_at_since, now,
                                  kExplainedTicks, ipc::CpuContention::kContendedTicks,
                                  [server] { return ipc::another_process_runs(server, {}, /*children_too=*/true); });
  });
  ipc::CpuContention::explain_with(own_load);
}

// Maps the segment named by the environment and returns its rank's channel,
// or nullptr when this process is not a rank of the run.
ipc::Channel* find_channel(const char* fd_text, const char* rank_text, const char* size_text)
{
  long fd = -1;
  long rank = -1;
  long size = -1;
  if (not parse_int(fd_text, fd) or not parse_int(rank_text, rank) or not parse_int(size_text, size) or fd < 0 or
      rank < 0 or size <= 0 or rank >= size)
    return nullptr;

  // The descriptor may not be the segment: a rank's forked children close it,
  // so a program they exec may have reused the number for something else.
  struct stat st{};
  if (fstat(static_cast<int>(fd), &st) != 0 or not S_ISREG(st.st_mode) or
      static_cast<std::size_t>(st.st_size) < sizeof(ipc::SegmentHeader))
    return nullptr;
  auto length = static_cast<std::size_t>(st.st_size);
  void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, static_cast<int>(fd), 0);
  if (base == MAP_FAILED)
    return nullptr;
  auto* head = ipc::header_of(base);
  if (head->magic != ipc::kSegmentMagic) {
    munmap(base, length);
    return nullptr;
  }
  if (head->version != ipc::kProtocolVersion)
    fatal("libportals (s4bxi): this libportals and s4bxi-simserver speak different protocol versions; "
          "use the libportals.so.4 that comes with the s4bxi-run you launch\n");
  const ipc::SegmentLayout layout{head->page_size, head->rank_count};
  if (head->rank_count != static_cast<uint32_t>(size) or head->page_size == 0 or length < layout.size() or
      head->scheduling_offset != layout.scheduling_offset() or head->channels_offset != layout.channels_offset() or
      head->channel_stride != layout.channel_stride())
    fatal("libportals (s4bxi): the S4BXI_* environment does not match the run's shared segment; "
          "do not change S4BXI_RANK, S4BXI_SIZE or S4BXI_SHM_FD\n");

  auto* bytes = static_cast<char*>(base);
  ipc::Channel* mine = reinterpret_cast<ipc::Channel*>(bytes + layout.channel_offset(static_cast<uint32_t>(rank)));
  if (mine->debugged != 0 and mine->owner_pid.load(std::memory_order_acquire) == getppid()) {
    // Started by the debugger (through its shell, which execs the program):
    // this process is the rank from now on, and dies with its debugger.
    mine->owner_pid.store(getpid(), std::memory_order_release);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
  }
  if (mine->owner_pid.load(std::memory_order_acquire) != getpid()) {
    // The run's segment, inherited by a process that is not the rank (e.g.
    // through posix_spawn, which skips the fork handlers): let go of it.
    munmap(base, length);
    close(static_cast<int>(fd));
    return nullptr;
  }
  // The rank keeps its descriptor open across exec: `s4bxi-run env X=1 prog`
  // or a wrapper ending in `exec prog` replaces the image but stays the rank,
  // and the new image attaches again (a second Hello). Forked children close
  // their copy (on_fork_child).
  segment_fd = static_cast<int>(fd);
  header = head;
  scheduling = reinterpret_cast<ipc::SharedScheduling*>(bytes + layout.scheduling_offset());
  wake_relay = ipc::WakeRelayRole{&scheduling->wake_relay, bytes + layout.channels_offset(),
                                  layout.size() - layout.channels_offset(), static_cast<uint32_t>(rank)};
  ipc::CpuContention::share(&scheduling->contended_until);
  ipc::CpuContention::ignore_marks_while(&scheduling->server_cpu_held);
  if (mine->debugged == 0)
    explain_long_waits_by_the_job(getppid());
  channel_rank = static_cast<uint32_t>(rank);
  protect_segment(base, length, layout, channel_rank);
  return mine;
}

// Runs before the program's constructors (the library is preloaded, and 101
// is the earliest priority among its own), so that main and any constructor
// of the program already run on simulated time.
__attribute__((constructor(101))) void attach()
{
  const char* fd_text = std::getenv(ipc::kEnvShmFd);
  const char* rank_text = std::getenv(ipc::kEnvRank);
  const char* size_text = std::getenv(ipc::kEnvSize);
  if (fd_text == nullptr or rank_text == nullptr or size_text == nullptr)
    return; // NotLaunched

  channel = find_channel(fd_text, rank_text, size_text);
  if (channel == nullptr) {
    current_state.store(State::NotTheRank, std::memory_order_release);
    return;
  }
  main_tid = static_cast<pid_t>(syscall(SYS_gettid));
  lane_key_made = pthread_key_create(&lane_key, close_lane) == 0;
  clock_settings = header->clock;
  sim_clock::set_compute_model(clock_settings.cpu_factor, clock_settings.cpu_threshold_s);
  sim_clock::watch_releases(&channel->release_generation, &channel->release_now);
  sim_clock::publish_readings_to(&channel->latest_clock_ns);
  sim_clock::set_library_accounting(clock_settings.library_cpu_is_compute == 0, &channel->library);
  pthread_atfork(nullptr, nullptr, on_fork_child);

  ipc::Request request;
  request.op = ipc::Op::Hello;
  request.args.hello.pid = static_cast<int32_t>(getpid());
  request.args.hello.protocol_version = ipc::kProtocolVersion;
  ipc::Reply reply;
  {
    std::lock_guard lock(channel_mutex);
    exchange(request, reply);
  }
  if (reply.status != ipc::Status::Ok)
    fatal("libportals (s4bxi): s4bxi-simserver refused this rank process; see the server's messages\n");
  hello_result = reply.result.hello;
  queued_puts::on_hello(hello_result);
  huge_pages::enable(hello_result.huge_pages != 0);
  queued_unlinks::on_hello(hello_result.queued_unlinks != 0);
  current_state.store(State::Attached, std::memory_order_release);
  long crash_fd = -1;
  if (const char* crash_text = std::getenv(ipc::kEnvCrashFd); crash_text != nullptr and parse_int(crash_text, crash_fd)) {
    crash::install(channel, channel_rank, static_cast<int>(crash_fd), segment_base, segment_length);
    notice_fd = static_cast<int>(crash_fd);
  }
  sync_timer::start(clock_settings.sync_quantum_ns);
}

// Runs after the program's destructors and atexit handlers (they belong to
// objects initialised after this library), so Portals calls made there are
// still served.
// The thread that exits may not be the main thread, which may be in a call
// (a wait that only this exit ends): it tells the server on its own lane.
__attribute__((destructor(101))) void detach()
{
  if (current_state.load(std::memory_order_acquire) != State::Attached)
    return;
  ipc::Request request;
  request.op = ipc::Op::Exit;
  // The real exit status is not known here; the server learns it from waitpid.
  request.args.exit.status = 0;
  ipc::Reply reply;
  if (ipc::Lane* lane = lane_of_this_thread(); lane != nullptr) {
    lane_exchange(*lane, request, reply);
    current_state.store(State::Exited, std::memory_order_release);
    return;
  }
  std::lock_guard lock(channel_mutex);
  if (current_state.load(std::memory_order_acquire) != State::Attached)
    return;
  exchange(request, reply);
  current_state.store(State::Exited, std::memory_order_release);
}

} // namespace

State state()
{
  return current_state.load(std::memory_order_acquire);
}

bool call(ipc::Request& request, ipc::Reply& reply)
{
  int saved_errno = errno;
  const bool can_abort = abortable(request.op) and state() == State::Attached;
  if (can_abort) {
    // The epoch is taken before queueing for the channel: an abort while
    // this thread waits for another thread's call ends this wait too.
    abortable_waiters.fetch_add(1, std::memory_order_seq_cst);
    request.abort_epoch = channel->abort_generation.load(std::memory_order_seq_cst);
  }
  if (ipc::Lane* lane = state() == State::Attached ? lane_of_this_thread() : nullptr; lane != nullptr) {
    if (can_abort and channel->abort_generation.load() != request.abort_epoch) {
      reply = ipc::Reply{};
      reply.status = ipc::Status::Aborted;
    } else {
      lane_exchange(*lane, request, reply);
    }
    if (can_abort)
      abortable_waiters.fetch_sub(1);
    errno = saved_errno;
    return true;
  }
  std::unique_lock lock(channel_mutex);
  // Checked under the lock: another thread may have sent Exit meanwhile.
  if (state() != State::Attached) {
    if (can_abort)
      abortable_waiters.fetch_sub(1);
    return false;
  }
  if (can_abort and channel->abort_generation.load() != request.abort_epoch) {
    // Aborted while queued: answered here, no simulated time passes.
    reply = ipc::Reply{};
    reply.status = ipc::Status::Aborted;
  } else {
    exchange(request, reply);
  }
  if (can_abort)
    abortable_waiters.fetch_sub(1);
  errno = saved_errno;
  return true;
}

namespace {

// Whether the process may answer a call itself now (a local poll, a queued
// call): not while the clock is behind the rank's simulated time (parked, or
// an answer before the call's end), nor from a call in progress, nor once
// threads call on lanes of their own, nor on such a lane.
// Whether the process may answer a call itself now, its clock aside:
// attached, in no exchange, not parked, and no thread with a lane of its own.
bool may_act_in_process()
{
  return state() == State::Attached and not in_exchange and channel->parked.load(std::memory_order_seq_cst) == 0 and
         not lanes_taken.load(std::memory_order_seq_cst) and own_lane == nullptr;
}

bool may_answer_in_process()
{
  return may_act_in_process() and not clock_pending.load(std::memory_order_relaxed);
}

} // namespace

local_polls::Answer answer_poll_locally(std::span<const ipc::Handle> queues, bool wait)
{
  // (Nor while another thread is in a call on the channel: the try_lock.)
  if (not may_answer_in_process())
    return {};
  std::unique_lock lock(channel_mutex, std::try_to_lock);
  if (not lock.owns_lock())
    return {};
  return local_polls::answer(queues, wait, clock_settings, channel->local_steps);
}

namespace {

// Whether a call may be answered in the process now, as a local poll may
// (answer_poll_locally), but also while the clock waits for the end of a
// queued Put (the server times what is queued after it from the compute
// between the calls; the process reads no clock, and answers no poll, before
// its next reply). The caller then holds `lock`.
bool may_queue(std::unique_lock<std::mutex>& lock)
{
  if (not may_act_in_process())
    return false;
  lock = std::unique_lock(channel_mutex, std::try_to_lock);
  return lock.owns_lock();
}

// Leaves `call` (its op and arguments filled) in the channel after the calls
// already there, at the rank's clock, after the polls answered so far
// (ipc::QueuedCall); the clock moves on to `end_ns`, the call's end. False,
// with nothing changed, when the queue is full (or the count is not the one
// just read: only a stray write changes it meanwhile): the call goes to the
// server. (The server may have run the calls before it already: that
// changes nothing here.)
bool queue(const ipc::QueuedCall& call, const sim_clock::LocalStep& planned, int64_t end_ns)
{
  const uint32_t count = channel->queued_state.load(std::memory_order_seq_cst);
  if (count >= ipc::kMaxQueuedCalls)
    return false;
  ipc::QueuedCall& slot = channel->queued_calls[count];
  std::memcpy(&slot, &call, ipc::queued_call_bytes(call));
  slot.local_polls = local_polls::report_so_far();
  slot.steps_before = slot.local_polls.count;
  slot.compute_ns = planned.burst_cpu_ns;
  slot.compute_counted = planned.counted ? 1 : 0;
  uint32_t expected = count;
  if (not channel->queued_state.compare_exchange_strong(expected, count + 1, std::memory_order_seq_cst))
    return false;
  if (planned.counted)
    local_polls::note_truncated_compute();
  sim_clock::take_local_step(planned, end_ns);
  // Parked meanwhile: the server may have looked before the call was there.
  if (channel->parked.load(std::memory_order_seq_cst) != 0)
    sync_exchange();
  return true;
}

} // namespace

bool queue_put(ipc::PutArgs& args)
{
  std::unique_lock<std::mutex> lock;
  ipc::QueuedCall call{};
  if (not may_queue(lock))
    return false;
  // The clock is read before the payload is captured: that is the
  // emulator's work, not the program's compute.
  // A payload outside the memory copied in place is read with a system call
  // (process_vm_readv, 1.5 to 2 us here): the compute after this Put starts
  // from its end, or a ping-pong of 8 B to 416 B Puts from a buffer of 1 MiB
  // took 3.8 us per message in the default mode instead of 2.0.
  bool read_by_the_kernel = false;
  const sim_clock::LocalStep planned = sim_clock::plan_local_step();
  if (not planned.possible or not queued_puts::admit(args, call.put_payload, &read_by_the_kernel))
    return false;
  call.op = ipc::Op::Put;
  call.args.put = args;
  // The Put ends when its command is written (after its PIO payload). When
  // the latest reply's forecast covers it (and the clock is not waiting for
  // a Put before it), the process knows when, and its SEND event, or that it
  // comes later: it goes on answering polls (nic/put_forecast.cpp). Else only
  // the server knows: the clock is synced before it is read, and no poll is
  // answered here until the next reply.
  const int64_t margin = local_polls::rounding_margin_ns() + (planned.counted ? 1 : 0);
  const queued_puts::Forecast forecast =
      clock_pending.load(std::memory_order_relaxed)
          ? queued_puts::Forecast{}
          : queued_puts::forecast(args, put_forecast, planned.start_ns, margin);
  if (forecast.usable && local_polls::expects_own_put(forecast)) {
    call.forecast.used = 1;
    call.forecast.send_event = forecast.send_event ? 1 : 0;
    call.forecast.send_later = forecast.send_later ? 1 : 0;
    call.forecast.end = static_cast<double>(forecast.end_ns) * 1e-9; // (the server's seconds)
    call.forecast.send_landing = static_cast<double>(forecast.send_landing_ns) * 1e-9;
    call.forecast.event = forecast.event;
    call.forecast.rounding = static_cast<double>(margin) * 1e-9;
    if (not queue(call, planned, forecast.end_ns))
      return false;
    local_polls::expect_own_put(forecast);
    if (forecast.by_dma)
      put_forecast.until = 0; // (its DMA read may slow the next Put's writes)
    if (read_by_the_kernel)
      sim_clock::leave_out_own_work();
    return true;
  }
  if (not queue(call, planned, planned.start_ns))
    return false;
  clock_pending.store(true, std::memory_order_relaxed);
  if (read_by_the_kernel)
    sim_clock::leave_out_own_work();
  return true;
}

ipc::Handle queue_append(const ipc::AppendArgs& args)
{
  std::unique_lock<std::mutex> lock;
  if (not may_queue(lock))
    return ipc::kHandleInvalid;
  const sim_clock::LocalStep planned = sim_clock::plan_local_step();
  if (not planned.possible)
    return ipc::kHandleInvalid;
  queued_appends::AppendEvents events;
  const ipc::Handle entry = queued_appends::admit(args, &events);
  if (entry == ipc::kHandleInvalid)
    return entry;
  ipc::QueuedCall call{};
  call.op = ipc::Op::Append;
  call.entry = entry;
  call.args.append = args;
  // Its LINK event alone, as the server writes it (Api::append), expected
  // where the mirror can take it in.
  const int64_t link_landing = local_polls::own_event_landing(planned.start_ns);
  const bool link_expected =
      events.link_eq != ipc::kHandleInvalid && local_polls::expects_own_event(events.link_eq, link_landing);
  if (link_expected) {
    call.link_forecast.used = 1;
    call.link_forecast.landing = static_cast<double>(link_landing) * 1e-9; // (the server's seconds)
    call.link_forecast.rounding =
        static_cast<double>(local_polls::rounding_margin_ns() + (planned.counted ? 1 : 0)) * 1e-9;
    call.link_forecast.event.type = ipc::EventKind::Link;
    call.link_forecast.event.user_ptr = args.user_ptr;
    call.link_forecast.event.pt_index = args.pt_index;
  }
  // (Not queued: the permit is spent, and the server appends it with an
  // index of its own.)
  if (not queue(call, planned, planned.start_ns))
    return ipc::kHandleInvalid;
  // An append takes no simulated time: the clock stays final, and polls go
  // on being answered here (its events, if any, land from a PCIe write on).
  // It ends the poll streak, as any call but a poll.
  local_polls::end_streak();
  if (link_expected)
    local_polls::expect_own_event(events.link_eq, link_landing, call.link_forecast.event);
  else if (not events.none)
    local_polls::note_own_call(planned.start_ns);
  return entry;
}

bool queue_unlink(ipc::Handle entry)
{
  std::unique_lock<std::mutex> lock;
  if (not may_queue(lock))
    return false;
  const sim_clock::LocalStep planned = sim_clock::plan_local_step();
  if (not planned.possible or not queued_unlinks::admit(entry))
    return false;
  ipc::QueuedCall call{};
  call.op = ipc::Op::Unlink;
  call.args.unlink.handle = entry;
  // (Not queued: the server unlinks it, and the entry is forgotten all the same.)
  if (not queue(call, planned, planned.start_ns))
    return false;
  // An unlink takes no simulated time and makes the NIC write no event: the
  // clock stays final and polls go on being answered here. It ends the poll
  // streak, as any call but a poll.
  local_polls::end_streak();
  return true;
}

int claim_lane_for_new_thread()
{
  if (state() != State::Attached or channel == nullptr)
    return -1;
  ipc::Lane* lane = claim_lane(ipc::kLaneUnborn, 0);
  return lane == nullptr ? -1 : static_cast<int>(lane - channel->lanes);
}

void open_lane_of_new_thread(int index)
{
  if (index < 0 or state() != State::Attached)
    return;
  // At this thread's simulated time; the server lets the new thread run
  // until it calls or sleeps before the simulation goes on.
  ipc::Request request;
  request.op = ipc::Op::LaneOpen;
  request.args.handle.handle = static_cast<uint32_t>(index);
  ipc::Reply reply;
  call(request, reply);
}

void release_unborn_lane(int index)
{
  if (index < 0 or state() != State::Attached)
    return;
  // The server never heard of it: free again at once.
  lanes_open.fetch_sub(1, std::memory_order_relaxed);
  channel->lanes[index].state.store(ipc::kLaneFree, std::memory_order_release);
  channel->lanes[index].owner_tid.store(0, std::memory_order_release);
}

void adopt_lane(int index, int64_t born_ns)
{
  if (index < 0 or state() != State::Attached)
    return;
  ipc::Lane& lane = channel->lanes[index];
  lane.owner_tid.store(static_cast<int32_t>(syscall(SYS_gettid)), std::memory_order_release);
  take_as_own(lane, born_ns);
}

void note_thread_created()
{
  if (state() == State::Attached)
    channel->threads_created.store(1, std::memory_order_relaxed);
}

void abort_waits()
{
  if (state() != State::Attached or abortable_waiters.load(std::memory_order_seq_cst) == 0)
    return;
  channel->abort_generation.fetch_add(1, std::memory_order_seq_cst);
  // The server may be waiting for another rank, or idle: tell it now.
  send_notice(channel_rank | ipc::kNoticeAbortTag);
}

void resync_if_stale()
{
  if (channel == nullptr or in_exchange or state() != State::Attached)
    return;
  if (own_lane != nullptr) {
    // (A thread that never called reads its own clock as it is: a Sync would
    // wake its lane at a moment only real time decides.)
    if (own_lane->parked.load(std::memory_order_relaxed) == 0 or lane_calls == 0)
      return;
    const int saved_errno = errno;
    sync_exchange(own_lane);
    errno = saved_errno;
    return;
  }
  if (channel->parked.load(std::memory_order_relaxed) == 0 and not clock_pending.load(std::memory_order_relaxed))
    return;
  std::unique_lock lock(channel_mutex, std::try_to_lock);
  if (not lock.owns_lock())
    return;
  const int saved_errno = errno;
  sync_exchange();
  errno = saved_errno;
}

bool sync_from_signal_handler()
{
  if (in_exchange or state() != State::Attached)
    return false;
  if (own_lane != nullptr) {
    sync_exchange(own_lane);
    return true;
  }
  std::unique_lock lock(channel_mutex, std::try_to_lock);
  if (not lock.owns_lock()) // another thread is in a call: it syncs the rank
    return false;
  sync_exchange();
  return true;
}

bool runs_ahead_without_syncs()
{
  return state() == State::Attached and clock_settings.main_thread_runs_ahead != 0 and
         static_cast<pid_t>(syscall(SYS_gettid)) == main_tid and lanes_open.load(std::memory_order_relaxed) == 0 and
         channel->debugged == 0;
}

const ipc::HelloResult& identity()
{
  return hello_result;
}

const ipc::ClockConfig& clock_config()
{
  return clock_settings;
}

void explain_not_attached()
{
  if (explained.exchange(true))
    return;
  switch (state()) {
  case State::NotLaunched:
    say("libportals (s4bxi): not started by s4bxi-run; run the program with s4bxi-run\n");
    break;
  case State::NotTheRank:
    say("libportals (s4bxi): this process is not one of the rank processes that s4bxi-run started "
        "(it was forked by one, or only inherited its environment); only those can call Portals\n");
    break;
  case State::Exited:
    say("libportals (s4bxi): Portals was called after the process began to exit (from a destructor "
        "that runs after libportals's own); the emulator no longer serves this process\n");
    break;
  case State::Attached:
    break;
  }
}

} // namespace s4bxi::preload::client
