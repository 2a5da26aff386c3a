/*
 * Floods of triggered operations (Sandia's test_no_space_triggered_get):
 *  - without argument: every rank registers PtlTriggeredGet from the next
 *    rank (around a ring; on one rank, from itself) on one trigger until the
 *    NI's max_triggered_ops are pending (65,536 by default): the next one is
 *    refused with PTL_NO_SPACE; one PtlCTInc then releases them all at once,
 *    and every reply arrives with the next rank's data (the REPLY count), in
 *    the time the work takes (the test bounds the wall time);
 *  - "exit" (2 ranks): rank 0 registers 10,000 triggered Puts and 20,000
 *    triggered Gets (8 bytes each) to rank 1, releases them and exits at
 *    once; rank 1 exits 20 ms (simulated) later, while its NIC is still
 *    reading the data of its answers to the Gets. The Puts whose data the
 *    NIC had not read yet when rank 0 ended are not sent; the launcher says
 *    so in one line (the test checks it, and that nothing else is said about
 *    them nor about the reads cut short by the end of the run).
 */
#include "conformance_common.h"

#define PT_F 14
#define EXIT_PUTS 10000
#define EXIT_GETS 20000

static uint64_t source, fetched;
static uint64_t exit_buffer;

static uint64_t pattern(int rank) { return 0x5eed0000ULL + (uint64_t)rank; }

static void flood(ptl_handle_ni_t ni, const ptl_ni_limits_t *limits)
{
    const int next = (e2e_rank + 1) % e2e_size;
    source = pattern(e2e_rank);
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_F, &pt));
    ptl_handle_me_t me = cf_append(ni, PT_F, &source, sizeof source, 0xF1, PTL_ME_OP_GET, PTL_CT_NONE,
                                   PTL_PRIORITY_LIST, NULL);
    ptl_handle_ct_t trigger, replies;
    E2E_OK(PtlCTAlloc(ni, &trigger));
    E2E_OK(PtlCTAlloc(ni, &replies));
    ptl_handle_md_t md = cf_bind(ni, &fetched, sizeof fetched, PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, replies);
    e2e_barrier(); /* every target is there */

    const int room = limits->max_triggered_ops;
    int registered = 0;
    for (int i = 0; i < room; ++i) {
        int rc = PtlTriggeredGet(md, 0, sizeof fetched, e2e_peer(next), PT_F, 0xF1, 0, NULL, trigger, 1);
        if (rc != PTL_OK) {
            e2e_fail("PtlTriggeredGet %d of %d returned %s", i + 1, room, e2e_rc_name(rc));
            break;
        }
        registered++;
    }
    E2E_EXPECT_RC(PTL_NO_SPACE, PtlTriggeredGet(md, 0, sizeof fetched, e2e_peer(next), PT_F, 0xF1, 0, NULL, trigger,
                                                1));
    cf_check_ct(replies, 0, 0, "nothing released before the trigger");
    E2E_OK(PtlCTInc(trigger, (ptl_ct_event_t){1, 0}));
    ptl_ct_event_t done;
    E2E_OK(PtlCTWait(replies, (ptl_size_t)registered, &done));
    E2E_CHECK(done.success == (ptl_size_t)registered && done.failure == 0,
              "replies counted {%llu, %llu}, expected {%d, 0}", (unsigned long long)done.success,
              (unsigned long long)done.failure, registered);
    E2E_CHECK(fetched == pattern(next), "fetched %#llx, expected %#llx", (unsigned long long)fetched,
              (unsigned long long)pattern(next));
    E2E_OK(PtlMDRelease(md)); /* every reply is in */
    printf("triggered_flood: rank %d: %d triggered Gets pending, the next one PTL_NO_SPACE, all replied\n",
           e2e_rank, registered);
    e2e_barrier(); /* nobody Gets from this rank any more */
    E2E_OK(PtlCTFree(trigger));
    E2E_OK(PtlCTFree(replies));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT_F));
}

static void exit_with_operations_in_flight(ptl_handle_ni_t ni)
{
    e2e_require_ranks(2);
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_F, &pt));
    cf_append(ni, PT_F, &exit_buffer, sizeof exit_buffer, 0xF1, PTL_ME_OP_GET | PTL_ME_OP_PUT, PTL_CT_NONE, PTL_PRIORITY_LIST,
              NULL);
    e2e_barrier(); /* both targets are there */
    if (e2e_rank == 1) {
        e2e_sleep_ns(20000000);
        printf("triggered_flood: rank 1 exits while its NIC answers Gets\n");
        exit(0);
    }
    ptl_handle_ct_t trigger;
    E2E_OK(PtlCTAlloc(ni, &trigger));
    ptl_handle_md_t md = cf_bind(ni, &exit_buffer, sizeof exit_buffer, 0, PTL_EQ_NONE, PTL_CT_NONE);
    for (int i = 0; i < EXIT_PUTS; ++i)
        E2E_OK(PtlTriggeredPut(md, 0, sizeof exit_buffer, PTL_ACK_REQ, e2e_peer(1), PT_F, 0xF1, 0, NULL, 0, trigger, 1));
    for (int i = 0; i < EXIT_GETS; ++i)
        E2E_OK(PtlTriggeredGet(md, 0, sizeof exit_buffer, e2e_peer(1), PT_F, 0xF1, 0, NULL, trigger, 1));
    E2E_OK(PtlCTInc(trigger, (ptl_ct_event_t){1, 0}));
    printf("triggered_flood: rank 0 exits with %d triggered operations released\n", EXIT_PUTS + EXIT_GETS);
    exit(0);
}

int main(int argc, char **argv)
{
    ptl_ni_limits_t limits;
    ptl_handle_ni_t ni = e2e_init(&limits);
    e2e_barrier_init(ni);
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        exit_with_operations_in_flight(ni);
    flood(ni, &limits);
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("triggered_flood");
}
