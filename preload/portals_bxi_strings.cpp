// The string conversions of BXI's portals4_bxiext.h (built into the BXI
// flavour only): names of return codes, event kinds and failure codes, the
// per-kind description table ptl_ev_desc, and ptl_evtostr's one-line event
// description.
#include "export.hpp"
#include "portals4.h"
#include "portals4_bxiext.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <span>
#include <string_view>

static_assert(sizeof(ptl_handle_any_t) == sizeof(void*), "portals_bxi_strings.cpp belongs to the BXI flavour only");

namespace {

struct Name {
  int value;
  const char* text;
};

#define S4BXI_NAMED(constant) Name{constant, #constant}

constexpr Name kReturnCodes[] = {
    S4BXI_NAMED(PTL_OK),          S4BXI_NAMED(PTL_ARG_INVALID),  S4BXI_NAMED(PTL_CT_NONE_REACHED),
    S4BXI_NAMED(PTL_EQ_DROPPED),  S4BXI_NAMED(PTL_EQ_EMPTY),     S4BXI_NAMED(PTL_FAIL),
    S4BXI_NAMED(PTL_IGNORED),     S4BXI_NAMED(PTL_IN_USE),       S4BXI_NAMED(PTL_INTERRUPTED),
    S4BXI_NAMED(PTL_LIST_TOO_LONG), S4BXI_NAMED(PTL_NO_INIT),    S4BXI_NAMED(PTL_NO_SPACE),
    S4BXI_NAMED(PTL_PID_IN_USE),  S4BXI_NAMED(PTL_PT_EQ_NEEDED), S4BXI_NAMED(PTL_PT_FULL),
    S4BXI_NAMED(PTL_PT_IN_USE),   S4BXI_NAMED(PTL_SIZE_INVALID), S4BXI_NAMED(PTL_TRY_AGAIN),
};

constexpr Name kEventKinds[] = {
    S4BXI_NAMED(PTL_EVENT_GET),
    S4BXI_NAMED(PTL_EVENT_GET_OVERFLOW),
    S4BXI_NAMED(PTL_EVENT_PUT),
    S4BXI_NAMED(PTL_EVENT_PUT_OVERFLOW),
    S4BXI_NAMED(PTL_EVENT_ATOMIC),
    S4BXI_NAMED(PTL_EVENT_ATOMIC_OVERFLOW),
    S4BXI_NAMED(PTL_EVENT_FETCH_ATOMIC),
    S4BXI_NAMED(PTL_EVENT_FETCH_ATOMIC_OVERFLOW),
    S4BXI_NAMED(PTL_EVENT_REPLY),
    S4BXI_NAMED(PTL_EVENT_SEND),
    S4BXI_NAMED(PTL_EVENT_ACK),
    S4BXI_NAMED(PTL_EVENT_PT_DISABLED),
    S4BXI_NAMED(PTL_EVENT_AUTO_UNLINK),
    S4BXI_NAMED(PTL_EVENT_AUTO_FREE),
    S4BXI_NAMED(PTL_EVENT_SEARCH),
    S4BXI_NAMED(PTL_EVENT_LINK),
};

// In the BXI numbering the failure codes are 0 to 11, with three return
// codes among them; PtlFailTypeSize() tells how many there are.
constexpr Name kFailTypes[] = {
    S4BXI_NAMED(PTL_NI_OK),           S4BXI_NAMED(PTL_NI_PERM_VIOLATION), S4BXI_NAMED(PTL_NI_SEGV),
    S4BXI_NAMED(PTL_NI_PT_DISABLED),  S4BXI_NAMED(PTL_NI_DROPPED),        S4BXI_NAMED(PTL_NI_UNDELIVERABLE),
    S4BXI_NAMED(PTL_FAIL),            S4BXI_NAMED(PTL_ARG_INVALID),       S4BXI_NAMED(PTL_IN_USE),
    S4BXI_NAMED(PTL_NI_NO_MATCH),     S4BXI_NAMED(PTL_NI_TARGET_INVALID), S4BXI_NAMED(PTL_NI_OP_VIOLATION),
};

#undef S4BXI_NAMED

const char* find(std::span<const Name> names, int value)
{
  for (const Name& name : names)
    if (name.value == value)
      return name.text;
  return nullptr;
}

// The name without its "PTL_NI_" or "PTL_" prefix, as ptl_evtostr prints it.
const char* short_fail_name(int fail)
{
  const char* name = find(kFailTypes, fail);
  if (name == nullptr)
    return nullptr;
  std::string_view view(name);
  return name + (view.starts_with("PTL_NI_") ? 7 : 4);
}

// Which members an event carries, by kind (Portals 4.1, the event
// occurrence table): target-side events describe the incoming message,
// initiator-side ones the local operation. On failure a target-side event
// keeps what identifies the message.
constexpr int kTarget = PTL_EV_HAS_INIT | PTL_EV_HAS_PT | PTL_EV_HAS_UID | PTL_EV_HAS_BITS | PTL_EV_HAS_RLEN |
                        PTL_EV_HAS_MLEN | PTL_EV_HAS_ROFFS | PTL_EV_HAS_START | PTL_EV_HAS_UPTR;
constexpr int kTargetFailed =
    PTL_EV_HAS_INIT | PTL_EV_HAS_PT | PTL_EV_HAS_UID | PTL_EV_HAS_BITS | PTL_EV_HAS_MLEN | PTL_EV_HAS_START |
    PTL_EV_HAS_UPTR;
constexpr int kHeader = PTL_EV_HAS_HDR;
constexpr int kAtomic = PTL_EV_HAS_HDR | PTL_EV_HAS_AOP | PTL_EV_HAS_ATYP;
constexpr int kCompletion = PTL_EV_HAS_LIST | PTL_EV_HAS_MLEN | PTL_EV_HAS_ROFFS | PTL_EV_HAS_UPTR;
constexpr int kEntry = PTL_EV_HAS_PT | PTL_EV_HAS_UPTR;

char* text(const char* literal)
{
  return const_cast<char*>(literal); // the member is char*; the table is never written
}

// Appends to a buffer of PTL_EV_STR_SIZE bytes, never past its end.
class Line {
public:
  explicit Line(char* buffer) : buffer_(buffer) { buffer_[0] = '\0'; }

