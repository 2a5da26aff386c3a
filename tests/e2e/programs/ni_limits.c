/*
 * PtlNIInit's limits (issue 21): the desired limits are honoured within
 * what the NIC model can do, and the actual ones say what was granted.
 *
 * Usage: ni_limits VOLATILE_MATCHING VOLATILE_PLAIN ordered|unordered
 *   the max_volatile_size expected of a matching and of a non-matching NI
 *   (the node's PIO limits), and whether PTL_TOTAL_DATA_ORDERING is granted.
 *
 * Then what SOS's remote virtual addressing relies on: an LE over the whole
 * address space (PTL_TARGET_BIND_INACCESSIBLE) takes a Put addressed by the
 * target's virtual address, and a Put into memory the process has not mapped
 * fails at the target (PTL_NI_SEGV) instead of ending the run. The Put's
 * source buffer is overwritten as soon as PtlPut returns: within
 * max_volatile_size the target still gets what was there at the call.
 * One rank, which puts to itself.
 *
 * And max_entries: exactly as many list entries as granted, whether the
 * process appends them itself or sends them to the server (an entry with a
 * counter): the indices the server sets aside for the process's own appends
 * never make an append fail early.
 */
#include "e2e_common.h"

#include <limits.h>

#define WHOLE_PT 5

static ptl_ni_limits_t desire_everything(void)
{
    ptl_ni_limits_t d;
    memset(&d, 0, sizeof d);
    d.max_entries = INT_MAX;
    d.max_unexpected_headers = INT_MAX;
    d.max_mds = INT_MAX;
    d.max_cts = INT_MAX;
    d.max_eqs = INT_MAX;
    d.max_pt_index = 64;
    d.max_iovecs = INT_MAX;
    d.max_list_size = INT_MAX;
    d.max_triggered_ops = INT_MAX;
    d.max_msg_size = LONG_MAX;
    d.max_atomic_size = LONG_MAX;
    d.max_fetch_atomic_size = LONG_MAX;
    d.max_waw_ordered_size = LONG_MAX;
    d.max_war_ordered_size = LONG_MAX;
    d.max_volatile_size = LONG_MAX;
    d.features = PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING | PTL_COHERENT_ATOMICS;
    return d;
}

static ptl_ni_limits_t init_fini(unsigned int options, const ptl_ni_limits_t *desired)
{
    ptl_handle_ni_t ni;
    ptl_ni_limits_t actual;
    memset(&actual, 0xA5, sizeof actual);
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, options, PTL_PID_ANY, desired, &actual, &ni));
    E2E_OK(PtlNIFini(ni));
    return actual;
}

static unsigned char target_area[80];

/* Appends an ME to `pt`, with a counter when `ct` is not PTL_CT_NONE (the
 * server's to append), else one the process may append itself. */
static int append_me(ptl_handle_ni_t ni, ptl_pt_index_t pt, ptl_handle_ct_t ct, ptl_handle_me_t *me)
{
    static unsigned char area[8];
    ptl_me_t entry;
    memset(&entry, 0, sizeof entry);
    entry.start = area;
    entry.length = sizeof area;
    entry.ct_handle = ct;
    entry.uid = PTL_UID_ANY;
    entry.match_id.rank = PTL_RANK_ANY;
    entry.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | (ct != PTL_CT_NONE ? PTL_ME_EVENT_CT_COMM : 0);
    return PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, me);
}

/* An NI granted 3 entries: 3 appends of `kind` (0 the process's own, 1 the
 * server's, 2 alternating) succeed, the next of either kind is refused with
 * PTL_NO_SPACE, and one unlinked makes room for one more. */
static void fill_entry_table(int kind)
{
    ptl_ni_limits_t desired = desire_everything(), got;
    desired.max_entries = 3;
    ptl_handle_ni_t ni;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &desired, &got, &ni));
    E2E_CHECK(got.max_entries == 3, "desired max_entries 3, got %d", got.max_entries);
    ptl_handle_ct_t ct;
    E2E_OK(PtlCTAlloc(ni, &ct));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt));
    ptl_handle_me_t me[3];
    for (int i = 0; i < 3; ++i) {
        const ptl_handle_ct_t with = kind == 1 || (kind == 2 && i % 2 == 1) ? ct : PTL_CT_NONE;
        const int rc = append_me(ni, pt, with, &me[i]);
        E2E_CHECK(rc == PTL_OK, "max_entries 3, appends of kind %d: append %d returned %d", kind, i + 1, rc);
    }
    ptl_handle_me_t extra;
    int rc = append_me(ni, pt, PTL_CT_NONE, &extra);
    E2E_CHECK(rc == PTL_NO_SPACE, "a 4th entry of 3 (the process's own kind): %d, expected PTL_NO_SPACE", rc);
    rc = append_me(ni, pt, ct, &extra);
    E2E_CHECK(rc == PTL_NO_SPACE, "a 4th entry of 3 (with a counter): %d, expected PTL_NO_SPACE", rc);
    E2E_OK(PtlMEUnlink(me[1]));
    rc = append_me(ni, pt, kind == 1 ? ct : PTL_CT_NONE, &me[1]);
    E2E_CHECK(rc == PTL_OK, "an entry where one was unlinked: %d", rc);
    for (int i = 0; i < 3; ++i)
        E2E_OK(PtlMEUnlink(me[i]));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlNIFini(ni));
}

/* A Put of 80 B (SOS's threading test puts ten longs) from a volatile MD to
 * this process's own address `address`; returns the ACK's failure type. */
