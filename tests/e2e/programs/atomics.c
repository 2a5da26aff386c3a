/*
 * Atomic operations (Portals 4.1, section 3.15): PtlAtomic, PtlFetchAtomic,
 * PtlSwap on every (operation, datatype) pair.
 *
 * Rank 0 is the initiator, rank 1 the target. Each pair has a 64-byte slot
 * in the target's buffer, filled by the target with known values. For a pair
 * the specification allows, rank 0 calls PtlFetchAtomic (PtlSwap for the swap
 * operations) and checks that the REPLY brings back the values before the
 * operation, then (not for swaps) PtlAtomic with an ACK on the same slot; a
 * pair the specification does not allow must be refused with PTL_ARG_INVALID
 * by every call. At the end one PtlGet reads the whole buffer, and every slot
 * must hold what this program computes itself, item by item. The target
 * checks one FETCH_ATOMIC (and one ATOMIC) event per operation, with the
 * operation and the datatype.
 *
 * Then: atomics that land in an overflow entry are applied to its buffer and
 * reported by ATOMIC_OVERFLOW / FETCH_ATOMIC_OVERFLOW when a priority entry
 * is appended; a fetching atomic does not match an entry without
 * PTL_ME_OP_GET; the size limits; PtlAtomicSync.
 */
#include "conformance_common.h"

#define PT_ATOM   5
#define BITS_MAIN 0xA70ULL
#define BITS_OVER 0xF00DULL
#define BITS_PUTONLY 0xB0BULL
#define SLOT      64
#define NTYPES    14
#define NOPS      18
#define NCASES    (NTYPES * NOPS)

static const ptl_datatype_t types[NTYPES] = {
    PTL_INT8_T, PTL_UINT8_T, PTL_INT16_T,   PTL_UINT16_T,        PTL_INT32_T,        PTL_UINT32_T,    PTL_INT64_T,
    PTL_UINT64_T, PTL_FLOAT, PTL_DOUBLE, PTL_FLOAT_COMPLEX, PTL_DOUBLE_COMPLEX, PTL_LONG_DOUBLE, PTL_LONG_DOUBLE_COMPLEX};
static const char *type_names[NTYPES] = {"INT8",   "UINT8",          "INT16",          "UINT16",     "INT32",
                                         "UINT32", "INT64",          "UINT64",         "FLOAT",      "DOUBLE",
                                         "FLOAT_COMPLEX", "DOUBLE_COMPLEX", "LONG_DOUBLE", "LONG_DOUBLE_COMPLEX"};
enum { T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64, T_F, T_D, T_FC, T_DC, T_LD, T_LDC };

static const ptl_op_t ops[NOPS] = {PTL_MIN,  PTL_MAX,      PTL_SUM,      PTL_PROD,     PTL_LOR,      PTL_LAND,
                                   PTL_BOR,  PTL_BAND,     PTL_LXOR,     PTL_BXOR,     PTL_SWAP,     PTL_CSWAP,
                                   PTL_CSWAP_NE, PTL_CSWAP_LE, PTL_CSWAP_LT, PTL_CSWAP_GE, PTL_CSWAP_GT, PTL_MSWAP};
static const char *op_names[NOPS] = {"MIN",  "MAX",   "SUM",      "PROD",     "LOR",      "LAND",
                                     "BOR",  "BAND",  "LXOR",     "BXOR",     "SWAP",     "CSWAP",
                                     "CSWAP_NE", "CSWAP_LE", "CSWAP_LT", "CSWAP_GE", "CSWAP_GT", "MSWAP"};
enum { O_MIN, O_MAX, O_SUM, O_PROD, O_LOR, O_LAND, O_BOR, O_BAND, O_LXOR, O_BXOR, O_SWAP, O_CSWAP, O_CSWAP_NE,
       O_CSWAP_LE, O_CSWAP_LT, O_CSWAP_GE, O_CSWAP_GT, O_MSWAP };

