// The PtlPut checks a process makes itself (preload/queued_puts.hpp): it
// queues a Put only when the server would accept it, with the payload
// captured from the MD at the call; anything it cannot tell goes to the
// server.
#include "queued_puts.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <sys/mman.h>

namespace s4bxi::preload {
namespace {

constexpr ipc::Handle kNi = 0x28000000;
constexpr ipc::Handle kLogicalNi = 0x2a000000;
constexpr ipc::Handle kMd = 0x88000001;
constexpr ipc::Handle kIovecMd = 0x88000002;

class QueuedPuts : public ::testing::Test {
protected:
  unsigned char buffer[128]{};
  unsigned char payload[ipc::kMaxQueuedPutPayload]{}; // where a queued call keeps it

  bool admit(ipc::PutArgs& args) { return queued_puts::admit(args, payload); }

  // What the server grants at attach: Puts queued, to NIDs 1 to 4, payloads
  // of 8 B (matching) and 16 B captured.
  static ipc::HelloResult hello()
  {
    ipc::HelloResult granted{};
    granted.queued_puts = 1;
    granted.first_nid = 1;
    granted.node_count = 4;
    granted.queued_put_limit_matching = 8;
    granted.queued_put_limit_plain = 16;
    return granted;
  }

  void SetUp() override
  {
    queued_puts::forget_all();
    queued_puts::on_hello(hello());
    ipc::NILimits limits{};
    limits.max_msg_size = 1 << 20;
    limits.max_pt_index = 63;
    queued_puts::note_ni(kNi, ipc::option::kNIMatching, limits);
    queued_puts::note_md(kMd, kNi, descriptor(0));
    for (unsigned i = 0; i < sizeof buffer; ++i)
      buffer[i] = static_cast<unsigned char>(i);
  }

  ipc::MemoryDescriptor descriptor(uint32_t options)
  {
    ipc::MemoryDescriptor md{};
    md.start = reinterpret_cast<uint64_t>(buffer);
    md.length = sizeof buffer;
    md.options = options;
    return md;
  }

