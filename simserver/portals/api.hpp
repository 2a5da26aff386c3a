// The server side of every Portals call: argument checking with the error
// codes of the Portals 4.1 specification, object management, and the start of
// data movement on the node's NIC. Runs in the rank's proxy actor, so blocking
// calls (EQWait, CTWait, polls with a timeout) block in simulated time.
#pragma once

#include "../nic/message.hpp"
#include "../world.hpp"

#include <memory>
#include "protocol.hpp"

namespace s4bxi::portals {

class Api {
public:
  explicit Api(World& world) : world_(world) {}

  // Handles one request of `rank` and returns the reply (without `now`).
  ipc::Reply handle(RankPortals& rank, const ipc::Request& request);

  // Name of an operation, for logs and deadlock reports ("PtlEQWait").
  static const char* call_name(ipc::Op op);

private:
  ipc::Reply ni_init(RankPortals& rank, const ipc::NIInitArgs& args);
  ipc::Reply ni_fini(RankPortals& rank, ipc::Handle handle);
  ipc::Reply ni_status(RankPortals& rank, const ipc::NIStatusArgs& args);
  ipc::Reply get_id(RankPortals& rank, ipc::Handle handle, bool physical);
  ipc::Reply set_map(RankPortals& rank, const ipc::MapArgs& args);
  ipc::Reply get_map(RankPortals& rank, const ipc::MapArgs& args);
  ipc::Reply pt_alloc(RankPortals& rank, const ipc::PTAllocArgs& args);
  ipc::Reply pt_free(RankPortals& rank, const ipc::PTArgs& args);
  ipc::Reply pt_enable(RankPortals& rank, const ipc::PTArgs& args, bool enable);
  ipc::Reply md_bind(RankPortals& rank, const ipc::MDBindArgs& args);
  ipc::Reply md_release(RankPortals& rank, ipc::Handle handle);
  ipc::Reply append(RankPortals& rank, const ipc::AppendArgs& args);
  ipc::Reply unlink(RankPortals& rank, ipc::Handle handle);
  ipc::Reply eq_alloc(RankPortals& rank, const ipc::EQAllocArgs& args);
  ipc::Reply eq_free(RankPortals& rank, ipc::Handle handle);
  ipc::Reply eq_get(RankPortals& rank, ipc::Handle handle, bool wait);
  ipc::Reply eq_poll(RankPortals& rank, const ipc::PollArgs& args);
  ipc::Reply ct_alloc(RankPortals& rank, ipc::Handle ni);
  ipc::Reply ct_free(RankPortals& rank, ipc::Handle handle);
  ipc::Reply ct_get(RankPortals& rank, ipc::Handle handle);
  ipc::Reply ct_wait(RankPortals& rank, const ipc::CTWaitArgs& args);
  ipc::Reply ct_poll(RankPortals& rank, const ipc::PollArgs& args);
  ipc::Reply ct_update(RankPortals& rank, const ipc::CTUpdateArgs& args, bool increment);
  // What Put and Get have in common, as the program asked for it.
  struct Transfer {
    Operation op;
    ipc::Handle md;
    uint64_t local_offset;
    uint64_t length;
    ipc::ProcessId target; // rank (logical NI) or nid/pid
    uint32_t pt_index;
    uint64_t match_bits;
    uint64_t remote_offset;
    uint64_t user_ptr;
    uint64_t hdr_data;
    ipc::AckRequest ack_req;
  };
  // Checks the arguments (PTL_ARG_INVALID in `error` if wrong) and builds the
  // request message and the initiator's record of the operation.
  std::unique_ptr<nic::Message> prepare(RankPortals& rank, const Transfer& transfer, MemoryDescriptor*& md,
                                        ipc::Status& error);
  ipc::Reply put(RankPortals& rank, const ipc::PutArgs& args);
  ipc::Reply get(RankPortals& rank, const ipc::GetArgs& args);
  ipc::Reply sleep(RankPortals& rank, double seconds);
  // Reports the unexpected messages that a new priority entry matches (oldest
  // first; only one for a use-once entry). True if the entry is used up.
  bool report_unexpected(RankPortals& rank, NetworkInterface& ni, PortalTableEntry& pt, const ListEntry& entry);

  // Charges an empty poll; after many identical ones, blocks until `handle`'s
  // object changes (see DESIGN.md, "Polling").
  void charge_empty_poll(RankPortals& rank, ipc::Op op, ipc::Handle handle);

  World& world_;
  struct PollStreak {
    ipc::Op op = ipc::Op::Noop;
    ipc::Handle handle = ipc::kHandleInvalid;
    int count = 0;
  };
  std::vector<PollStreak> poll_streaks_; // per rank
};

} // namespace s4bxi::portals