static size_t type_size(int t)
{
    static const size_t sizes[NTYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, sizeof(long double),
                                         2 * sizeof(long double)};
    return sizes[t];
}

static int is_integer(int t) { return t <= T_U64; }
static int is_complex(int t) { return t == T_FC || t == T_DC || t == T_LDC; }
static int is_swap(int o) { return o >= O_SWAP; }
static int uses_operand(int o) { return o > O_SWAP; }

/* The specification's table: which operation applies to which datatype. */
static int allowed(int o, int t)
{
    switch (o) {
    case O_MIN: case O_MAX:
    case O_CSWAP_LE: case O_CSWAP_LT: case O_CSWAP_GE: case O_CSWAP_GT: return !is_complex(t);
    case O_LOR: case O_LAND: case O_BOR: case O_BAND: case O_LXOR: case O_BXOR:
    case O_MSWAP: return is_integer(t);
    default: return 1;
    }
}

/* Items operated on: one for the operations with an operand, else two. */
static size_t items_of(int o) { return uses_operand(o) ? 1 : 2; }

/* A small signed number per (case, role, item); role 0 target, 1 source, 2 operand. */
static int seed(int c, int role, size_t item)
{
    return (int)((c * 31 + role * 17 + (int)item * 7) % 23) - 11;
}

/* Writes the value of `role` for item `item` of case `c` at p. The operand
 * equals the target's first item in every other case, so that the
 * conditional swaps go both ways; the MSWAP operand is a bit mask. */
static void put_value(int t, int o, int c, int role, size_t item, unsigned char *p)
{
    int v = seed(c, role, item);
    int w = seed(c + 5, role, item + 3);
    if (role == 2 && c % 2 == 0) {
        v = seed(c, 0, 0);
        w = seed(c + 5, 0, 3);
    }
    if (role == 2 && o == O_MSWAP)
        v = 0x5A ^ (c & 0x0F);
    switch (t) {
#define PUT_INT(T) { T x = (T)v; memcpy(p, &x, sizeof x); break; }
    case T_I8: PUT_INT(int8_t)
    case T_U8: PUT_INT(uint8_t)
    case T_I16: PUT_INT(int16_t)
    case T_U16: PUT_INT(uint16_t)
    case T_I32: PUT_INT(int32_t)
    case T_U32: PUT_INT(uint32_t)
    case T_I64: PUT_INT(int64_t)
    case T_U64: PUT_INT(uint64_t)
    case T_F: { float x = (float)v / 4; memcpy(p, &x, sizeof x); break; }
    case T_D: { double x = (double)v / 4; memcpy(p, &x, sizeof x); break; }
    case T_LD: { long double x = (long double)v / 4; memcpy(p, &x, sizeof x); break; }
    case T_FC: { float x[2] = {(float)v / 4, (float)w / 4}; memcpy(p, x, sizeof x); break; }
    case T_DC: { double x[2] = {(double)v / 4, (double)w / 4}; memcpy(p, x, sizeof x); break; }
    case T_LDC: { long double x[2] = {(long double)v / 4, (long double)w / 4}; memcpy(p, x, sizeof x); break; }
    }
}

static void fill_role(int t, int o, int c, int role, unsigned char *slot)
{
    for (size_t i = 0; i < items_of(o); ++i)
        put_value(t, o, c, role, i, slot + i * type_size(t));
}

/* The operation, computed here independently of the emulator:
 * target := op(target, source), with `operand` for the conditional and
 * masked swaps ("operand OP target" in the specification's words). Integer
 * arithmetic wraps (computed in unsigned 64-bit). */
