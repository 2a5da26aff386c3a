// PtlPut answered by the process itself, without a round trip.
//
// A Put returns nothing but whether its arguments were valid, and a BXI CPU
// writes a small payload into the command during the call (inline or PIO).
// When the process can tell that the server would accept the Put (it knows
// the MD, its NI, the NI's limits and the platform's NIDs) and the payload is
// small, it captures the payload, returns PTL_OK, and leaves the Put in its
// channel (ipc::QueuedCall) with the simulated time it was made. The server
// runs it with the process's next call (or when it parks the rank), at that
// time: the same simulated results, one round trip less.
//
// The process learns what it checks from its own calls: PtlNIInit (the limits
// granted; a logical NI starts with the job's map), PtlSetMap (the map the
// program set), PtlMDBind (the MD), PtlMDRelease and PtlNIFini (forgotten
// before they are sent). Whatever it does not know goes to the server, which
// says what is wrong: a map too large to record, an I/O vector MD, an MD
// bound before a release failed.
//
// Its tables have a lock of their own: threads bind and release MDs outside
// the channel mutex, under which admit() runs (rank_client.cpp).
#pragma once

#include "protocol.hpp"

#include <span>

namespace s4bxi::preload::queued_puts {

// What the server granted at attach: the NIDs and the largest payloads.
void on_hello(const ipc::HelloResult& hello);

// A PtlNIInit that succeeded.
void note_ni(ipc::Handle ni, uint32_t options, const ipc::NILimits& actual);
// Before a PtlSetMap: the NI's map is unknown until note_map.
void forget_map(ipc::Handle ni);
// A PtlSetMap that succeeded: `count` entries of `entry_size` bytes at
// `address`, each beginning with its NID (a ptl_process_t).
void note_map(ipc::Handle ni, uint64_t count, uint64_t address, size_t entry_size);
// Before a PtlNIFini: its MDs are forgotten too.
void forget_ni(ipc::Handle ni);
// A PtlMDBind that succeeded.
void note_md(ipc::Handle md, ipc::Handle ni, const ipc::MemoryDescriptor& descriptor);
// Before a PtlMDRelease.
void forget_md(ipc::Handle md);
// Before a PtlFini.
void forget_all();
// Where `offset` of a known MD is in memory (0: an MD not known here, or an
// offset past its end).
uint64_t md_address(ipc::Handle md, uint64_t offset);

// Whether the server would accept this Put, checked as it does
// (portals/api_data.cpp, Api::prepare), and its payload is small enough; if
// so, the payload is captured into `payload` (args.captured_length says so;
// `by_system_call`, when given, whether that took a system call). False: the
// server must decide.
bool admit(ipc::PutArgs& args, std::span<unsigned char, ipc::kMaxQueuedPutPayload> payload,
           bool* by_system_call = nullptr);

// How an admitted Put that starts at `start_ns` goes on, from the forecast of
// the latest reply (ipc::PutForecast, nic/put_forecast.cpp), when it covers
// it: a payload the CPU writes into the command (inline or PIO), a target on
// another node, an MD whose SEND adds to no counter, a start early enough (by
// `margin_ns`, the rounding between the process's clock and the server's).
// The process then knows its clock after the Put, and the SEND event its
// MD's queue gets as the message leaves (the one the server's NIC writes:
// initiator.cpp, deliver_send_event), or that it gets one later, with the
// message's acknowledgment, not before `send_landing_ns`.
struct Forecast {
  bool usable = false;
  int64_t end_ns = 0;
  bool send_event = false;
  bool send_later = false;
  ipc::Handle eq = ipc::kHandleInvalid; // where the SEND event goes
  int64_t send_landing_ns = 0;
  ipc::Event event{};
  int64_t own_events_ns = 0; // no other event of the Put lands here before
  bool by_dma = false;        // its payload read by DMA: no other Put is forecast until the reply
};
Forecast forecast(const ipc::PutArgs& args, const ipc::PutForecast& told, int64_t start_ns, int64_t margin_ns);

} // namespace s4bxi::preload::queued_puts
