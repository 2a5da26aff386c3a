/*
 * pmi_library: libs4bxi-pmi.so used the way OpenMPI's pmix/flux component
 * uses a PMI-1 library: FLUX_PMI_LIBRARY_PATH names it, it is dlopen'ed with
 * RTLD_NOW | RTLD_GLOBAL and every call is looked up with dlsym.
 *
 *   pmi_library LIBRARY           under s4bxi-run: rank, size, universe,
 *       appnum, maxes, clique; each rank puts its host name, a value with
 *       spaces (leading, inner, trailing) and a value of the longest length
 *       allowed, commits, barriers and reads every rank's values (also from
 *       two threads at once); gethostname() and uname() give the simulated
 *       node's name, the same for exactly the ranks of the clique. Prints
 *       "rank R: host H clique a,b" for the test to compare with the
 *       placement.
 *   pmi_library LIBRARY abort     under s4bxi-run: rank 1 calls PMI_Abort(9).
 *   pmi_library LIBRARY outside   not under s4bxi-run (libportals preloaded,
 *       S4BXI_HOSTNAME set): the real host name, and a singleton PMI job.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PMI_SUCCESS 0
#define PMI_FAIL (-1)
#define PMI_ERR_INVALID_KEY 4
#define PMI_ERR_INVALID_VAL_LENGTH 7
#define PMI_ERR_INVALID_LENGTH 8

static int failures = 0;
static int my_rank = -1;

/* Each evaluates its condition once (it may be a call). */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "pmi_library: rank %d: FAIL line %d: ", my_rank,   \
                    __LINE__);                                                 \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        int before_ = failures;                                                \
        CHECK(cond, __VA_ARGS__);                                              \
        if (failures != before_)                                               \
            exit(1);                                                           \
    } while (0)

/* The calls OpenMPI's flux component looks up, with its own types. */
static int (*pmi_init)(int *);
static int (*pmi_initialized)(int *);
static int (*pmi_finalize)(void);
static int (*pmi_get_size)(int *);
static int (*pmi_get_rank)(int *);
static int (*pmi_get_universe_size)(int *);
static int (*pmi_get_appnum)(int *);
static int (*pmi_barrier)(void);
static int (*pmi_abort)(int, const char *);
static int (*pmi_kvs_get_my_name)(char *, int);
static int (*pmi_kvs_get_name_length_max)(int *);
static int (*pmi_kvs_get_key_length_max)(int *);
static int (*pmi_kvs_get_value_length_max)(int *);
static int (*pmi_kvs_put)(const char *, const char *, const char *);
static int (*pmi_kvs_commit)(const char *);
static int (*pmi_kvs_get)(const char *, const char *, char *, int);
static int (*pmi_get_clique_size)(int *);
static int (*pmi_get_clique_ranks)(int *, int);

static void *dso;

static void lookup(void **slot, const char *name)
{
    *slot = dlsym(dso, name);
    REQUIRE(*slot != NULL, "dlsym(%s): %s", name, dlerror());
}

static void load(const char *library)
{
    setenv("FLUX_PMI_LIBRARY_PATH", library, 1);
    dso = dlopen(getenv("FLUX_PMI_LIBRARY_PATH"), RTLD_NOW | RTLD_GLOBAL);
    REQUIRE(dso != NULL, "dlopen(%s): %s", library, dlerror());
    lookup((void **)&pmi_init, "PMI_Init");
    lookup((void **)&pmi_initialized, "PMI_Initialized");
    lookup((void **)&pmi_finalize, "PMI_Finalize");
    lookup((void **)&pmi_get_size, "PMI_Get_size");
    lookup((void **)&pmi_get_rank, "PMI_Get_rank");
    lookup((void **)&pmi_get_universe_size, "PMI_Get_universe_size");
    lookup((void **)&pmi_get_appnum, "PMI_Get_appnum");
    lookup((void **)&pmi_barrier, "PMI_Barrier");
    lookup((void **)&pmi_abort, "PMI_Abort");
    lookup((void **)&pmi_kvs_get_my_name, "PMI_KVS_Get_my_name");
    lookup((void **)&pmi_kvs_get_name_length_max, "PMI_KVS_Get_name_length_max");
    lookup((void **)&pmi_kvs_get_key_length_max, "PMI_KVS_Get_key_length_max");
    lookup((void **)&pmi_kvs_get_value_length_max, "PMI_KVS_Get_value_length_max");
    lookup((void **)&pmi_kvs_put, "PMI_KVS_Put");
    lookup((void **)&pmi_kvs_commit, "PMI_KVS_Commit");
    lookup((void **)&pmi_kvs_get, "PMI_KVS_Get");
    lookup((void **)&pmi_get_clique_size, "PMI_Get_clique_size");
    lookup((void **)&pmi_get_clique_ranks, "PMI_Get_clique_ranks");
}

