#include "queued_puts.hpp"

#include "own_memory.hpp"
#include "sim_clock.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <sys/uio.h>

namespace s4bxi::preload::queued_puts {
namespace {

// (Fixed-size state only, with nothing to destroy: the process's last call
// may come from a destructor that runs after this file's statics are gone.)
struct KnownNi {
  ipc::Handle handle = ipc::kHandleInvalid;
  bool matching = false;
  uint64_t max_msg_size = 0;
  uint32_t max_pt_index = 0;
  // A logical NI's map: the job's, which the server installs (entry r: the
  // job's rank r, on a node that exists), one the program set with
  // PtlSetMap (its NIDs in recorded_nids), or one too large to record.
  bool logical = false;
  enum class Map : uint8_t { Job, Recorded, Unknown } map = Map::Job;
  uint32_t map_size = 0;
};
struct KnownMd {
  ipc::Handle handle = ipc::kHandleInvalid;
  ipc::Handle ni = ipc::kHandleInvalid;
  uint64_t start = 0;
  uint64_t length = 0;
  bool unreliable = false;
  uint32_t options = 0; // PTL_MD_* (ipc::option bits)
  ipc::Handle eq = ipc::kHandleNone;
};

// Programs bind a few MDs (Open MPI: one or two over all of memory); beyond
// these, Puts go to the server.
constexpr unsigned kKnownNis = 4;
constexpr unsigned kKnownMds = 16;
// The NIDs of a map a program sets (SOS: one entry per PE); a larger one
// sends the NI's Puts to the server. (Pages of it are touched only as far
// as a map fills them.)
constexpr unsigned kRecordedMapEntries = 16384;
std::mutex tables_mutex; // (trivially destructible in libstdc++)
KnownNi nis[kKnownNis];
KnownMd mds[kKnownMds];
uint32_t recorded_nids[kKnownNis][kRecordedMapEntries];

bool enabled = false;
uint32_t own_rank = 0;
uint32_t job_size = 0;
uint32_t own_nid = 0;
uint32_t first_nid = 0;
uint32_t node_count = 0;
uint32_t limit_matching = 0;
uint32_t limit_plain = 0;
bool dma_puts = false;
uint32_t dma_above_matching = 0;
uint32_t dma_above_plain = 0;

KnownNi* find_ni(ipc::Handle handle)
{
  for (KnownNi& ni : nis)
    if (ni.handle == handle)
      return &ni;
  return nullptr;
}

// Where a Put to `target` goes, as the server finds it (portals/api_data.cpp,
// Api::prepare): the target's node exists, and whether it is this process's.
struct Destination {
  bool known = false; // the process can tell; else the server must
  bool valid = false;
  bool own_node = false;
};
Destination destination(const KnownNi& ni, uint32_t target)
{
  auto on_node = [](uint32_t nid) {
    return Destination{true, nid >= first_nid && nid - first_nid < node_count, nid == own_nid};
  };
  if (not ni.logical)
    return on_node(target);
  if (target >= ni.map_size)
    return {true, false, false};
  switch (ni.map) {
    case KnownNi::Map::Job:
      // (Own node: a forecast comes only to a rank alone on its node.)
      return {true, true, target == own_rank};
    case KnownNi::Map::Recorded:
      return on_node(recorded_nids[&ni - nis][target]);
    case KnownNi::Map::Unknown:
      break;
  }
  return {};
}

// The payload as the CPU would write it now; false where the program's
// memory cannot be read (the server then answers PTL_ARG_INVALID, and the
// process must not fault on the program's bad address either).
bool capture(uint64_t address, const ipc::PutArgs& args, unsigned char* payload, bool* by_system_call)
{
  if (args.length == 0)
    return true;
  const iovec local{payload, args.length};
  const iovec remote{reinterpret_cast<void*>(address), args.length};
  return own_memory::read(&local, &remote, 1, args.length, by_system_call);
}

void forget_md_locked(ipc::Handle handle)
{
  for (KnownMd& md : mds)
    if (md.handle == handle)
      md = KnownMd{};
}

} // namespace

void on_hello(const ipc::HelloResult& hello)
{
  enabled = hello.queued_puts != 0;
  own_rank = hello.rank;
  job_size = hello.size;
  own_nid = hello.nid;
  first_nid = hello.first_nid;
  node_count = hello.node_count;
  limit_matching = hello.queued_put_limit_matching;
  limit_plain = hello.queued_put_limit_plain;
  dma_puts = hello.queued_dma_puts != 0;
  dma_above_matching = hello.queued_dma_above_matching;
  dma_above_plain = hello.queued_dma_above_plain;
}

void note_ni(ipc::Handle handle, uint32_t options, const ipc::NILimits& actual)
{
  std::lock_guard lock(tables_mutex);
  // (The same NI initialized again keeps its state, its map included.)
  if (actual.max_pt_index < 0 || find_ni(handle) != nullptr)
    return;
  const bool logical = (options & ipc::option::kNILogical) != 0;
  for (KnownNi& ni : nis)
    if (ni.handle == ipc::kHandleInvalid) {
      ni = {handle, (options & ipc::option::kNIMatching) != 0, actual.max_msg_size,
            static_cast<uint32_t>(actual.max_pt_index), logical, KnownNi::Map::Job, logical ? job_size : 0};
      return;
    }
}

void forget_map(ipc::Handle handle)
{
  std::lock_guard lock(tables_mutex);
  if (KnownNi* ni = find_ni(handle); ni != nullptr && ni->logical)
    ni->map = KnownNi::Map::Unknown;
}

void note_map(ipc::Handle handle, uint64_t count, uint64_t address, size_t entry_size)
{
  std::lock_guard lock(tables_mutex);
  KnownNi* ni = find_ni(handle);
  if (ni == nullptr || not ni->logical)
    return;
  ni->map = KnownNi::Map::Unknown;
  if (count > kRecordedMapEntries || entry_size < 8)
    return;
  // Each entry begins with its NID, as the server reads it (api_ni.cpp,
  // Api::set_map); read as the server did, so that an array the program
  // unmapped since cannot fault here.
  uint32_t* nids = recorded_nids[ni - nis];
  unsigned char chunk[4096];
  const uint64_t per_chunk = sizeof chunk / entry_size;
  for (uint64_t first = 0; first < count; first += per_chunk) {
    const uint64_t entries = std::min(per_chunk, count - first);
    const iovec local{chunk, entries * entry_size};
    const iovec remote{reinterpret_cast<void*>(address + first * entry_size), entries * entry_size};
    if (not own_memory::read(&local, &remote, 1, entries * entry_size))
      return;
    for (uint64_t i = 0; i < entries; ++i)
      std::memcpy(&nids[first + i], chunk + i * entry_size, 4);
  }
  ni->map = KnownNi::Map::Recorded;
  ni->map_size = static_cast<uint32_t>(count);
}

void forget_ni(ipc::Handle handle)
{
  std::lock_guard lock(tables_mutex);
  for (KnownNi& ni : nis)
    if (ni.handle == handle)
      ni = KnownNi{};
  for (KnownMd& md : mds)
    if (md.ni == handle)
      md = KnownMd{};
}

void note_md(ipc::Handle handle, ipc::Handle ni, const ipc::MemoryDescriptor& descriptor)
{
  std::lock_guard lock(tables_mutex);
  // An I/O vector MD is the server's to walk.
  if (find_ni(ni) == nullptr || (descriptor.options & ipc::option::kIovec) != 0)
    return;
  forget_md_locked(handle); // a handle the server gives again names the new MD
  for (KnownMd& md : mds)
    if (md.handle == ipc::kHandleInvalid) {
      md = {handle,
            ni,
            descriptor.start,
            descriptor.length,
            (descriptor.options & ipc::option::kMDUnreliable) != 0,
            descriptor.options,
            descriptor.eq};
      return;
    }
}


uint64_t md_address(ipc::Handle handle, uint64_t offset)
{
  std::lock_guard lock(tables_mutex);
  for (const KnownMd& md : mds)
    if (md.handle == handle && handle != ipc::kHandleInvalid)
      return offset < md.length ? md.start + offset : 0;
  return 0;
}

void forget_md(ipc::Handle handle)
{
  std::lock_guard lock(tables_mutex);
  forget_md_locked(handle);
}

void forget_all()
{
  std::lock_guard lock(tables_mutex);
  std::fill(std::begin(nis), std::end(nis), KnownNi{});
  std::fill(std::begin(mds), std::end(mds), KnownMd{});
}

bool admit(ipc::PutArgs& args, std::span<unsigned char, ipc::kMaxQueuedPutPayload> payload, bool* by_system_call)
{
  if (by_system_call != nullptr)
    *by_system_call = false;
  std::lock_guard lock(tables_mutex);
  if (not enabled || args.md == ipc::kHandleInvalid || args.md == ipc::kHandleNone)
    return false;
  const KnownMd* md = std::find_if(std::begin(mds), std::end(mds),
                                   [&args](const KnownMd& known) { return known.handle == args.md; });
  if (md == std::end(mds))
    return false;
  const KnownNi* ni = find_ni(md->ni);
  if (ni == nullptr)
    return false;
  // Api::prepare's checks, in its order.
  if (args.local_offset > md->length || args.length > md->length - args.local_offset ||
      args.length > ni->max_msg_size || args.pt_index > ni->max_pt_index)
    return false;
  if (args.ack_req != ipc::AckRequest::None && args.ack_req != ipc::AckRequest::Ack &&
      args.ack_req != ipc::AckRequest::CtAck && args.ack_req != ipc::AckRequest::OcAck)
    return false;
  if (md->unreliable && args.ack_req != ipc::AckRequest::None)
    return false;
  if (const Destination to = destination(*ni, args.target.rank_or_nid); not to.known || not to.valid)
    return false;
  // A payload the NIC reads by DMA when it has the command: nothing to
  // capture (the server reads it then, as for a Put it was sent).
  if (dma_puts && args.length > (ni->matching ? dma_above_matching : dma_above_plain)) {
    args.captured_length = 0;
    return true;
  }
  // Else only a payload the CPU writes into the command during the call.
  if (args.length > (ni->matching ? limit_matching : limit_plain) || args.length > payload.size())
    return false;
  if (not capture(md->start + args.local_offset, args, payload.data(), by_system_call))
    return false;
  args.captured_length = static_cast<uint32_t>(args.length);
  return true;
}

Forecast forecast(const ipc::PutArgs& args, const ipc::PutForecast& told, int64_t start_ns, int64_t margin_ns)
{
  using sim_clock::to_ns;
  Forecast forecast;
  if (told.until <= 0 || start_ns + margin_ns >= to_ns(told.until))
    return forecast;
  std::lock_guard lock(tables_mutex);
  const KnownMd* md = std::find_if(std::begin(mds), std::end(mds),
                                   [&args](const KnownMd& known) { return known.handle == args.md; });
  if (md == std::end(mds))
    return forecast;
  const KnownNi* ni = find_ni(md->ni);
  if (ni == nullptr)
    return forecast;
  // (A target on its own node: the message crosses no wire.)
  // (Beyond the PIO limit, the NIC reads the payload by DMA.)
  const bool by_dma = args.length > (ni->matching ? told.max_length_matching : told.max_length_plain);
  if (const Destination to = destination(*ni, args.target.rank_or_nid); not to.known || to.own_node ||
      (by_dma && told.dma_payloads == 0) || (md->options & ipc::option::kMDEventCtSend) != 0)
    return forecast;
  // What the command does not carry inline, the CPU writes by PIO first: a
  // PCIe write alone on its route (api_data.cpp, Api::issue).
  const uint64_t inline_limit = ni->matching ? told.inline_matching : told.inline_plain;
  double pio_s = 0;
  if (not by_dma && args.length > inline_limit && told.pio_Bps > 0)
    pio_s = told.pio_latency_s + static_cast<double>(args.length - inline_limit) / told.pio_Bps;
  if (start_ns + to_ns(pio_s) + margin_ns >= to_ns(told.until))
    return forecast;
  forecast.usable = true;
  forecast.end_ns = start_ns + to_ns(pio_s + told.command_s);
  forecast.own_events_ns = forecast.end_ns + to_ns(told.own_events_s);
  // The NIC posts SEND unless the MD disables it (or successes), and it has
  // a queue to post it in (ipc::Event as initiator.cpp fills it): as the
  // message leaves when the NIC keeps its payload (or sends it without E2E),
  // else with its acknowledgment, later than anything this process answers.
  const bool posted = (md->options & ipc::option::kMDEventSendDisable) == 0 &&
                      (md->options & ipc::option::kMDEventSuccessDisable) == 0 && md->eq != ipc::kHandleNone &&
                      md->eq != ipc::kHandleInvalid;
  const bool at_tx = args.length <= told.send_at_tx_max || md->unreliable;
  if (by_dma && at_tx)
    return Forecast{}; // (its SEND would come after the DMA read)
  forecast.by_dma = by_dma;
  forecast.send_event = posted && at_tx;
  if (posted && not at_tx) {
    forecast.send_later = true;
    forecast.send_landing_ns = forecast.end_ns + to_ns(told.late_send_s);
    forecast.own_events_ns = std::min(forecast.own_events_ns, forecast.send_landing_ns);
  }
  if (forecast.send_event) {
    forecast.eq = md->eq;
    forecast.send_landing_ns = forecast.end_ns + to_ns(told.send_landing_s);
    forecast.event.type = ipc::EventKind::Send;
    forecast.event.user_ptr = args.user_ptr;
    forecast.event.match_bits = args.match_bits;
    forecast.event.pt_index = args.pt_index;
    forecast.event.ni_fail_type = ipc::FailKind::Ok;
    forecast.event.mlength = args.length;
    forecast.event.rlength = args.length;
  }
  return forecast;
}

} // namespace s4bxi::preload::queued_puts