  // A Put of `length` bytes at `offset` of the MD to the second node.
  ipc::PutArgs put(uint64_t offset, uint64_t length, ipc::Handle md = kMd)
  {
    ipc::PutArgs args{};
    args.md = md;
    args.local_offset = offset;
    args.length = length;
    args.ack_req = ipc::AckRequest::Ack;
    args.target = {2, 0};
    args.pt_index = 4;
    return args;
  }
};

TEST_F(QueuedPuts, ValidSmallPutIsQueuedWithItsPayload)
{
  ipc::PutArgs args = put(10, 8);
  ASSERT_TRUE(admit(args));
  EXPECT_EQ(args.captured_length, 8u);
  EXPECT_EQ(std::memcmp(payload, buffer + 10, 8), 0);
  ipc::PutArgs empty = put(0, 0);
  EXPECT_TRUE(admit(empty));
  EXPECT_EQ(empty.captured_length, 0u);
}

// Each of the server's checks (portals/api_data.cpp, Api::prepare) that the
// Put would fail, and a payload the CPU does not write into the command:
// the server decides.
TEST_F(QueuedPuts, WhatTheServerWouldRefuseOrTheProcessCannotTellGoesToTheServer)
{
  auto admitted = [this](ipc::PutArgs args) { return admit(args); };
  EXPECT_FALSE(admitted(put(0, 8, 0x88000009)));        // an MD it never bound
  EXPECT_FALSE(admitted(put(0, 8, ipc::kHandleNone)));
  EXPECT_FALSE(admitted(put(125, 8)));                  // beyond the MD
  EXPECT_FALSE(admitted(put(200, 0)));
  EXPECT_FALSE(admitted(put(0, 9)));                    // more than the command carries (with match bits)
  ipc::PutArgs far = put(0, 8);
  far.target = {5, 0}; // nids 1 to 4
  EXPECT_FALSE(admitted(far));
  ipc::PutArgs zero = put(0, 8);
  zero.target = {0, 0};
  EXPECT_FALSE(admitted(zero));
  ipc::PutArgs pt = put(0, 8);
  pt.pt_index = 64;
  EXPECT_FALSE(admitted(pt));
  ipc::PutArgs ack = put(0, 8);
  ack.ack_req = static_cast<ipc::AckRequest>(7);
  EXPECT_FALSE(admitted(ack));
}

TEST_F(QueuedPuts, UnreliableMdOnlyWithoutAcknowledgment)
{
  queued_puts::note_md(kMd, kNi, descriptor(ipc::option::kMDUnreliable));
  ipc::PutArgs acked = put(0, 8);
  EXPECT_FALSE(admit(acked));
  ipc::PutArgs plain = put(0, 8);
  plain.ack_req = ipc::AckRequest::None;
  EXPECT_TRUE(admit(plain));
}

// Objects it learns no more about go to the server: a logical NI (its map
// may be the program's), an I/O vector MD, a released MD, a finalized NI.
TEST_F(QueuedPuts, ForgottenOrUnknowableObjectsGoToTheServer)
{
  ipc::NILimits limits{};
  limits.max_msg_size = 1 << 20;
  limits.max_pt_index = 63;
  queued_puts::note_ni(kLogicalNi, ipc::option::kNIMatching | ipc::option::kNILogical, limits);
  queued_puts::note_md(0x8a000001, kLogicalNi, descriptor(0));
  ipc::PutArgs logical = put(0, 8, 0x8a000001);
  EXPECT_FALSE(admit(logical));
  queued_puts::note_md(kIovecMd, kNi, descriptor(ipc::option::kIovec));
  ipc::PutArgs iovec = put(0, 8, kIovecMd);
  EXPECT_FALSE(admit(iovec));
  queued_puts::forget_md(kMd);
  ipc::PutArgs released = put(0, 8);
  EXPECT_FALSE(admit(released));
  queued_puts::note_md(kMd, kNi, descriptor(0));
  queued_puts::forget_ni(kNi);
  ipc::PutArgs finalized = put(0, 8);
  EXPECT_FALSE(admit(finalized));
}

// Memory the process cannot read: the server answers PTL_ARG_INVALID, and
// the check must not fault on the program's bad address.
TEST_F(QueuedPuts, UnreadablePayloadGoesToTheServer)
{
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  ipc::MemoryDescriptor md{};
  md.start = reinterpret_cast<uint64_t>(page);
  md.length = 4096;
  queued_puts::note_md(kMd, kNi, md);
  ipc::PutArgs args = put(0, 8);
  EXPECT_FALSE(admit(args));
  munmap(page, 4096);
}

// The forecast of a reply (nic/put_forecast.cpp), as a default BXI node
// gives it: what the process takes for the Put's end and its SEND event.
ipc::PutForecast told_at(double until)
{
  ipc::PutForecast told{};
  told.until = until;
  told.command_s = 255e-9;
  told.pio_latency_s = 250e-9;
  told.pio_Bps = 12.5e9;
  told.send_landing_s = 264e-9;
  told.late_send_s = 464e-9;
  told.own_events_s = 494e-9;
  told.max_length_matching = 408;
  told.max_length_plain = 416;
  told.inline_matching = 8;
  told.inline_plain = 16;
  told.send_at_tx_max = 64;
  return told;
}

// A payload the command carries inline: the Put ends with the command's
// write, and its SEND lands as the message leaves; one beyond is written by
// PIO first (its bytes beyond the inline ones); a payload the NIC does not
// keep has its SEND with the acknowledgment, which the process does not
// expect before a bound; and a Put that would not end its writes before the
// NIC can act is not forecast.
TEST_F(QueuedPuts, ForecastAddsThePioWriteAndTellsWhenTheSendComes)
{
  ipc::MemoryDescriptor with_queue = descriptor(0);
  with_queue.eq = 0x48000001;
  queued_puts::note_md(kMd, kNi, with_queue);
  const int64_t start = 1'000;
  const ipc::PutForecast told = told_at(3'000e-9);

  const queued_puts::Forecast small = queued_puts::forecast(put(0, 8), told, start, 2);
  ASSERT_TRUE(small.usable);
  EXPECT_EQ(small.end_ns, start + 255);
  EXPECT_TRUE(small.send_event);
  EXPECT_FALSE(small.send_later);
  EXPECT_EQ(small.send_landing_ns, small.end_ns + 264);
  EXPECT_EQ(small.own_events_ns, small.end_ns + 494);

  // 40 bytes: 32 by PIO (250 ns + 2.56 ns), kept by the NIC.
  const queued_puts::Forecast pio = queued_puts::forecast(put(0, 40), told, start, 2);
  ASSERT_TRUE(pio.usable);
  EXPECT_EQ(pio.end_ns, start + 508); // 507.56 ns
  EXPECT_TRUE(pio.send_event);
  EXPECT_EQ(pio.send_landing_ns, pio.end_ns + 264);

  // 120 bytes: beyond what the NIC keeps; its SEND comes later.
  const queued_puts::Forecast late = queued_puts::forecast(put(0, 120), told, start, 2);
  ASSERT_TRUE(late.usable);
  EXPECT_EQ(late.end_ns, start + 514); // 513.96 ns
  EXPECT_FALSE(late.send_event);
  EXPECT_TRUE(late.send_later);
  EXPECT_EQ(late.send_landing_ns, late.end_ns + 464);
  EXPECT_EQ(late.own_events_ns, late.send_landing_ns);

  // Without E2E every SEND comes as the message leaves.
  ipc::PutForecast without_e2e = told;
  without_e2e.send_at_tx_max = UINT32_MAX;
  const queued_puts::Forecast unkept = queued_puts::forecast(put(0, 120), without_e2e, start, 2);
  ASSERT_TRUE(unkept.usable);
  EXPECT_TRUE(unkept.send_event);
  EXPECT_FALSE(unkept.send_later);

  // Its PIO write must end before `until` too: an inline Put still fits.
  const ipc::PutForecast soon = told_at(1'100e-9);
  EXPECT_TRUE(queued_puts::forecast(put(0, 8), soon, start, 2).usable);
  EXPECT_FALSE(queued_puts::forecast(put(0, 40), soon, start, 2).usable);
  // Beyond PIO: the NIC reads it by DMA, and only the server knows when.
  EXPECT_FALSE(queued_puts::forecast(put(0, 409), told, start, 2).usable);
}

// A payload the NIC reads by DMA (s4bxi/queued-dma-puts): queued with nothing
// captured (the NIC reads it when the Put runs); forecast to end with its
// command's write, its SEND with the acknowledgment; not forecast when its
// SEND would come as it leaves (after the DMA read), nor when the reply's
// forecast does not cover such payloads.
TEST_F(QueuedPuts, DmaPayloadIsQueuedWithNothingCapturedAndForecastAsItsCommand)
{
  ipc::PutArgs before = put(0, 100);
  EXPECT_FALSE(admit(before)); // (the run says no)
  ipc::HelloResult granted = hello();
  granted.queued_dma_puts = 1;
  granted.queued_dma_above_matching = 64; // (the PIO limit)
  queued_puts::on_hello(granted);
  ipc::PutArgs pio = put(0, 40);
  EXPECT_FALSE(admit(pio)); // beyond what it may capture, within PIO
  ipc::PutArgs dma = put(0, 100);
  std::memset(payload, 0xee, sizeof payload);
  ASSERT_TRUE(admit(dma));
  EXPECT_EQ(dma.captured_length, 0u);
  EXPECT_EQ(payload[0], 0xee); // nothing captured

  ipc::MemoryDescriptor with_queue = descriptor(0);
  with_queue.eq = 0x48000001;
  queued_puts::note_md(kMd, kNi, with_queue);
  const int64_t start = 1'000;
  ipc::PutForecast told = told_at(3'000e-9);
  told.max_length_matching = 64; // (the PIO limit, as above)
  EXPECT_FALSE(queued_puts::forecast(dma, told, start, 2).usable);
  told.dma_payloads = 1;
  const queued_puts::Forecast read = queued_puts::forecast(dma, told, start, 2);
  ASSERT_TRUE(read.usable);
  EXPECT_TRUE(read.by_dma);
  EXPECT_EQ(read.end_ns, start + 255); // no PIO write
  EXPECT_FALSE(read.send_event);
  EXPECT_TRUE(read.send_later);
  EXPECT_EQ(read.send_landing_ns, read.end_ns + 464);
  ipc::PutForecast without_e2e = told;
  without_e2e.send_at_tx_max = UINT32_MAX;
  EXPECT_FALSE(queued_puts::forecast(dma, without_e2e, start, 2).usable);
  // (A payload within PIO, captured, is no DMA one.)
  const queued_puts::Forecast small = queued_puts::forecast(put(0, 8), told, start, 2);
  EXPECT_FALSE(small.by_dma);
}

TEST_F(QueuedPuts, NothingIsQueuedWhenTheRunSaysNo)
{
  ipc::HelloResult refused = hello();
  refused.queued_puts = 0; // s4bxi/queued-puts:no
  refused.queued_dma_puts = 1;
  queued_puts::on_hello(refused);
  ipc::PutArgs args = put(0, 8);
  EXPECT_FALSE(admit(args));
  args = put(0, 100); // (read by DMA: no more)
  EXPECT_FALSE(admit(args));
}

} // namespace
} // namespace s4bxi::preload
