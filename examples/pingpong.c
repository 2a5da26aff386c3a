/*
 * pingpong: Portals 4 ping-pong latency and bandwidth between ranks 0 and 1.
 *
 *   s4bxi-run -n 2 pingpong [-i ITERATIONS] [-m MAXSIZE]
 *
 * For every size from 8 B to MAXSIZE (default 4 MiB), doubling, rank 0 sends
 * a message to rank 1 with PtlPut (no acknowledgement) and rank 1 sends it
 * back as soon as PtlEQWait reports the PUT event; rank 0 measures the round
 * trips with its own clock_gettime(CLOCK_MONOTONIC) and prints, for each
 * size, half the round-trip time and the resulting bandwidth. The first and
 * last bytes of every message carry a value that changes with each
 * iteration and are checked on arrival. Other ranks, if any, stay idle.
 *
 * Under s4bxi-run the clock is simulated, so the table shows the latency and
 * bandwidth of the simulated BXI network, not of the host.
 */
#define _GNU_SOURCE
#include <portals4.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PT_INDEX    0
#define BITS_DATA   0x1ULL
#define BITS_HELLO  0x2ULL
#define WARMUP      2
#define MIN_SIZE    8

static void check(int rc, const char *call)
{
    if (rc != PTL_OK) {
        fprintf(stderr, "pingpong: %s failed with return code %d\n", call, rc);
        exit(1);
    }
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static unsigned char stamp(int sender, long iteration, size_t size, int last)
{
    unsigned v = (unsigned)(iteration * 31 + (long)size * 7 + sender * 101);
    return (unsigned char)(last ? ~v : v);
}

static long default_iterations(size_t size)
{
    if (size <= 65536)
        return 100;
    if (size <= (1u << 20))
        return 30;
    return 10;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-i ITERATIONS] [-m MAXSIZE]\n", argv0);
}

