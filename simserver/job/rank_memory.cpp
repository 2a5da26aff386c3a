#include "rank_memory.hpp"

#include <sys/uio.h>

namespace s4bxi::job {
namespace {

// process_vm_* may transfer less than asked (at most IOV_MAX pages' worth in
// one go on some kernels): loop until done or until the kernel refuses.
template <class Transfer> bool transfer_all(Transfer transfer, char* local, uint64_t remote, size_t bytes)
{
  size_t done = 0;
  while (done < bytes) {
    iovec local_iov{local + done, bytes - done};
    iovec remote_iov{reinterpret_cast<void*>(remote + done), bytes - done};
    ssize_t moved = transfer(&local_iov, &remote_iov);
    if (moved <= 0)
      return false;
    done += static_cast<size_t>(moved);
  }
  return true;
}

} // namespace

bool read_rank_memory(pid_t pid, uint64_t address, void* destination, size_t bytes)
{
  return transfer_all([pid](iovec* local, iovec* remote) { return process_vm_readv(pid, local, 1, remote, 1, 0); },
                      static_cast<char*>(destination), address, bytes);
}

bool write_rank_memory(pid_t pid, uint64_t address, const void* source, size_t bytes)
{
  return transfer_all([pid](iovec* local, iovec* remote) { return process_vm_writev(pid, local, 1, remote, 1, 0); },
                      const_cast<char*>(static_cast<const char*>(source)), address, bytes);
}

} // namespace s4bxi::job