#define INT_APPLY(NAME, T)                                                      \
    static void NAME(int o, unsigned char *tp, const unsigned char *sp,         \
                     const unsigned char *op, size_t n)                         \
    {                                                                           \
        T q;                                                                    \
        memcpy(&q, op, sizeof q);                                               \
        for (size_t i = 0; i < n; ++i) {                                        \
            T t, s, r;                                                          \
            memcpy(&t, tp + i * sizeof(T), sizeof t);                           \
            memcpy(&s, sp + i * sizeof(T), sizeof s);                           \
            r = t;                                                              \
            switch (o) {                                                        \
            case O_MIN: r = s < t ? s : t; break;                               \
            case O_MAX: r = s > t ? s : t; break;                               \
            case O_SUM: r = (T)((uint64_t)t + (uint64_t)s); break;              \
            case O_PROD: r = (T)((uint64_t)t * (uint64_t)s); break;             \
            case O_LOR: r = (T)(t || s); break;                                 \
            case O_LAND: r = (T)(t && s); break;                                \
            case O_LXOR: r = (T)(!t != !s); break;                              \
            case O_BOR: r = (T)(t | s); break;                                  \
            case O_BAND: r = (T)(t & s); break;                                 \
            case O_BXOR: r = (T)(t ^ s); break;                                 \
            case O_SWAP: r = s; break;                                          \
            case O_CSWAP: r = q == t ? s : t; break;                            \
            case O_CSWAP_NE: r = q != t ? s : t; break;                         \
            case O_CSWAP_LE: r = q <= t ? s : t; break;                         \
            case O_CSWAP_LT: r = q < t ? s : t; break;                          \
            case O_CSWAP_GE: r = q >= t ? s : t; break;                         \
            case O_CSWAP_GT: r = q > t ? s : t; break;                          \
            case O_MSWAP: r = (T)((q & s) | (~q & t)); break;                   \
            }                                                                   \
            memcpy(tp + i * sizeof(T), &r, sizeof r);                           \
        }                                                                       \
    }
INT_APPLY(apply_i8, int8_t)
INT_APPLY(apply_u8, uint8_t)
INT_APPLY(apply_i16, int16_t)
INT_APPLY(apply_u16, uint16_t)
INT_APPLY(apply_i32, int32_t)
INT_APPLY(apply_u32, uint32_t)
INT_APPLY(apply_i64, int64_t)
INT_APPLY(apply_u64, uint64_t)

#define REAL_APPLY(NAME, T)                                                     \
    static void NAME(int o, unsigned char *tp, const unsigned char *sp,         \
                     const unsigned char *op, size_t n)                         \
    {                                                                           \
        T q;                                                                    \
        memcpy(&q, op, sizeof q);                                               \
        for (size_t i = 0; i < n; ++i) {                                        \
            T t, s, r;                                                          \
            memcpy(&t, tp + i * sizeof(T), sizeof t);                           \
            memcpy(&s, sp + i * sizeof(T), sizeof s);                           \
            r = t;                                                              \
            switch (o) {                                                        \
            case O_MIN: r = s < t ? s : t; break;                               \
            case O_MAX: r = s > t ? s : t; break;                               \
            case O_SUM: r = t + s; break;                                       \
            case O_PROD: r = t * s; break;                                      \
            case O_SWAP: r = s; break;                                          \
            case O_CSWAP: r = q == t ? s : t; break;                            \
            case O_CSWAP_NE: r = q != t ? s : t; break;                         \
            case O_CSWAP_LE: r = q <= t ? s : t; break;                         \
            case O_CSWAP_LT: r = q < t ? s : t; break;                          \
            case O_CSWAP_GE: r = q >= t ? s : t; break;                         \
            case O_CSWAP_GT: r = q > t ? s : t; break;                          \
            }                                                                   \
            memcpy(tp + i * sizeof(T), &r, sizeof r);                           \
        }                                                                       \
    }
REAL_APPLY(apply_f, float)
REAL_APPLY(apply_d, double)
REAL_APPLY(apply_ld, long double)