/* The host name as the program sees it, checked against uname(). */
static void host_name(char *name, size_t size)
{
    struct utsname u;
    REQUIRE(gethostname(name, size) == 0, "gethostname failed");
    REQUIRE(uname(&u) == 0, "uname failed");
    CHECK(strcmp(u.nodename, name) == 0, "uname gives '%s', gethostname '%s'", u.nodename, name);
}

static int vallen_max;
static char kvs[256];

static void spaced_value(int rank, char *out, size_t size)
{
    snprintf(out, size, "  rank %d:  spaces,  key=value  and trailing spaces  ", rank);
}

/* vallen_max - 1 characters (the longest a value may be), spaces at both
 * ends and inside, like OpenMPI's space-padded base64 chunks. */
static void long_value(int rank, char *out)
{
    int length = vallen_max - 1;
    for (int i = 0; i < length; i++)
        out[i] = (i == 0 || i == length - 1 || i % 10 == 5) ? ' ' : (char)('A' + (i * 7 + rank) % 26);
    out[length] = '\0';
}

static void key_of(char *key, size_t size, int rank, const char *what)
{
    snprintf(key, size, "4242-%d-%s", rank, what); /* OpenMPI's jobid-vpid-key form */
}

static int size_g;

/* Reads and checks the spaced and long values of every rank. */
static int check_values(void)
{
    int bad = 0;
    char key[64], expected_spaced[128];
    char *got = malloc((size_t)vallen_max), *expected = malloc((size_t)vallen_max);
    for (int r = 0; r < size_g; r++) {
        key_of(key, sizeof key, r, "spaced");
        spaced_value(r, expected_spaced, sizeof expected_spaced);
        if (pmi_kvs_get(kvs, key, got, vallen_max) != PMI_SUCCESS || strcmp(got, expected_spaced) != 0) {
            fprintf(stderr, "pmi_library: rank %d: %s is '%s', expected '%s'\n", my_rank, key, got, expected_spaced);
            bad++;
        }
        key_of(key, sizeof key, r, "long");
        long_value(r, expected);
        if (pmi_kvs_get(kvs, key, got, vallen_max) != PMI_SUCCESS || strcmp(got, expected) != 0) {
            fprintf(stderr, "pmi_library: rank %d: %s (%zu characters) differs from the %zu put\n", my_rank, key,
                    strlen(got), strlen(expected));
            bad++;
        }
    }
    free(got);
    free(expected);
    return bad;
}

static void *reader(void *unused)
{
    (void)unused;
    long bad = 0;
    for (int round = 0; round < 5; round++)
        bad += check_values();
    return (void *)bad;
}