static ptl_ni_fail_t put_to_address(ptl_handle_ni_t ni, ptl_handle_eq_t eq, unsigned char *source,
                                    uint64_t address)
{
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = source;
    md.length = sizeof target_area;
    md.options = PTL_MD_VOLATILE;
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE;
    ptl_handle_md_t handle;
    E2E_OK(PtlMDBind(ni, &md, &handle));
    ptl_process_t self;
    E2E_OK(PtlGetId(ni, &self));
    E2E_OK(PtlPut(handle, 0, sizeof target_area, PTL_ACK_REQ, self, WHOLE_PT, 0, address, NULL, 0));
    memset(source, 0xEE, sizeof target_area); /* the call returned: the buffer is the program's again */
    ptl_event_t ev;
    do {
        E2E_OK(PtlEQWait(eq, &ev));
    } while (ev.type != PTL_EVENT_ACK);
    E2E_OK(PtlMDRelease(handle));
    return ev.ni_fail_type;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[3], "ordered") != 0 && strcmp(argv[3], "unordered") != 0)) {
        fprintf(stderr, "usage: ni_limits VOLATILE_MATCHING VOLATILE_PLAIN ordered|unordered\n");
        return 2;
    }
    const ptl_size_t volatile_matching = strtoull(argv[1], NULL, 10);
    const ptl_size_t volatile_plain = strtoull(argv[2], NULL, 10);
    const unsigned int ordering = strcmp(argv[3], "ordered") == 0 ? PTL_TOTAL_DATA_ORDERING : 0;
    E2E_OK(PtlInit());
    e2e_rank = 0;

    /* No desired limits: the most of each, no feature asked for, none given. */
    ptl_ni_limits_t got = init_fini(PTL_NI_MATCHING | PTL_NI_LOGICAL, NULL);
    E2E_CHECK(got.max_volatile_size == volatile_matching, "no desired limits: max_volatile_size %llu, expected %llu",
              (unsigned long long)got.max_volatile_size, (unsigned long long)volatile_matching);
    E2E_CHECK(got.features == 0, "no desired limits: features 0x%x, expected none", got.features);

    /* Everything desired (as SOS and GASNet ask): the NI's most, and the
     * features it has; never PTL_COHERENT_ATOMICS (the CPU's atomics do not
     * see the NIC's). */
    ptl_ni_limits_t all = desire_everything();
    got = init_fini(PTL_NI_MATCHING | PTL_NI_LOGICAL, &all);
    E2E_CHECK(got.max_volatile_size == volatile_matching, "matching NI: max_volatile_size %llu, expected %llu",
              (unsigned long long)got.max_volatile_size, (unsigned long long)volatile_matching);
    E2E_CHECK(got.features == (PTL_TARGET_BIND_INACCESSIBLE | ordering), "matching NI: features 0x%x, expected 0x%x",
              got.features, PTL_TARGET_BIND_INACCESSIBLE | ordering);
    E2E_CHECK(got.max_pt_index == 64, "max_pt_index %u, desired 64", (unsigned)got.max_pt_index);
    got = init_fini(PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, &all);
    E2E_CHECK(got.max_volatile_size == volatile_plain, "non-matching NI: max_volatile_size %llu, expected %llu",
              (unsigned long long)got.max_volatile_size, (unsigned long long)volatile_plain);
    E2E_CHECK(got.features == (PTL_TARGET_BIND_INACCESSIBLE | ordering),
              "non-matching NI: features 0x%x, expected 0x%x", got.features, PTL_TARGET_BIND_INACCESSIBLE | ordering);

    /* Less than the most: granted as desired; no feature desired, none given. */
    ptl_ni_limits_t some = desire_everything();
    some.max_volatile_size = 100;
    some.features = 0;
    got = init_fini(PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, &some);
    E2E_CHECK(got.max_volatile_size == 100, "desired max_volatile_size 100, got %llu",
              (unsigned long long)got.max_volatile_size);
    E2E_CHECK(got.features == 0, "no feature desired, got 0x%x", got.features);

    /* The whole address space bound to one LE, as SOS binds it. */
    ptl_handle_ni_t ni;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &all, &got, &ni));
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, WHOLE_PT, &pt));
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = NULL;
    le.length = PTL_SIZE_MAX;
    le.ct_handle = PTL_CT_NONE;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_LINK_DISABLE;
    ptl_handle_le_t le_handle;
    E2E_OK(PtlLEAppend(ni, WHOLE_PT, &le, PTL_PRIORITY_LIST, NULL, &le_handle));

    unsigned char source[sizeof target_area];
    for (size_t i = 0; i < sizeof source; ++i)
        source[i] = (unsigned char)(i + 1);
    ptl_ni_fail_t fail = put_to_address(ni, eq, source, (uint64_t)(uintptr_t)target_area);
    E2E_CHECK(fail == PTL_NI_OK, "Put by virtual address: ACK with failure %d", (int)fail);
    for (size_t i = 0; i < sizeof target_area; ++i)
        if (target_area[i] != (unsigned char)(i + 1)) {
            E2E_CHECK(0, "Put by virtual address: byte %zu is 0x%02x, expected 0x%02x (what the volatile source held at the call)",
                      i, target_area[i], (unsigned)(i + 1));
            break;
        }
    /* Page 0 is never mapped. */
    fail = put_to_address(ni, eq, source, 64);
    E2E_CHECK(fail == PTL_NI_SEGV, "Put into unmapped memory: ACK with failure %d, expected PTL_NI_SEGV (%d)",
              (int)fail, (int)PTL_NI_SEGV);

    E2E_OK(PtlLEUnlink(le_handle));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlNIFini(ni));

    for (int kind = 0; kind < 3; ++kind)
        fill_entry_table(kind);
    PtlFini();
    if (e2e_failures == 0)
        printf("ni_limits: rank 0: all checks passed\n");
    return e2e_failures == 0 ? 0 : 1;
}