#define COMPLEX_APPLY(NAME, T)                                                  \
    static void NAME(int o, unsigned char *tp, const unsigned char *sp,         \
                     const unsigned char *op, size_t n)                         \
    {                                                                           \
        T q;                                                                    \
        memcpy(&q, op, sizeof q);                                               \
        for (size_t i = 0; i < n; ++i) {                                        \
            T t, s, r;                                                          \
            memcpy(&t, tp + i * sizeof(T), sizeof t);                           \
            memcpy(&s, sp + i * sizeof(T), sizeof s);                           \
            r = t;                                                              \
            switch (o) {                                                        \
            case O_SUM: r = t + s; break;                                       \
            case O_PROD: r = t * s; break;                                      \
            case O_SWAP: r = s; break;                                          \
            case O_CSWAP: r = q == t ? s : t; break;                            \
            case O_CSWAP_NE: r = q != t ? s : t; break;                         \
            }                                                                   \
            memcpy(tp + i * sizeof(T), &r, sizeof r);                           \
        }                                                                       \
    }
COMPLEX_APPLY(apply_fc, float _Complex)
COMPLEX_APPLY(apply_dc, double _Complex)
COMPLEX_APPLY(apply_ldc, long double _Complex)

static void apply(int t, int o, unsigned char *target, const unsigned char *source, const unsigned char *operand)
{
    size_t n = items_of(o);
    switch (t) {
    case T_I8: apply_i8(o, target, source, operand, n); break;
    case T_U8: apply_u8(o, target, source, operand, n); break;
    case T_I16: apply_i16(o, target, source, operand, n); break;
    case T_U16: apply_u16(o, target, source, operand, n); break;
    case T_I32: apply_i32(o, target, source, operand, n); break;
    case T_U32: apply_u32(o, target, source, operand, n); break;
    case T_I64: apply_i64(o, target, source, operand, n); break;
    case T_U64: apply_u64(o, target, source, operand, n); break;
    case T_F: apply_f(o, target, source, operand, n); break;
    case T_D: apply_d(o, target, source, operand, n); break;
    case T_LD: apply_ld(o, target, source, operand, n); break;
    case T_FC: apply_fc(o, target, source, operand, n); break;
    case T_DC: apply_dc(o, target, source, operand, n); break;
    case T_LDC: apply_ldc(o, target, source, operand, n); break;
    }
}

/* Values compared as values (a long double has padding bytes). */
static int same_values(int t, size_t n, const unsigned char *a, const unsigned char *b)
{
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *x = a + i * type_size(t), *y = b + i * type_size(t);
        if (t == T_LD || t == T_LDC) {
            long double u[2] = {0, 0}, v[2] = {0, 0};
            memcpy(u, x, type_size(t));
            memcpy(v, y, type_size(t));
            if (u[0] != v[0] || (t == T_LDC && u[1] != v[1]))
                return 0;
        } else if (memcmp(x, y, type_size(t)) != 0) {
            return 0;
        }
    }
    return 1;
}

static int case_of(int t, int o) { return t * NOPS + o; }

static unsigned char target_buf[NCASES * SLOT];
static unsigned char source_buf[NCASES * SLOT];
static unsigned char result_buf[NCASES * SLOT];
static unsigned char expected_buf[NCASES * SLOT];
static unsigned char final_buf[NCASES * SLOT];
static int32_t over_buf[2], prio_buf[2], putonly_buf[2];
static int32_t over_src[4], over_res[2];

