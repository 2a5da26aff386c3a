#include "rank_watcher.hpp"

#include <stdexcept>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::job {

namespace {

constexpr uint32_t kStop = UINT32_MAX;
constexpr uint32_t kCrash = UINT32_MAX - 1;
// In an epoll tag: the rank's process ended (else: its PMI socket has data).
constexpr uint32_t kExitTag = 0x80000000U;

int pidfd_of(pid_t pid)
{
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

} // namespace

RankWatcher::RankWatcher(std::vector<int> pmi_sockets, const std::vector<pid_t>& pids,
                         std::vector<ipc::Channel*> channels, int crash_pipe, CrashReports& crashes,
                         std::function<void()> on_notice)
    : sockets_(std::move(pmi_sockets)), channels_(std::move(channels)), pids_(pids), crash_pipe_(crash_pipe),
      crashes_(crashes), on_notice_(std::move(on_notice))
{
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (epoll_fd_ < 0 || stop_fd_ < 0)
    throw std::runtime_error("cannot create the rank watcher's descriptors");
  epoll_event stop{};
  stop.events = EPOLLIN;
  stop.data.u32 = kStop;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &stop);
  epoll_event crash{};
  crash.events = EPOLLIN;
  crash.data.u32 = kCrash;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, crash_pipe_, &crash);
  for (unsigned rank = 0; rank < sockets_.size(); ++rank)
    rearm_pmi(rank);
  // A pidfd is readable once its process has ended (it can then be reaped).
  // One-shot: it stays readable, and an end is told once.
  for (unsigned rank = 0; rank < pids.size(); ++rank) {
    pidfds_.push_back(pidfd_of(pids[rank]));
    if (pidfds_.back() < 0)
      continue; // the proxy's liveness check still notices the end
    epoll_event event{};
    event.events = EPOLLIN | EPOLLONESHOT;
    event.data.u32 = rank | kExitTag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, pidfds_.back(), &event);
  }
  thread_ = std::thread([this] { run(); });
}

RankWatcher::~RankWatcher()
{
  uint64_t one = 1;
  [[maybe_unused]] auto written = write(stop_fd_, &one, sizeof one);
  if (thread_.joinable())
    thread_.join();
  for (int fd : pidfds_)
    if (fd >= 0)
      close(fd);
  close(stop_fd_);
  close(epoll_fd_);
}

void RankWatcher::rearm_pmi(unsigned rank)
{
  // One-shot: after a notification the socket stays quiet until the proxy
  // has consumed the data and re-arms it.
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  event.data.u32 = rank;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, sockets_[rank], &event) != 0)
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, sockets_[rank], &event);
}

void RankWatcher::run()
{
  epoll_event events[16];
  while (true) {
    int count = epoll_wait(epoll_fd_, events, 16, -1);
    for (int i = 0; i < count; ++i) {
      const uint32_t tag = events[i].data.u32;
      if (tag == kStop)
        return;
      if (tag == kCrash) {
        read_crashes();
        continue;
      }
      const uint32_t rank = tag & ~kExitTag;
      ipc::wake_without_ringing(channels_[rank]->request_bell, channels_[rank]->attention,
                                (tag & kExitTag) != 0 ? ipc::kAttentionEnded : ipc::kAttentionPmi);
      if ((tag & kExitTag) != 0)
        wake_lanes(*channels_[rank], ipc::kAttentionEnded);
      // A parked rank's proxy waits in the simulation, not on the doorbell:
      // its end and its PMI commands must reach it there. (Sequentially
      // consistent, as the proxy's store of `parked` and its look at
      // `attention`: either it sees the flag before it parks, or this sees
      // `parked`.)
      if (channels_[rank]->parked.load(std::memory_order_seq_cst) != 0)
        notify_simulation();
    }
  }
}

void RankWatcher::read_crashes()
{
  uint32_t notice = 0;
  // Each crashed rank wrote its number; a PtlAbort or a parked rank's call,
  // its number with a kNotice*Tag (4 bytes: atomic in a pipe).
  while (read(crash_pipe_, &notice, sizeof notice) == static_cast<ssize_t>(sizeof notice)) {
    if ((notice & (ipc::kNoticeAbortTag | ipc::kNoticeCallTag | ipc::kNoticeLaneTag)) != 0) {
      notify_simulation();
    } else if (notice < channels_.size()) {
      crashes_.read(notice, pids_[notice], *channels_[notice]);
    }
    pollfd more{crash_pipe_, POLLIN, 0};
    if (poll(&more, 1, 0) != 1)
      break;
  }
}

void RankWatcher::notify_simulation()
{
  on_notice_();
  // The simulation may wait on any rank's doorbell (or be idle, held by the
  // outside holder, which looks by itself): wake every proxy.
  for (auto* channel : channels_) {
    ipc::wake_without_ringing(channel->request_bell, channel->attention, ipc::kAttentionNotice);
    wake_lanes(*channel, ipc::kAttentionNotice);
  }
}

void RankWatcher::wake_lanes(ipc::Channel& channel, uint32_t bits)
{
  // The proxies of the rank's threads wait on their lanes' doorbells.
  for (auto& lane : channel.lanes)
    if (lane.state.load(std::memory_order_acquire) == ipc::kLaneOpen)
      ipc::wake_without_ringing(lane.request_bell, lane.attention, bits);
}

} // namespace s4bxi::job