static int outside(void)
{
    /* The real name, although S4BXI_HOSTNAME is set: not a rank. */
    char name[256];
    struct utsname real;
    host_name(name, sizeof name);
    REQUIRE(syscall(SYS_uname, &real) == 0, "uname system call failed");
    CHECK(strcmp(name, real.nodename) == 0, "host name '%s', the machine's is '%s'", name, real.nodename);
    const char *fake = getenv("S4BXI_HOSTNAME");
    CHECK(fake == NULL || strcmp(name, fake) != 0, "the simulated name reached a process that is not a rank");

    /* No PMI_FD: a singleton job. */
    int spawned = -1, rank = -1, size = 0, clique = 0, ranks[1] = {-1};
    char value[64];
    REQUIRE(pmi_init(&spawned) == PMI_SUCCESS, "singleton PMI_Init");
    CHECK(pmi_get_rank(&rank) == PMI_SUCCESS && rank == 0, "singleton rank %d", rank);
    CHECK(pmi_get_size(&size) == PMI_SUCCESS && size == 1, "singleton size %d", size);
    CHECK(pmi_get_clique_size(&clique) == PMI_SUCCESS && clique == 1, "singleton clique size %d", clique);
    CHECK(pmi_get_clique_ranks(ranks, 1) == PMI_SUCCESS && ranks[0] == 0, "singleton clique");
    CHECK(pmi_kvs_get_my_name(kvs, sizeof kvs) == PMI_SUCCESS, "singleton kvs name");
    CHECK(pmi_kvs_put(kvs, "k", " a b ") == PMI_SUCCESS, "singleton put");
    CHECK(pmi_kvs_commit(kvs) == PMI_SUCCESS && pmi_barrier() == PMI_SUCCESS, "singleton commit and barrier");
    CHECK(pmi_kvs_get(kvs, "k", value, sizeof value) == PMI_SUCCESS && strcmp(value, " a b ") == 0,
          "singleton get");
    CHECK(pmi_finalize() == PMI_SUCCESS, "singleton finalize");
    if (failures)
        return 1;
    printf("pmi_library: singleton: all checks passed\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pmi_library LIBRARY [abort|outside]\n");
        return 2;
    }
    load(argv[1]);
    const char *mode = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "outside") == 0)
        return outside();

    int initialized = -1, spawned = -1, rank = -1, size = 0, universe = 0, appnum = -1;
    int kvslen_max = 0, keylen_max = 0;
    CHECK(pmi_initialized(&initialized) == PMI_SUCCESS && initialized == 0, "initialized before PMI_Init");
    REQUIRE(pmi_init(&spawned) == PMI_SUCCESS, "PMI_Init");
    CHECK(spawned == 0, "spawned %d", spawned);
    CHECK(pmi_initialized(&initialized) == PMI_SUCCESS && initialized == 1, "not initialized after PMI_Init");
    REQUIRE(pmi_get_rank(&rank) == PMI_SUCCESS, "PMI_Get_rank");
    my_rank = rank;
    REQUIRE(pmi_get_size(&size) == PMI_SUCCESS && size > 1, "PMI_Get_size %d", size);
    size_g = size;
    CHECK(rank == atoi(getenv("PMI_RANK")) && size == atoi(getenv("PMI_SIZE")), "rank or size");
    CHECK(pmi_get_universe_size(&universe) == PMI_SUCCESS && universe == size, "universe %d", universe);
    CHECK(pmi_get_appnum(&appnum) == PMI_SUCCESS && appnum == 0, "appnum %d", appnum);
    REQUIRE(pmi_kvs_get_value_length_max(&vallen_max) == PMI_SUCCESS && vallen_max >= 1024, "vallen %d",
            vallen_max);
    REQUIRE(pmi_kvs_get_name_length_max(&kvslen_max) == PMI_SUCCESS && kvslen_max > 0 &&
                kvslen_max <= (int)sizeof kvs, "kvslen %d", kvslen_max);
    REQUIRE(pmi_kvs_get_key_length_max(&keylen_max) == PMI_SUCCESS && keylen_max >= 64, "keylen %d", keylen_max);
    REQUIRE(pmi_kvs_get_my_name(kvs, kvslen_max) == PMI_SUCCESS && kvs[0] != '\0', "kvs name");
    char tiny[2];
    CHECK(pmi_kvs_get_my_name(tiny, sizeof tiny) == PMI_ERR_INVALID_LENGTH, "a too short buffer must be refused");

    if (strcmp(mode, "abort") == 0 && rank == 1)
        pmi_abort(9, "abort through libs4bxi-pmi");

    /* The clique: this rank among them, in increasing order. */
    int clique_size = 0;
    REQUIRE(pmi_get_clique_size(&clique_size) == PMI_SUCCESS && clique_size >= 1 && clique_size <= size,
            "clique size %d", clique_size);
    int *clique = calloc((size_t)clique_size, sizeof *clique);
    CHECK(clique_size < 2 || pmi_get_clique_ranks(clique, clique_size - 1) == PMI_ERR_INVALID_LENGTH,
          "a too short rank array must be refused");
    REQUIRE(pmi_get_clique_ranks(clique, clique_size) == PMI_SUCCESS, "PMI_Get_clique_ranks");
    int in_clique = 0;
    char clique_text[256] = "";
    for (int i = 0; i < clique_size; i++) {
        in_clique |= clique[i] == rank;
        CHECK(i == 0 || clique[i] > clique[i - 1], "clique not in rank order");
        snprintf(clique_text + strlen(clique_text), sizeof clique_text - strlen(clique_text), "%s%d", i ? "," : "",
                 clique[i]);
    }
    CHECK(in_clique, "rank %d is not in its own clique %s", rank, clique_text);

    /* Publish: host name, a value with spaces, the longest value. */
    char host[256], key[64], value[128];
    host_name(host, sizeof host);
    char *long_one = malloc((size_t)vallen_max + 1);
    key_of(key, sizeof key, rank, "host");
    CHECK(pmi_kvs_put(kvs, key, host) == PMI_SUCCESS, "put %s", key);
    key_of(key, sizeof key, rank, "spaced");
    spaced_value(rank, value, sizeof value);
    CHECK(pmi_kvs_put(kvs, key, value) == PMI_SUCCESS, "put %s", key);
    key_of(key, sizeof key, rank, "long");
    long_value(rank, long_one);
    CHECK(pmi_kvs_put(kvs, key, long_one) == PMI_SUCCESS, "put %s (%d characters)", key, vallen_max - 1);
    memset(long_one, 'x', (size_t)vallen_max);
    long_one[vallen_max] = '\0';
    CHECK(pmi_kvs_put(kvs, "4242-too-long", long_one) == PMI_ERR_INVALID_VAL_LENGTH, "a value of vallen_max characters");
    CHECK(pmi_kvs_put(kvs, "a key", "x") == PMI_ERR_INVALID_KEY, "a key with a space");
    CHECK(pmi_kvs_commit(kvs) == PMI_SUCCESS, "commit");
    CHECK(pmi_barrier() == PMI_SUCCESS, "barrier");

    /* Everybody's values, from this thread then from two at once. */
    failures += check_values();
    pthread_t threads[2];
    for (int t = 0; t < 2; t++)
        REQUIRE(pthread_create(&threads[t], NULL, reader, NULL) == 0, "pthread_create");
    for (int t = 0; t < 2; t++) {
        void *bad = NULL;
        pthread_join(threads[t], &bad);
        CHECK(bad == NULL, "thread %d read %ld wrong values", t, (long)bad);
    }
    CHECK(pmi_kvs_get(kvs, "4242-no-such-key", value, sizeof value) == PMI_FAIL, "a missing key must fail");

    /* Host names: the same exactly on the ranks of the clique. */
    int others_on_other_nodes = 0;
    for (int r = 0; r < size; r++) {
        char theirs[256];
        int same_node = 0;
        for (int i = 0; i < clique_size; i++)
            same_node |= clique[i] == r;
        key_of(key, sizeof key, r, "host");
        CHECK(pmi_kvs_get(kvs, key, theirs, sizeof theirs) == PMI_SUCCESS, "get %s", key);
        CHECK(same_node == (strcmp(theirs, host) == 0), "rank %d is on '%s', this rank on '%s', clique %s", r,
              theirs, host, clique_text);
        others_on_other_nodes += !same_node;
    }
    CHECK(others_on_other_nodes == size - clique_size, "ranks of other nodes");
    printf("pmi_library: rank %d: host %s clique %s\n", rank, host, clique_text);

    CHECK(pmi_barrier() == PMI_SUCCESS, "last barrier");
    CHECK(pmi_finalize() == PMI_SUCCESS, "finalize");
    CHECK(pmi_initialized(&initialized) == PMI_SUCCESS && initialized == 0, "initialized after PMI_Finalize");
    dlclose(dso);
    free(clique);
    free(long_one);
    if (failures) {
        fprintf(stderr, "pmi_library: rank %d: %d check(s) FAILED\n", rank, failures);
        return 1;
    }
    printf("pmi_library: rank %d: all checks passed\n", rank);
    return 0;
}
