// Check of the attached path without the real server: plays s4bxi-simserver's
// part for one rank (segment, channel, replies) following a fixed script, and
// checks how the preload encodes each call. The rank side (attached_rank.c)
// checks what the program sees. Usage: fake_server RANK_PROGRAM LIBPORTALS
#include "segment.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace s4bxi::ipc;

namespace {

int failures = 0;

void check(bool ok, const std::string& what)
{
  if (not ok) {
    std::fprintf(stderr, "server FAILED: %s\n", what.c_str());
    ++failures;
  }
}

struct Step {
  Op op;
  // Checks the request and fills the reply (status, result); `now` is the
  // simulated time after the injected compute, to be advanced by sleeps.
  std::function<void(const Request&, Reply&, double& now)> handle;
};

} // namespace

int main(int argc, char** argv)
{
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RANK_PROGRAM LIBPORTALS\n", argv[0]);
    return 2;
  }
  // No MFD_CLOEXEC: the rank inherits the descriptor, as from the real server.
  int fd = memfd_create("s4bxi-fake", 0);
  const SegmentLayout layout{static_cast<std::size_t>(sysconf(_SC_PAGESIZE)), 1};
  std::size_t size = layout.size();
  if (fd < 0 or ftruncate(fd, static_cast<off_t>(size)) != 0)
    return 2;
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  format_segment(base, layout, ClockConfig{1.0, 0.0, 1'000'000'000LL * 1'000'000'000LL, 0, 0, 0, 0, 0, 0});
  auto* channel = reinterpret_cast<Channel*>(static_cast<char*>(base) + layout.channel_offset(0));

  pid_t rank = fork();
  if (rank == 0) {
    channel->owner_pid.store(getpid());
    setenv(kEnvShmFd, std::to_string(fd).c_str(), 1);
    setenv(kEnvRank, "0", 1);
    setenv(kEnvSize, "1", 1);
    setenv("LD_PRELOAD", argv[2], 1);
    execl(argv[1], argv[1], static_cast<char*>(nullptr));
    _exit(127);
  }

  std::vector<Step> script = {
      {Op::Hello,
       [&](const Request& rq, Reply& rp, double& now) {
         check(rq.args.hello.pid == rank, "Hello carries the rank's pid");
         check(rq.args.hello.protocol_version == kProtocolVersion, "Hello carries the protocol version");
         rp.result.hello = HelloResult{0, 1, 0, 0, 1000, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0};
         now = 1.0;
       }},
      {Op::Init, [](const Request&, Reply&, double& now) { now = 5.0; }},
      {Op::NIInit,
       [](const Request& rq, Reply& rp, double&) {
         const auto& a = rq.args.ni_init;
         check(a.iface == 0xFFFFFFFFU and a.requested_pid == 17, "NIInit iface and pid");
         check(a.options == option::kNIMatching, "NIInit options: matching, physical");
         check(a.has_desired == 1 and a.desired.max_entries == 123 and a.desired.max_msg_size == (1U << 20),
               "NIInit desired limits");
         rp.which = 42;
         rp.result.limits.max_eqs = 9;
         rp.result.limits.max_volatile_size = 77;
       }},
      {Op::MDBind,
       [](const Request& rq, Reply& rp, double&) {
         const auto& a = rq.args.md_bind;
         check(a.ni == 42 and a.md.start == 0x1000 and a.md.length == 64, "MDBind descriptor");
         check(a.md.options == (option::kMDEventCtAck | option::kIovec), "MDBind options by name");
         check(a.md.eq == kHandleNone and a.md.ct == kHandleNone, "MDBind none handles");
         rp.status = Status::ArgInvalid;
       }},
      {Op::EQGet,
       [](const Request& rq, Reply& rp, double&) {
         check(rq.args.handle.handle == kHandleNone, "EQGet handle");
         check(rq.compute_ns >= 40'000'000, "compute_ns carries the CPU burnt since the last reply");
         rp.status = Status::EqDropped;
         Event& e = rp.result.event;
         e.start = 0x2000;
         e.user_ptr = 0x3000;
         e.mlength = 8;
         e.initiator = ProcessId{3, 4};
         e.type = EventKind::PutOverflow;
         e.overflow_list = 1;
         e.ni_fail_type = FailKind::PermViolation;
       }},
      {Op::Sleep,
       [](const Request& rq, Reply&, double& now) {
         check(rq.args.sleep.seconds == 0.25, "usleep(250000) sleeps 0.25 s");
         now += rq.args.sleep.seconds;
       }},
      {Op::Sleep,
       [](const Request& rq, Reply&, double& now) {
         double end = now + rq.args.sleep.seconds;
         check(end > 19.999 and end < 20.001, "absolute sleep until 20 s (ends at " + std::to_string(end) + ")");
         now += rq.args.sleep.seconds;
       }},
      {Op::Hello, // the rank exec'd a new image: it attaches again
       [&](const Request& rq, Reply& rp, double&) {
         check(rq.args.hello.pid == rank, "the exec'd image says hello with the rank's pid");
         rp.result.hello = HelloResult{0, 1, 0, 0, 1000, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0};
       }},
      {Op::Fini, [](const Request&, Reply&, double&) {}},
      {Op::Exit, [](const Request&, Reply&, double&) {}},
  };

  double now = 0.0;
  uint32_t seen = 0;
  SpinBudget budget;
  for (const Step& step : script) {
    timespec timeout{10, 0};
    if (not wait_for_ring(channel->request_bell, seen, budget, &timeout)) {
      check(false, "the rank stopped calling (timeout)");
      kill(rank, SIGKILL);
      break;
    }
    seen = channel->request_bell.current();
    Request request = channel->request;
    check(request.op == step.op, "request " + std::to_string(static_cast<int>(request.op)) + " where " +
                                     std::to_string(static_cast<int>(step.op)) + " was expected");
    Reply reply;
    if (request.op != Op::Hello) // loading a program is not its compute
      now += static_cast<double>(request.compute_ns) * 1e-9; // cpu factor 1
    if (request.op == step.op)
      step.handle(request, reply, now);
    reply.now = now;
    channel->reply = reply;
    channel->reply_bell.ring();
  }

  int status = 0;
  waitpid(rank, &status, 0);
  check(WIFEXITED(status) and WEXITSTATUS(status) == 0, "the rank program exits with 0");
  check(channel->request_bell.current() == seen, "nothing is sent after Exit (not even by the forked child)");
  check(channel->request_bell.current() == script.size(), "every call of the script was made, in order");
  if (failures == 0)
    std::printf("fake_server: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