  [[gnu::format(printf, 2, 3)]] void add(const char* format, ...)
  {
    if (used_ >= kRoom)
      return;
    va_list args;
    va_start(args, format);
    int n = std::vsnprintf(buffer_ + used_, kRoom - used_, format, args);
    va_end(args);
    if (n > 0)
      used_ = std::min(kRoom - 1, used_ + static_cast<std::size_t>(n));
  }

  int length() const { return static_cast<int>(used_); }

private:
  static constexpr std::size_t kRoom = PTL_EV_STR_SIZE;
  char* buffer_;
  std::size_t used_ = 0;
};

} // namespace

extern "C" {

S4BXI_EXPORT struct ptl_ev_desc ptl_ev_desc[] = {
    {text("GET"), PTL_EVENT_GET, kTarget, kTargetFailed},
    {text("GET_OVERFLOW"), PTL_EVENT_GET_OVERFLOW, kTarget, kTargetFailed},
    {text("PUT"), PTL_EVENT_PUT, kTarget | kHeader, kTargetFailed | kHeader},
    {text("PUT_OVERFLOW"), PTL_EVENT_PUT_OVERFLOW, kTarget | kHeader, kTargetFailed | kHeader},
    {text("ATOMIC"), PTL_EVENT_ATOMIC, kTarget | kAtomic, kTargetFailed | kAtomic},
    {text("ATOMIC_OVERFLOW"), PTL_EVENT_ATOMIC_OVERFLOW, kTarget | kAtomic, kTargetFailed | kAtomic},
    {text("FETCH_ATOMIC"), PTL_EVENT_FETCH_ATOMIC, kTarget | kAtomic, kTargetFailed | kAtomic},
    {text("FETCH_ATOMIC_OVERFLOW"), PTL_EVENT_FETCH_ATOMIC_OVERFLOW, kTarget | kAtomic, kTargetFailed | kAtomic},
    {text("REPLY"), PTL_EVENT_REPLY, kCompletion, PTL_EV_HAS_UPTR},
    {text("SEND"), PTL_EVENT_SEND, PTL_EV_HAS_MLEN | PTL_EV_HAS_UPTR, PTL_EV_HAS_UPTR},
    {text("ACK"), PTL_EVENT_ACK, kCompletion, PTL_EV_HAS_UPTR},
    {text("PT_DISABLED"), PTL_EVENT_PT_DISABLED, PTL_EV_HAS_PT, PTL_EV_HAS_PT},
    {text("AUTO_UNLINK"), PTL_EVENT_AUTO_UNLINK, kEntry, kEntry},
    {text("AUTO_FREE"), PTL_EVENT_AUTO_FREE, kEntry, kEntry},
    {text("SEARCH"), PTL_EVENT_SEARCH, kTarget | kAtomic, kTarget | kAtomic},
    {text("LINK"), PTL_EVENT_LINK, kEntry, kEntry},
    {nullptr, 0, 0, 0},
};

S4BXI_EXPORT const char* PtlToStr(int rc, enum ptl_str_type type)
{
  const char* name = nullptr;
  switch (type) {
  case PTL_STR_ERROR: name = find(kReturnCodes, rc); break;
  case PTL_STR_EVENT: name = find(kEventKinds, rc); break;
  case PTL_STR_FAIL_TYPE: name = find(kFailTypes, rc); break;
  }
  return name != nullptr ? name : "Unknown";
}

S4BXI_EXPORT int PtlFailTypeSize(void)
{
  return static_cast<int>(std::size(kFailTypes));
}

S4BXI_EXPORT int ptl_evtostr(unsigned int ni_options, struct ptl_event* event, char* msg)
{
  if (event == nullptr or msg == nullptr)
    return -1;
  const struct ptl_ev_desc* kind = ptl_ev_desc;
  while (kind->name != nullptr and kind->type != static_cast<int>(event->type))
    ++kind;
  const char* fail = short_fail_name(static_cast<int>(event->ni_fail_type));
  if (kind->name == nullptr or fail == nullptr) {
    msg[0] = '\0';
    return -1;
  }
  Line line(msg);
  line.add("type=%s fail=%s", kind->name, fail);
  const int has = event->ni_fail_type == PTL_NI_OK ? kind->flags : kind->fail_flags;
  if (has & PTL_EV_HAS_INIT) {
    if ((ni_options & (PTL_NI_PHYSICAL | PTL_NI_LOGICAL)) == PTL_NI_PHYSICAL)
      line.add(", init=(%u,%u)", event->initiator.phys.nid, event->initiator.phys.pid);
    else
      line.add(", init=(%u)", event->initiator.rank);
  }
  if (has & PTL_EV_HAS_UID)
    line.add(", uid=%d", event->uid);
  if (has & PTL_EV_HAS_BITS)
    line.add(", bits=%" PRIx64, event->match_bits);
  if (has & PTL_EV_HAS_RLEN)
    line.add(", rlen=%" PRIx64, event->rlength);
  if (has & PTL_EV_HAS_PT)
    line.add(", pt=%u", event->pt_index);
  if (has & PTL_EV_HAS_HDR)
    line.add(", hdr=%" PRIx64, event->hdr_data);
  if (has & PTL_EV_HAS_LIST)
    line.add(", list=%d", event->ptl_list);
  if (has & PTL_EV_HAS_UPTR)
    line.add(", uptr=%p", event->user_ptr);
  if (has & PTL_EV_HAS_MLEN)
    line.add(", mlen=%" PRIx64, event->mlength);
  if (has & PTL_EV_HAS_ROFFS)
    line.add(", roffs=%" PRIx64, event->remote_offset);
  if (has & PTL_EV_HAS_START)
    line.add(", start=%p", event->start);
  if (has & PTL_EV_HAS_AOP)
    line.add(", aop=0x%x", static_cast<unsigned>(event->atomic_operation));
  if (has & PTL_EV_HAS_ATYP)
    line.add(", atyp=0x%x", static_cast<unsigned>(event->atomic_type));
  line.add("\n");
  return line.length();
}

} // extern "C"