static void initiator(ptl_handle_ni_t ni, const ptl_ni_limits_t *limits)
{
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    ptl_handle_md_t src = cf_bind(ni, source_buf, sizeof source_buf, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t res = cf_bind(ni, result_buf, sizeof result_buf, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t fin = cf_bind(ni, final_buf, sizeof final_buf, 0, eq, PTL_CT_NONE);
    ptl_process_t peer = e2e_peer(1);
    int fetched = 0, atomics = 0, refused = 0;

    E2E_CHECK(limits->max_atomic_size == 512 && limits->max_fetch_atomic_size == 512,
              "limits: max_atomic_size %llu, max_fetch_atomic_size %llu, expected 512 and 512",
              (unsigned long long)limits->max_atomic_size, (unsigned long long)limits->max_fetch_atomic_size);

    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o) {
            const int c = case_of(t, o);
            const size_t off = (size_t)c * SLOT;
            const size_t len = items_of(o) * type_size(t);
            unsigned char operand[32];
            char what[80];
            snprintf(what, sizeof what, "%s on %s", op_names[o], type_names[t]);
            memset(operand, 0, sizeof operand);
            fill_role(t, o, c, 1, source_buf + off);
            put_value(t, o, c, 2, 0, operand);
            fill_role(t, o, c, 0, expected_buf + off);
            if (!allowed(o, t)) {
                /* Refused by every call, whatever the family. */
                E2E_EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(res, off, src, off, len, peer, PT_ATOM, BITS_MAIN, off,
                                                              NULL, c, ops[o], types[t]));
                E2E_EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(src, off, len, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN, off,
                                                         NULL, c, ops[o], types[t]));
                E2E_EXPECT_RC(PTL_ARG_INVALID, PtlSwap(res, off, src, off, len, peer, PT_ATOM, BITS_MAIN, off, NULL,
                                                       c, operand, ops[o], types[t]));
                ++refused;
                continue;
            }
            if (is_swap(o)) {
                /* Swaps only through PtlSwap. */
                E2E_EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(res, off, src, off, len, peer, PT_ATOM, BITS_MAIN, off,
                                                              NULL, c, ops[o], types[t]));
                E2E_EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(src, off, len, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN, off,
                                                         NULL, c, ops[o], types[t]));
                E2E_OK(PtlSwap(res, off, src, off, len, peer, PT_ATOM, BITS_MAIN, off, &result_buf[off], c, operand,
                               ops[o], types[t]));
            } else {
                E2E_EXPECT_RC(PTL_ARG_INVALID, PtlSwap(res, off, src, off, len, peer, PT_ATOM, BITS_MAIN, off, NULL,
                                                       c, operand, ops[o], types[t]));
                E2E_OK(PtlFetchAtomic(res, off, src, off, len, peer, PT_ATOM, BITS_MAIN, off, &result_buf[off], c,
                                      ops[o], types[t]));
            }
            ptl_event_t ev = cf_expect(eq, PTL_EVENT_REPLY, what);
            E2E_CHECK(ev.mlength == len && ev.user_ptr == &result_buf[off] && ev.atomic_operation == ops[o] &&
                          ev.atomic_type == types[t],
                      "%s: REPLY mlength %llu (expected %zu), user_ptr %p, operation %d, datatype %d", what,
                      (unsigned long long)ev.mlength, len, ev.user_ptr, (int)ev.atomic_operation,
                      (int)ev.atomic_type);
            if (!same_values(t, items_of(o), result_buf + off, expected_buf + off))
                e2e_fail("%s: the fetched values are not the target's values before the operation", what);
            apply(t, o, expected_buf + off, source_buf + off, operand);
            ++fetched;
            if (!is_swap(o)) {
                /* The same operation again, without fetching. */
                E2E_OK(PtlAtomic(src, off, len, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN, off, &source_buf[off], c,
                                 ops[o], types[t]));
                ev = cf_expect(eq, PTL_EVENT_ACK, what);
                E2E_CHECK(ev.mlength == len && ev.user_ptr == &source_buf[off],
                          "%s: ACK mlength %llu (expected %zu), user_ptr %p", what, (unsigned long long)ev.mlength,
                          len, ev.user_ptr);
                apply(t, o, expected_buf + off, source_buf + off, operand);
                ++atomics;
            }
        }

    /* The whole buffer, at once: every slot holds what it must. */
    E2E_OK(PtlGet(fin, 0, sizeof final_buf, peer, PT_ATOM, BITS_MAIN, 0, NULL));
    cf_expect(eq, PTL_EVENT_REPLY, "final Get");
    int wrong = 0;
    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o) {
            const size_t off = (size_t)case_of(t, o) * SLOT;
            if (!same_values(t, items_of(o), final_buf + off, expected_buf + off) && wrong++ < 20)
                e2e_fail("%s on %s: the target holds other values than the operation's result", op_names[o],
                         type_names[t]);
        }
    printf("atomics: %d fetching and %d plain operations checked, %d refused pairs\n", fetched, atomics, refused);

    /* Size limits and arguments. */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(src, 0, 520, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0,
                                             PTL_SUM, PTL_INT8_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(res, 0, src, 0, 520, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0,
                                                  PTL_SUM, PTL_INT8_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlSwap(res, 0, src, 0, 520, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0, NULL,
                                           PTL_SWAP, PTL_INT8_T));
    {
        int64_t operand = 0;
        /* The conditional and masked swaps act on one item. */
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlSwap(res, 0, src, 0, 16, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0, &operand,
                                               PTL_CSWAP, PTL_INT64_T));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlSwap(res, 0, src, 0, 8, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0, &operand,
                                               PTL_MSWAP, PTL_UINT32_T));
        /* Their operand is required. */
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlSwap(res, 0, src, 0, 8, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0, NULL,
                                               PTL_CSWAP, PTL_INT64_T));
    }
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(src, 0, 8, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0,
                                             (ptl_op_t)0x7f, PTL_INT8_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(src, 0, 8, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN, 0, NULL, 0, PTL_SUM,
                                             (ptl_datatype_t)0x7f));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(src, sizeof source_buf - 4, 8, PTL_ACK_REQ, peer, PT_ATOM, BITS_MAIN,
                                             0, NULL, 0, PTL_SUM, PTL_INT32_T));
    E2E_OK(PtlAtomicSync());

    e2e_barrier(); /* 1: main part done */
    e2e_barrier(); /* 2: the target checked its events */

    /* Unexpected atomics: they land in the overflow entry. */
    ptl_handle_md_t osrc = cf_bind(ni, over_src, sizeof over_src, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t ores = cf_bind(ni, over_res, sizeof over_res, 0, eq, PTL_CT_NONE);
    over_src[0] = 1;
    over_src[1] = 2;
    over_src[2] = 10;
    over_src[3] = 20;
    E2E_OK(PtlAtomic(osrc, 0, 8, PTL_ACK_REQ, peer, PT_ATOM, BITS_OVER, 0, NULL, 0x11, PTL_SUM, PTL_INT32_T));
    cf_expect(eq, PTL_EVENT_ACK, "unexpected PtlAtomic");
    E2E_OK(PtlFetchAtomic(ores, 0, osrc, 8, 8, peer, PT_ATOM, BITS_OVER, 0, NULL, 0x22, PTL_SUM, PTL_INT32_T));
    cf_expect(eq, PTL_EVENT_REPLY, "unexpected PtlFetchAtomic");
    E2E_CHECK(over_res[0] == 101 && over_res[1] == 202, "unexpected PtlFetchAtomic fetched {%d, %d}, expected "
              "{101, 202}", over_res[0], over_res[1]);
    /* A fetching atomic needs PTL_ME_OP_GET: the entry without it does not match. */
    E2E_OK(PtlFetchAtomic(ores, 0, osrc, 0, 8, peer, PT_ATOM, BITS_PUTONLY, 0, NULL, 0, PTL_SUM, PTL_INT32_T));
    cf_expect_fail(eq, PTL_EVENT_REPLY, PTL_NI_DROPPED, 1, "PtlFetchAtomic to an entry without PTL_ME_OP_GET");
    E2E_OK(PtlAtomic(osrc, 0, 8, PTL_ACK_REQ, peer, PT_ATOM, BITS_PUTONLY, 0, NULL, 0, PTL_MAX, PTL_INT32_T));
    cf_expect(eq, PTL_EVENT_ACK, "PtlAtomic to an entry without PTL_ME_OP_GET");
    e2e_barrier(); /* 3 */
    e2e_barrier(); /* 4: the target checked */

    E2E_OK(PtlMDRelease(src));
    E2E_OK(PtlMDRelease(res));
    E2E_OK(PtlMDRelease(fin));
    E2E_OK(PtlMDRelease(osrc));
    E2E_OK(PtlMDRelease(ores));
    cf_expect_empty(eq, "initiator EQ at the end");
    E2E_OK(PtlEQFree(eq));
}