int main(int argc, char **argv)
{
    long iterations = 0; /* 0: depends on the size */
    size_t max_size = 4u << 20;
    int opt;
    while ((opt = getopt(argc, argv, "i:m:h")) != -1) {
        switch (opt) {
        case 'i':
            iterations = atol(optarg);
            if (iterations < 1) {
                fprintf(stderr, "pingpong: -i needs a positive count\n");
                return 2;
            }
            break;
        case 'm':
            max_size = (size_t)strtoull(optarg, NULL, 0);
            if (max_size < MIN_SIZE) {
                fprintf(stderr, "pingpong: -m needs a size of at least %d\n",
                        MIN_SIZE);
                return 2;
            }
            break;
        case 'h':
            usage(argv[0]);
            return 0;
        default:
            usage(argv[0]);
            return 2;
        }
    }

    ptl_handle_ni_t ni;
    ptl_process_t me, first;
    ptl_size_t nranks = 0;
    check(PtlInit(), "PtlInit");
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL,
                    PTL_PID_ANY, NULL, NULL, &ni),
          "PtlNIInit");
    check(PtlGetId(ni, &me), "PtlGetId");
    check(PtlGetMap(ni, 1, &first, &nranks), "PtlGetMap");
    const int rank = (int)me.rank;
    if (nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks, got %llu\n",
                    (unsigned long long)nranks);
        return 2;
    }
    if (rank > 1) { /* idle */
        check(PtlNIFini(ni), "PtlNIFini");
        PtlFini();
        return 0;
    }
    ptl_process_t peer;
    memset(&peer, 0, sizeof peer);
    peer.rank = (ptl_rank_t)(1 - rank);

    unsigned char *sbuf = calloc(1, max_size);
    unsigned char *rbuf = calloc(1, max_size);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "pingpong: cannot allocate 2 x %zu bytes\n", max_size);
        return 1;
    }

    /* Receive side: one persistent entry for the data, one for the hello. */
    ptl_handle_eq_t recv_eq, ack_eq;
    ptl_pt_index_t pt;
    ptl_handle_me_t data_me, hello_me;
    ptl_me_t mle;
    check(PtlEQAlloc(ni, 256, &recv_eq), "PtlEQAlloc");
    check(PtlEQAlloc(ni, 16, &ack_eq), "PtlEQAlloc");
    check(PtlPTAlloc(ni, 0, recv_eq, PT_INDEX, &pt), "PtlPTAlloc");
    memset(&mle, 0, sizeof mle);
    mle.start = rbuf;
    mle.length = max_size;
    mle.ct_handle = PTL_CT_NONE;
    mle.uid = PTL_UID_ANY;
    mle.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    mle.match_id = peer;
    mle.match_bits = BITS_DATA;
    mle.ignore_bits = 0;
    check(PtlMEAppend(ni, PT_INDEX, &mle, PTL_PRIORITY_LIST, NULL, &data_me),
          "PtlMEAppend");
    mle.start = NULL;
    mle.length = 0;
    mle.match_bits = BITS_HELLO;
    check(PtlMEAppend(ni, PT_INDEX, &mle, PTL_PRIORITY_LIST, NULL, &hello_me),
          "PtlMEAppend");

    /* Send side: no events for the data; ACKs for the hello. */
    ptl_md_t md;
    ptl_handle_md_t data_md, hello_md;
    memset(&md, 0, sizeof md);
    md.start = sbuf;
    md.length = max_size;
    md.options = 0;
    md.eq_handle = PTL_EQ_NONE;
    md.ct_handle = PTL_CT_NONE;
    check(PtlMDBind(ni, &md, &data_md), "PtlMDBind");
    md.start = NULL;
    md.length = 0;
    md.options = PTL_MD_EVENT_SEND_DISABLE;
    md.eq_handle = ack_eq;
    check(PtlMDBind(ni, &md, &hello_md), "PtlMDBind");

    ptl_event_t ev;
    if (rank == 0) {
        /* Rank 1 may not have posted its entries yet: a hello that is
         * dropped there comes back as a failed ACK, and is sent again. */
        for (;;) {
            check(PtlPut(hello_md, 0, 0, PTL_ACK_REQ, peer, PT_INDEX,
                         BITS_HELLO, 0, NULL, 0),
                  "PtlPut");
            check(PtlEQWait(ack_eq, &ev), "PtlEQWait");
            if (ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK)
                break;
            struct timespec pause = {0, 10000};
            nanosleep(&pause, NULL);
        }
        printf("# Portals 4 ping-pong between ranks 0 and 1: PtlPut without "
               "ack, completion by PtlEQWait\n");
        printf("# %10s %11s %15s %16s\n", "size(B)", "iterations",
               "latency(us)", "bandwidth(MB/s)");
        fflush(stdout);
    } else {
        check(PtlEQWait(recv_eq, &ev), "PtlEQWait");
        if (ev.type != PTL_EVENT_PUT || ev.match_bits != BITS_HELLO) {
            fprintf(stderr, "pingpong: rank 1 expected the hello, got event "
                    "type %d\n", ev.type);
            return 1;
        }
    }

    int errors = 0;
    for (size_t size = MIN_SIZE; size <= max_size; size *= 2) {
        const long iters = iterations ? iterations : default_iterations(size);
        double start = 0;
        for (long it = -WARMUP; it < iters; ++it) {
            if (it == 0)
                start = now_us();
            if (rank == 0) {
                sbuf[0] = stamp(0, it, size, 0);
                sbuf[size - 1] = stamp(0, it, size, 1);
                check(PtlPut(data_md, 0, size, PTL_NO_ACK_REQ, peer, PT_INDEX,
                             BITS_DATA, 0, NULL, 0),
                      "PtlPut");
            }
            check(PtlEQWait(recv_eq, &ev), "PtlEQWait");
            if (ev.type != PTL_EVENT_PUT || ev.mlength != size ||
                ev.ni_fail_type != PTL_NI_OK) {
                fprintf(stderr, "pingpong: rank %d, %zu B: unexpected event "
                        "(type %d, mlength %llu, ni_fail_type %d)\n",
                        rank, size, ev.type, (unsigned long long)ev.mlength,
                        ev.ni_fail_type);
                return 1;
            }
            const int from = 1 - rank;
            if (rbuf[0] != stamp(from, it, size, 0) ||
                rbuf[size - 1] != stamp(from, it, size, 1)) {
                if (errors++ < 5)
                    fprintf(stderr, "pingpong: rank %d, %zu B, iteration %ld: "
                            "wrong data (first 0x%02x last 0x%02x)\n",
                            rank, size, it, rbuf[0], rbuf[size - 1]);
            }
            if (rank == 1) {
                sbuf[0] = stamp(1, it, size, 0);
                sbuf[size - 1] = stamp(1, it, size, 1);
                check(PtlPut(data_md, 0, size, PTL_NO_ACK_REQ, peer, PT_INDEX,
                             BITS_DATA, 0, NULL, 0),
                      "PtlPut");
            }
        }
        if (rank == 0) {
            double half_rtt = (now_us() - start) / (double)iters / 2.0;
            printf("  %10zu %11ld %15.3f %16.2f\n", size, iters, half_rtt,
                   half_rtt > 0 ? (double)size / half_rtt : 0.0);
            fflush(stdout);
        }
    }

    /* Closing hello: rank 1 knows that every message it sent has arrived. */
    if (rank == 0) {
        check(PtlPut(hello_md, 0, 0, PTL_ACK_REQ, peer, PT_INDEX, BITS_HELLO,
                     0, NULL, 0),
              "PtlPut");
        check(PtlEQWait(ack_eq, &ev), "PtlEQWait");
    } else {
        check(PtlEQWait(recv_eq, &ev), "PtlEQWait");
    }

    check(PtlMDRelease(data_md), "PtlMDRelease");
    check(PtlMDRelease(hello_md), "PtlMDRelease");
    check(PtlMEUnlink(data_me), "PtlMEUnlink");
    check(PtlMEUnlink(hello_me), "PtlMEUnlink");
    check(PtlPTFree(ni, PT_INDEX), "PtlPTFree");
    check(PtlEQFree(recv_eq), "PtlEQFree");
    check(PtlEQFree(ack_eq), "PtlEQFree");
    check(PtlNIFini(ni), "PtlNIFini");
    PtlFini();
    free(sbuf);
    free(rbuf);
    if (errors) {
        fprintf(stderr, "pingpong: rank %d saw %d corrupted messages\n", rank,
                errors);
        return 1;
    }
    return 0;
}
