/*
 * A simple-PMI client, as MPI libraries carry one: the PMI-1 calls over the
 * wire protocol of PMI_FD (newline-terminated "cmd=... key=value" lines).
 * Header-only, for the test programs; written from the protocol, not taken
 * from any library.
 */
#ifndef SIMPLE_PMI_H
#define SIMPLE_PMI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMI_SUCCESS 0
#define PMI_FAIL (-1)

static int pmi_fd = -1;

static int pmi_send(const char *line)
{
    size_t done = 0, length = strlen(line);
    while (done < length) {
        ssize_t n = write(pmi_fd, line + done, length - done);
        if (n <= 0)
            return PMI_FAIL;
        done += (size_t)n;
    }
    return PMI_SUCCESS;
}

/* Reads one answer line (blocking: the rank waits for the process manager). */
static int pmi_receive(char *line, size_t size)
{
    size_t used = 0;
    while (used + 1 < size) {
        ssize_t n = read(pmi_fd, line + used, 1);
        if (n <= 0)
            return PMI_FAIL;
        if (line[used] == '\n')
            break;
        used++;
    }
    line[used] = '\0';
    return PMI_SUCCESS;
}

/* Value of key in an answer line, copied to value (empty if absent). */
static void pmi_field(const char *line, const char *key, char *value, size_t size)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "%s=", key);
    value[0] = '\0';
    for (const char *p = line; (p = strstr(p, pattern)) != NULL; p++) {
        if (p != line && p[-1] != ' ')
            continue;
        p += strlen(pattern);
        size_t n = strcspn(p, " ");
        if (n >= size)
            n = size - 1;
        memcpy(value, p, n);
        value[n] = '\0';
        return;
    }
}

/* Sends a command and checks the answer's cmd= and rc=0. */
static int pmi_call(const char *request, const char *expected_cmd, char *answer, size_t size)
{
    char value[64];
    if (pmi_send(request) != PMI_SUCCESS || pmi_receive(answer, size) != PMI_SUCCESS)
        return PMI_FAIL;
    pmi_field(answer, "cmd", value, sizeof value);
    if (strcmp(value, expected_cmd) != 0)
        return PMI_FAIL;
    pmi_field(answer, "rc", value, sizeof value);
    return strcmp(value, "0") == 0 ? PMI_SUCCESS : PMI_FAIL;
}

static int PMI_Init(int *spawned)
{
    const char *fd = getenv("PMI_FD");
    char answer[256];
    if (fd == NULL)
        return PMI_FAIL;
    pmi_fd = atoi(fd);
    *spawned = 0;
    return pmi_call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", answer, sizeof answer);
}

static int PMI_Get_rank(int *rank)
{
    const char *text = getenv("PMI_RANK");
    if (text == NULL)
        return PMI_FAIL;
    *rank = atoi(text);
    return PMI_SUCCESS;
}

static int PMI_Get_size(int *size)
{
    const char *text = getenv("PMI_SIZE");
    if (text == NULL)
        return PMI_FAIL;
    *size = atoi(text);
    return PMI_SUCCESS;
}

static int PMI_Get_universe_size(int *size)
{
    char answer[256], value[32];
    if (pmi_call("cmd=get_universe_size\n", "universe_size", answer, sizeof answer) != PMI_SUCCESS)
        return PMI_FAIL;
    pmi_field(answer, "size", value, sizeof value);
    *size = atoi(value);
    return PMI_SUCCESS;
}

static int PMI_Get_appnum(int *appnum)
{
    char answer[256], value[32];
    if (pmi_call("cmd=get_appnum\n", "appnum", answer, sizeof answer) != PMI_SUCCESS)
        return PMI_FAIL;
    pmi_field(answer, "appnum", value, sizeof value);
    *appnum = atoi(value);
    return PMI_SUCCESS;
}

static int PMI_KVS_Get_name_length_max(int *length)
{
    char answer[256], value[32];
    if (pmi_call("cmd=get_maxes\n", "maxes", answer, sizeof answer) != PMI_SUCCESS)
        return PMI_FAIL;
    pmi_field(answer, "kvsname_max", value, sizeof value);
    *length = atoi(value);
    return PMI_SUCCESS;
}

static int PMI_KVS_Get_my_name(char *name, int length)
{
    char answer[512];
    if (pmi_call("cmd=get_my_kvsname\n", "my_kvsname", answer, sizeof answer) != PMI_SUCCESS)
        return PMI_FAIL;
    pmi_field(answer, "kvsname", name, (size_t)length);
    return PMI_SUCCESS;
}

static int PMI_KVS_Put(const char *kvs, const char *key, const char *value)
{
    char request[1024], answer[256];
    snprintf(request, sizeof request, "cmd=put kvsname=%s key=%s value=%s\n", kvs, key, value);
    return pmi_call(request, "put_result", answer, sizeof answer);
}

static int PMI_KVS_Commit(const char *kvs)
{
    (void)kvs; /* puts are sent at once: nothing to commit */
    return PMI_SUCCESS;
}

static int PMI_KVS_Get(const char *kvs, const char *key, char *value, int length)
{
    char request[1024], answer[2048];
    snprintf(request, sizeof request, "cmd=get kvsname=%s key=%s\n", kvs, key);
    if (pmi_call(request, "get_result", answer, sizeof answer) != PMI_SUCCESS)
        return PMI_FAIL;
    pmi_field(answer, "value", value, (size_t)length);
    return PMI_SUCCESS;
}

static int PMI_Barrier(void)
{
    char answer[256];
    return pmi_call("cmd=barrier_in\n", "barrier_out", answer, sizeof answer);
}

static int PMI_Finalize(void)
{
    char answer[256];
    return pmi_call("cmd=finalize\n", "finalize_ack", answer, sizeof answer);
}

__attribute__((noreturn)) static void PMI_Abort(int exit_code, const char *message)
{
    char request[512];
    snprintf(request, sizeof request, "cmd=abort exitcode=%d\n", exit_code);
    (void)message;
    pmi_send(request);
    for (;;)
        pause(); /* the process manager ends the job */
}

#endif
