#include "pmi_watcher.hpp"

#include <stdexcept>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace s4bxi::pmi {

namespace {
constexpr uint32_t kStop = UINT32_MAX;
}

Watcher::Watcher(std::vector<int> sockets, std::vector<ipc::Channel*> channels)
    : sockets_(std::move(sockets)), channels_(std::move(channels))
{
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (epoll_fd_ < 0 || stop_fd_ < 0)
    throw std::runtime_error("cannot create the PMI watcher's descriptors");
  epoll_event stop{};
  stop.events = EPOLLIN;
  stop.data.u32 = kStop;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &stop);
  for (unsigned rank = 0; rank < sockets_.size(); ++rank) {
    // One-shot: after a notification the socket stays quiet until the proxy
    // has consumed the data and re-arms it.
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    event.data.u32 = rank;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, sockets_[rank], &event);
  }
  thread_ = std::thread([this] { run(); });
}

Watcher::~Watcher()
{
  uint64_t one = 1;
  [[maybe_unused]] auto written = write(stop_fd_, &one, sizeof one);
  if (thread_.joinable())
    thread_.join();
  close(stop_fd_);
  close(epoll_fd_);
}

void Watcher::rearm(unsigned rank)
{
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  event.data.u32 = rank;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, sockets_[rank], &event);
}

void Watcher::run()
{
  epoll_event events[16];
  while (true) {
    int count = epoll_wait(epoll_fd_, events, 16, -1);
    for (int i = 0; i < count; ++i) {
      uint32_t rank = events[i].data.u32;
      if (rank == kStop)
        return;
      ipc::wake_without_ringing(channels_[rank]->request_bell, channels_[rank]->pmi_pending);
    }
  }
}

} // namespace s4bxi::pmi
