/*
 * live.h - running an unmodified CUDA program under atomutil's CUPTI injection library and
 * collecting its counters file (docs/live-profiling.md).
 */
#ifndef ATOMUTIL_PROFILE_LIVE_H
#define ATOMUTIL_PROFILE_LIVE_H

#include "counters_file.h"
#include "run.h"

/* Exit statuses of setup failures in live mode, as env(1) and timeout(1) use them. */
enum { LIVE_EXIT_SETUP = 125, LIVE_EXIT_NOEXEC = 126, LIVE_EXIT_NOTFOUND = 127 };

typedef struct live_result {
    int started;           /* the target was started */
    long pid;              /* its process id (atomutil-profile's child), 0 before */
    int exit_status;       /* the target's status: its exit code, or 128 + signal */
    int signal;            /* the signal that ended it, 0 if it exited */
    int tool_errors;       /* '==ATOMUTIL== error' lines the injection library wrote (au_live_relay) */
    int permission;        /* one of them was a missing profiling permission */
    long rows;             /* CSV data rows in the counters file, 0: no launch was measured (au_live_relay) */
    double run_s;          /* the target's wall time, from fork to exit */
    char check_error[600]; /* a check made while the target ran failed: why (said if nothing was measured) */
    char gpu_name[256];    /* device 0, as the checks found it ("" unknown) */
    int cc_major, cc_minor;
} live_result;

/* One run of the target: the file the injection library appends to, its header and the directory
 * for the kernels' cubins (NULL: none kept); env: the values of the other variables that
 * atomutil-profile decides (cf_env.def; NULL: unset). */
typedef struct live_pass {
    const char *path, *header, *cubin_dir;
    const char *env[AU_ENV_COUNT];
    /* called on a thread of atomutil-profile while the target runs, once the GPU checks passed
     * and device 0 is known (res's gpu_name and compute capability): work done then costs the run
     * no time (NULL: none) */
    void (*while_running)(void *ud, const struct live_result *res);
    void *ud;
} live_pass;

/* Runs argv[0..] with the injection library as pass says (the file created with its header first).
 * Prints setup errors on stderr (one line each) and returns 0 when the target ran, else the
 * LIVE_EXIT_* status. */
int au_live_run_pass(char *const argv[], const live_pass *pass, live_result *res);

/* After the run, its counters file read (run): says the injection library's errors, and its
 * warnings unless quiet (each text once), and sets res's tool_errors, permission and rows. */
void au_live_relay(const au_cf_run *run, int quiet, live_result *res);

#endif
