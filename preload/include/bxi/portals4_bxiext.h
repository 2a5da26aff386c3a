/*
 * portals4_bxiext.h -- the BXI extensions of the Portals 4 interface, as the
 * emulator's BXI flavour provides them: names of return codes, event kinds
 * and failure codes, and a one-line description of an event.
 *
 * The emulator's own header; the names, numeric values, the layout of
 * struct ptl_ev_desc and the prototypes are those of BXI's
 * portals4_bxiext.h. Use it with the BXI flavour of portals4.h
 * (include/bxi/); lib/bxi/libportals.so.4 implements it.
 */
#ifndef PORTALS4_BXIEXT_H
#define PORTALS4_BXIEXT_H

#include <stddef.h>

/* Room that ptl_evtostr() may use in its output buffer, the final NUL
 * included. */
#define PTL_EV_STR_SIZE 256

#ifdef __cplusplus
extern "C" {
#endif

/* What PtlToStr() is asked to name. */
enum ptl_str_type {
    PTL_STR_ERROR = 0,     /* a return code */
    PTL_STR_EVENT = 1,     /* an event kind */
    PTL_STR_FAIL_TYPE = 2  /* an NI failure code */
};

/* One event kind: its short name, its value, and which event members are
 * meaningful when the event reports success (flags) or a failure
 * (fail_flags). 24 bytes. */
struct ptl_ev_desc {
    char *name;
    int type;
#define PTL_EV_HAS_START 0x1
#define PTL_EV_HAS_UPTR  0x2
#define PTL_EV_HAS_HDR   0x4
#define PTL_EV_HAS_BITS  0x8
#define PTL_EV_HAS_RLEN  0x10
#define PTL_EV_HAS_MLEN  0x20
#define PTL_EV_HAS_ROFFS 0x40
#define PTL_EV_HAS_UID   0x80
#define PTL_EV_HAS_INIT  0x100
#define PTL_EV_HAS_LIST  0x200
#define PTL_EV_HAS_PT    0x400
#define PTL_EV_HAS_AOP   0x800
#define PTL_EV_HAS_ATYP  0x1000
    int flags;
    int fail_flags;
};

/* Every event kind, in numeric order, then an entry whose name is NULL. */
extern struct ptl_ev_desc ptl_ev_desc[] __attribute__((visibility("default")));

/* The name of a return code, event kind or failure code ("PTL_EQ_EMPTY",
 * "PTL_EVENT_PUT", "PTL_NI_DROPPED"), or "Unknown". The string is static. */
const char *PtlToStr(int rc, enum ptl_str_type type);

/* How many failure codes PtlToStr() can name (they are 0 to this minus 1). */
int PtlFailTypeSize(void);

/* Describes `event` on one line ("type=PUT fail=OK, init=(1), ...",
 * newline-terminated) in `msg`, which has room for PTL_EV_STR_SIZE bytes.
 * ni_options are the options the event's NI was created with (they tell how
 * to print the initiator). Returns the length written, or -1 when the event
 * kind or the failure code has no name. BXI's library has this function
 * without declaring it in a public header; it is declared here for use. */
struct ptl_event;
int ptl_evtostr(unsigned int ni_options, struct ptl_event *event, char *msg);

#ifdef __cplusplus
}
#endif

#endif /* PORTALS4_BXIEXT_H */