static void target(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 1024, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_ATOM, &pt));
    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o)
            fill_role(t, o, case_of(t, o), 0, target_buf + (size_t)case_of(t, o) * SLOT);
    ptl_handle_me_t main_me = cf_append(ni, PT_ATOM, target_buf, sizeof target_buf, BITS_MAIN,
                                        PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                                        PTL_PRIORITY_LIST, target_buf);
    over_buf[0] = 100;
    over_buf[1] = 200;
    putonly_buf[0] = 5;
    putonly_buf[1] = -5;
    ptl_handle_me_t over_me = cf_append(ni, PT_ATOM, over_buf, sizeof over_buf, BITS_OVER,
                                        PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                                        PTL_OVERFLOW_LIST, over_buf);
    ptl_handle_me_t putonly_me = cf_append(ni, PT_ATOM, putonly_buf, sizeof putonly_buf, BITS_PUTONLY,
                                           PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                                           PTL_PRIORITY_LIST, putonly_buf);
    e2e_barrier(); /* 0: entries posted */
    e2e_barrier(); /* 1 */

    /* One FETCH_ATOMIC per fetching operation, one ATOMIC per plain one, in order. */
    for (int t = 0; t < NTYPES; ++t)
        for (int o = 0; o < NOPS; ++o) {
            if (!allowed(o, t))
                continue;
            const int c = case_of(t, o);
            const size_t len = items_of(o) * type_size(t);
            char what[80];
            snprintf(what, sizeof what, "target, %s on %s", op_names[o], type_names[t]);
            ptl_event_t ev = cf_expect(eq, PTL_EVENT_FETCH_ATOMIC, what);
            E2E_CHECK(ev.atomic_operation == ops[o] && ev.atomic_type == types[t] && ev.mlength == len &&
                          ev.rlength == len && ev.remote_offset == (ptl_size_t)c * SLOT &&
                          ev.start == target_buf + (size_t)c * SLOT && ev.hdr_data == (ptl_hdr_data_t)c &&
                          ev.match_bits == BITS_MAIN && ev.initiator.rank == 0 && ev.user_ptr == target_buf &&
                          ev.ptl_list == PTL_PRIORITY_LIST,
                      "%s: FETCH_ATOMIC with operation %d, datatype %d, mlength %llu, rlength %llu, "
                      "remote_offset %llu, hdr_data %llu", what, (int)ev.atomic_operation, (int)ev.atomic_type,
                      (unsigned long long)ev.mlength, (unsigned long long)ev.rlength,
                      (unsigned long long)ev.remote_offset, (unsigned long long)ev.hdr_data);
            if (!is_swap(o)) {
                ev = cf_expect(eq, PTL_EVENT_ATOMIC, what);
                E2E_CHECK(ev.atomic_operation == ops[o] && ev.atomic_type == types[t] && ev.mlength == len &&
                              ev.hdr_data == (ptl_hdr_data_t)c,
                          "%s: ATOMIC with operation %d, datatype %d, mlength %llu", what,
                          (int)ev.atomic_operation, (int)ev.atomic_type, (unsigned long long)ev.mlength);
            }
        }
    cf_expect(eq, PTL_EVENT_GET, "target, final Get");
    cf_expect_empty(eq, "target EQ after the main part");
    e2e_barrier(); /* 2 */
    e2e_barrier(); /* 3: unexpected atomics sent */

    /* Delivered to the overflow entry: plain events flagged with the list. */
    ptl_event_t ev = cf_expect(eq, PTL_EVENT_ATOMIC, "unexpected PtlAtomic");
    E2E_CHECK(ev.ptl_list == PTL_OVERFLOW_LIST && ev.user_ptr == over_buf, "unexpected PtlAtomic: ptl_list %d, "
              "user_ptr %p", (int)ev.ptl_list, ev.user_ptr);
    ev = cf_expect(eq, PTL_EVENT_FETCH_ATOMIC, "unexpected PtlFetchAtomic");
    E2E_CHECK(ev.ptl_list == PTL_OVERFLOW_LIST, "unexpected PtlFetchAtomic: ptl_list %d", (int)ev.ptl_list);
    ev = cf_expect(eq, PTL_EVENT_ATOMIC, "PtlAtomic to the put-only entry");
    E2E_CHECK(ev.user_ptr == putonly_buf && ev.atomic_operation == PTL_MAX, "put-only entry: user_ptr %p, "
              "operation %d", ev.user_ptr, (int)ev.atomic_operation);
    E2E_CHECK(putonly_buf[0] == 5 && putonly_buf[1] == 2, "MAX on the put-only entry: {%d, %d}, expected {5, 2}",
              putonly_buf[0], putonly_buf[1]);
    E2E_CHECK(over_buf[0] == 111 && over_buf[1] == 222, "overflow buffer {%d, %d}, expected {111, 222}",
              over_buf[0], over_buf[1]);
    cf_expect_empty(eq, "target EQ before the append");

    /* A priority append finds both headers, oldest first. */
    ptl_handle_me_t prio = cf_append(ni, PT_ATOM, prio_buf, sizeof prio_buf, BITS_OVER,
                                     PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                                     PTL_PRIORITY_LIST, prio_buf);
    ev = cf_expect(eq, PTL_EVENT_ATOMIC_OVERFLOW, "append after an unexpected PtlAtomic");
    E2E_CHECK(ev.start == over_buf && ev.user_ptr == prio_buf && ev.mlength == 8 && ev.rlength == 8 &&
                  ev.hdr_data == 0x11 && ev.atomic_operation == PTL_SUM && ev.atomic_type == PTL_INT32_T &&
                  ev.match_bits == BITS_OVER && ev.initiator.rank == 0 && ev.ptl_list == PTL_OVERFLOW_LIST,
              "ATOMIC_OVERFLOW: start %p (expected %p), user_ptr %p, mlength %llu, hdr_data 0x%llx, operation %d, "
              "datatype %d", ev.start, (void *)over_buf, ev.user_ptr, (unsigned long long)ev.mlength,
              (unsigned long long)ev.hdr_data, (int)ev.atomic_operation, (int)ev.atomic_type);
    ev = cf_expect(eq, PTL_EVENT_FETCH_ATOMIC_OVERFLOW, "append after an unexpected PtlFetchAtomic");
    E2E_CHECK(ev.start == over_buf && ev.hdr_data == 0x22 && ev.atomic_operation == PTL_SUM &&
                  ev.atomic_type == PTL_INT32_T,
              "FETCH_ATOMIC_OVERFLOW: start %p, hdr_data 0x%llx, operation %d, datatype %d", ev.start,
              (unsigned long long)ev.hdr_data, (int)ev.atomic_operation, (int)ev.atomic_type);
    cf_expect_empty(eq, "target EQ after the append");
    E2E_CHECK(prio_buf[0] == 0 && prio_buf[1] == 0, "the appended entry's buffer was written");
    e2e_barrier(); /* 4 */

    E2E_OK(PtlMEUnlink(main_me));
    E2E_OK(PtlMEUnlink(over_me));
    E2E_OK(PtlMEUnlink(putonly_me));
    E2E_OK(PtlMEUnlink(prio));
    E2E_OK(PtlPTFree(ni, PT_ATOM));
    E2E_OK(PtlEQFree(eq));
}

int main(void)
{
    ptl_ni_limits_t limits;
    ptl_handle_ni_t ni = e2e_init(&limits);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    if (e2e_rank == 0) {
        e2e_barrier(); /* 0 */
        initiator(ni, &limits);
    } else {
        target(ni);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("atomics");
}
