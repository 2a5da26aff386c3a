#include "rank_memory.hpp"

#include "copy_helper.hpp"
#include "staged_writes.hpp"

#include <algorithm>
#include <sys/uio.h>

namespace s4bxi::job {
namespace {

// A copy this large is shared with the copy helper (copy_helper.hpp), in
// pieces cut where two threads do not get in each other's way. The kernel
// pins each page it copies: two threads that pin the same huge page slow each
// other down (4 MiB in 1 MiB pieces took 125-175 us, 2 MiB pieces 83 us, one
// thread alone 161 us), pages of 4 KiB do not (1 MiB in two halves: 58 us,
// alone 100 us). A rank has the buffers of 2 MiB or more that it communicates
// with in huge pages (preload/huge_pages.hpp), never smaller ones, and of a
// buffer of 2 to 3 MiB maybe only the one stretch of 2 MiB it covers most of.
// So a copy of 3 MiB or more is cut at the rank's 2 MiB boundaries (two
// pieces of 1.5 MiB or more at least), a smaller one in two halves, which
// two threads still copy sooner than one when they share a huge page.
constexpr size_t kSplitFromBytes = size_t{512} << 10;
constexpr size_t kHugePagesFromBytes = size_t{3} << 20;
constexpr uint64_t kHugePageBytes = uint64_t{2} << 20;
constexpr uint64_t kPageBytes = 4096;

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

template <class Transfer> bool transfer(Transfer move, char* local, uint64_t remote, size_t bytes)
{
  if (bytes < kSplitFromBytes)
    return transfer_all(move, local, remote, bytes);
  const uint64_t last_end = remote + bytes;
  // The pieces: the first ends at `first_end`, the others are `step` long.
  uint64_t first_end = 0, step = 0;
  if (bytes >= kHugePagesFromBytes) {
    step = kHugePageBytes;
    first_end = (remote / step + 1) * step;
  } else {
    step = bytes; // two halves (the second may be a page shorter)
    first_end = (remote + bytes / 2 + kPageBytes - 1) / kPageBytes * kPageBytes;
  }
  const size_t pieces = last_end <= first_end ? 1 : 1 + (last_end - first_end + step - 1) / step;
  return run_pieces_with_helper(pieces, [&](size_t index) {
    const uint64_t start = index == 0 ? remote : first_end + (index - 1) * step;
    const uint64_t end = std::min<uint64_t>(last_end, first_end + index * step);
    return transfer_all(move, local + (start - remote), start, end - start);
  });
}

} // namespace

bool read_rank_memory(pid_t pid, uint64_t address, void* destination, size_t bytes)
{
  flush_staged_writes_of(pid); // (what was written before comes first)
  return transfer([pid](iovec* local, iovec* remote) { return process_vm_readv(pid, local, 1, remote, 1, 0); },
                  static_cast<char*>(destination), address, bytes);
}

bool write_rank_memory(pid_t pid, uint64_t address, const void* source, size_t bytes)
{
  flush_staged_writes_of(pid);
  return transfer([pid](iovec* local, iovec* remote) { return process_vm_writev(pid, local, 1, remote, 1, 0); },
                  const_cast<char*>(static_cast<const char*>(source)), address, bytes);
}

} // namespace s4bxi::job
