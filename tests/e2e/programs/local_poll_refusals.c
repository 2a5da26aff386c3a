/*
 * local_poll_refusals: the polls a process may answer itself (empty PtlEQGet
 * and zero-timeout PtlEQPoll) keep every return code and every simulated
 * time. Run with s4bxi/compute:none on one rank:
 *  - each empty poll of a queue takes exactly the poll cost (100 ns), be it
 *    answered by the server or by the process;
 *  - a handle that was never a queue, or a queue freed since, is
 *    PTL_ARG_INVALID, even right after a reply that let the process answer
 *    polls of its other queues itself;
 *  - an event on its way is found at the simulated time it lands: a Put to
 *    self is seen only once its event's PCIe write has landed, and the polls
 *    before it are empty (the program prints how many, and when: the same
 *    with and without local answers, test_local_polls.cpp).
 */
#include "e2e_common.h"

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static unsigned char source[8], target[8];

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    ptl_handle_eq_t kept, freed;
    E2E_OK(PtlEQAlloc(ni, 16, &kept));
    E2E_OK(PtlEQAlloc(ni, 16, &freed));
    ptl_event_t event;
    unsigned int which = 99;

    /* Polls of empty queues: 100 ns each, whoever answers them. */
    int64_t before = now_ns();
    for (int i = 0; i < 10; ++i)
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(kept, &event));
    int64_t took = now_ns() - before;
    E2E_CHECK(took == 1000, "10 empty PtlEQGet took %lld ns, not 10 x 100 ns", (long long)took);
    ptl_handle_eq_t both[2] = {kept, freed};
    before = now_ns();
    for (int i = 0; i < 10; ++i)
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(both, 2, 0, &event, &which));
    took = now_ns() - before;
    E2E_CHECK(took == 1000, "10 empty PtlEQPoll took %lld ns, not 10 x 100 ns", (long long)took);

    /* Handles that are not (or no longer) queues of the process. */
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(kept, &event));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQGet((ptl_handle_eq_t)PTL_INVALID_HANDLE, &event));
    E2E_OK(PtlEQFree(freed));
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(kept, &event));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQGet(freed, &event));
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(kept, &event));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(both, 2, 0, &event, &which));
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(kept, &event));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(both, 0, 0, &event, &which));

    /* A Put to self: its PUT event lands a PCIe write after the NIC writes
     * it. Poll until it is there; every poll before it was empty, and it is
     * seen by the first poll that ends after it landed. */
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, kept, 5, &pt));
    e2e_append_me(ni, pt, target, sizeof target, PTL_CT_NONE, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_md_t md = e2e_bind_md(ni, source, sizeof source);
    ptl_process_t self = e2e_peer(e2e_rank);
    memset(source, 0x5a, sizeof source);
    E2E_OK(PtlPut(md, 0, sizeof source, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0));
    before = now_ns();
    int empties = 0, rc;
    while ((rc = PtlEQGet(kept, &event)) == PTL_EQ_EMPTY)
        ++empties;
    E2E_CHECK(rc == PTL_OK, "PtlEQGet after the Put returned %s", e2e_rc_name(rc));
    E2E_CHECK(rc != PTL_OK || event.type == PTL_EVENT_PUT, "the event is %s, not PTL_EVENT_PUT",
              e2e_event_name(event.type));
    took = now_ns() - before;
    /* (The poll that finds it may have blocked until it landed: it stands
     * for the empty polls it saved, and ends on a whole poll period.) */
    E2E_CHECK(took >= (int64_t)empties * 100 && took % 100 == 0, "%d empty polls before the event took %lld ns",
              empties, (long long)took);
    E2E_CHECK(empties > 0, "the event was there at once: the check shows nothing");
    printf("local_poll_refusals: %d empty polls before the PUT event, %lld ns\n", empties, (long long)took);
    return e2e_finish("local_poll_refusals");
}
