/*
 * live_files.c - a live run's files (live_files.h): the counters file and the cubins' directory
 * made under BASE before the program runs (BASE with atomutil-profile's pid for %p until the
 * program's is known), the selection passed in the environment, the table prefetched while the
 * program runs, the counters file read once (run.h) for the relay and the report, and after the
 * report the files removed (a complete report without -o) or kept.
 */
#include "live_files.h"

#include "ncu_import.h"
#include "opcodes.h"
#include "outname.h"
#include "tables.h"

#include "atomutil/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "atomutil-profile";

/* The table a live run's report will most likely use, loaded while the program runs (the GPU
 * checks give device 0; the report's first launch names the GPU that picks the table, and the
 * prefetched one is used only if that pick is the same file). */
static struct {
    char *path;
    au_table *table;
} prefetch;

static void prefetch_table(void *ud, const live_result *res)
{
    const cli_options *o = ud;
    char *path = NULL;
    if (o->table_path)
        path = strdup(o->table_path);
    else if (au_pick_table(res->gpu_name, res->cc_major, res->cc_minor, &path, NULL) != AU_OK)
        path = NULL;
    au_table *t = NULL;
    if (path && au_table_load(path, &t) == AU_OK) {
        prefetch.path = path;
        prefetch.table = t;
        return;
    }
    free(path); /* the report loads it again and says what is wrong */
}

static void prefetch_free(void)
{
    au_table_free(prefetch.table);
    free(prefetch.path);
    prefetch.table = NULL;
    prefetch.path = NULL;
}

au_table *au_live_files_prefetched(const char *path)
{
    if (!prefetch.table || strcmp(prefetch.path, path) != 0)
        return NULL;
    au_table *t = prefetch.table; /* the caller's now */
    prefetch.table = NULL;
    return t;
}

void au_live_files_prefetch_free(void)
{
    prefetch_free();
}

/* The selection, for the injection library (profile/inject/select.c): unset where not given, so
 * that nothing from the caller's environment selects instead.  n: room for each value. */
static void selection_env(const cli_options *o, const char *env[AU_ENV_COUNT], char n[3][32])
{
    snprintf(n[0], sizeof n[0], "%ld", o->skip);
    snprintf(n[1], sizeof n[1], "%ld", o->count);
    snprintf(n[2], sizeof n[2], "%ld", o->per_kernel);
    env[AU_ENV_KERNEL_REGEX] = o->regex;
    env[AU_ENV_LAUNCH_SKIP] = o->skip > 0 ? n[0] : NULL;
    env[AU_ENV_LAUNCH_COUNT] = o->count >= 0 ? n[1] : NULL;
    env[AU_ENV_LAUNCHES_PER_KERNEL] = o->per_kernel >= 0 ? n[2] : NULL;
    env[AU_ENV_PROFILE_FROM_START] = o->from_start;
}

/* A live run's files, made before its pid was known (%p as atomutil-profile's own), renamed to
 * name its pid; where that fails they keep their names, and warn gets the warning (said after the
 * injection library's lines, which the run wrote first). */
static void rename_to_pid(const cli_options *o, run_files *f, char *warn, size_t wsize)
{
    char base[4096], counters[4200], cubins[4200];
    if (au_outname_base(o->out_base, f->lr.pid, base, sizeof base) >= 0 || strcmp(base, f->base) == 0)
        return;
    snprintf(counters, sizeof counters, "%s.counters.csv", base);
    snprintf(cubins, sizeof cubins, "%s.cubins", base);
    if (rename(f->counters, counters) != 0 ||
        (f->cubin_dir[0] && access(f->cubin_dir, F_OK) == 0 && rename(f->cubin_dir, cubins) != 0)) {
        snprintf(warn, wsize, "%s: warning: cannot rename %s to %s (%%p, the program's pid): %s; BASE stays %s\n", prog,
                 f->counters, counters, strerror(errno), f->base);
        rename(counters, f->counters); /* back, where the cubins could not follow */
        return;
    }
    au_strlcpy(f->base, base, sizeof f->base);
    au_strlcpy(f->counters, counters, sizeof f->counters);
    if (f->cubin_dir[0])
        au_strlcpy(f->cubin_dir, cubins, sizeof f->cubin_dir);
}

/* The program's run under CUPTI into f->counters (BASE from -o with this process's pid for %p,
 * else atomutil-PID).  0 when it ran, or the exit status. */
static int run_program(const cli_options *o, run_files *f)
{
    int st;
    /* %p is the program's pid, known after the fork: the files get this process's first */
    if (o->out_base && (st = au_outname_base(o->out_base, (long)getpid(), f->base, sizeof f->base)) >= 0)
        return st;
    if (!o->out_base)
        snprintf(f->base, sizeof f->base, "atomutil-%ld", (long)getpid());
    snprintf(f->counters, sizeof f->counters, "%s.counters.csv", f->base);
    if (o->opcodes)
        snprintf(f->cubin_dir, sizeof f->cubin_dir, "%s.cubins", f->base);
    live_pass pass = {.path = f->counters,
                      .header = AU_NCU_CSV_HEADER,
                      .cubin_dir = o->opcodes ? f->cubin_dir : NULL,
                      .while_running = prefetch_table,
                      .ud = (void *)o};
    char counts[3][32];
    selection_env(o, pass.env, counts);
    return au_live_run_pass(o->program, &pass, &f->lr);
}

/* Nothing was measured: says why (a failed check, the library's errors, the selection, or no
 * kernel at all).  The exit status. */
static int nothing_measured(const cli_options *o, const run_files *f)
{
    const live_result *lr = &f->lr;
    if (f->cubin_dir[0])
        rmdir(f->cubin_dir);  /* only if empty */
    if (lr->check_error[0]) { /* the cause, not "no launch was measured" */
        fprintf(stderr, "%s: %s\n", prog, lr->check_error);
        return lr->exit_status != 0 ? lr->exit_status : LIVE_EXIT_SETUP;
    }
    int selected = o->regex || o->skip || o->count >= 0 || o->per_kernel >= 0 || o->from_start;
    fprintf(stderr, "%s: no kernel launch was measured%s (counters file %s)\n", prog,
            lr->tool_errors ? ": profiling failed, see above"
            : selected      ? ": none was selected (check -k / --launch-skip / --launch-count / "
                              "--launches-per-kernel / --profile-from-start)"
                            : ": the program launched no kernel, or did not use CUDA",
            f->counters);
    return lr->exit_status != 0 ? lr->exit_status : lr->tool_errors ? LIVE_EXIT_SETUP : EXIT_NOLAUNCH;
}

int au_live_files_run(const cli_options *o, run_files *f, timing *tm)
{
    live_result *lr = &f->lr;
    int st = run_program(o, f);
    if (st != 0)
        return st;
    char warn[16384] = "";
    if (o->out_base && au_outname_has_pid(o->out_base))
        rename_to_pid(o, f, warn, sizeof warn);
    tm->live = 1;
    tm->run_s = lr->run_s;
    f->live_file[0] = f->counters;
    f->files = f->live_file;
    f->nfiles = 1;
    f->runs = f->live_run;
    /* the counters file read once: the report's launches, and what the library said */
    double t = au_monotonic_s();
    au_cf_run_read(f->counters, 0, &f->rep, &f->runs[0]);
    tm->report_s += au_monotonic_s() - t;
    au_live_relay(&f->runs[0], o->quiet, lr);
    fputs(warn, stderr);
    if (lr->rows == 0)
        return nothing_measured(o, f);
    char name[1024]; /* the program's name, cleaned for the terminal */
    au_text_fit(o->program[0], name, sizeof name, 0, 0);
    if (lr->signal && !o->quiet)
        fprintf(stderr,
                "%s: warning: %s was ended by signal %d; the report covers the launches "
                "measured before it (counters kept in %s)\n",
                prog, name, lr->signal, f->counters);
    else if (lr->exit_status != 0 && !o->quiet)
        fprintf(stderr,
                "%s: warning: %s exited with status %d; the report covers the launches "
                "measured before it ended (counters kept in %s)\n",
                prog, name, lr->exit_status, f->counters);
    return -1;
}

int au_live_files_finish(const cli_options *o, const run_files *f, int rc)
{
    const live_result *lr = &f->lr;
    if (rc == EXIT_OK && !o->out_base && !lr->signal && lr->exit_status == 0 && lr->tool_errors == 0) {
        unlink(f->counters); /* complete and reported: nothing left to keep */
        if (o->opcodes)
            au_opcodes_remove(f->cubin_dir);
    } else if (rc != EXIT_OK || !o->out_base) {
        fprintf(stderr, "%s: counters kept in %s%s%s\n", prog, f->counters, o->opcodes ? ", kernel code in " : "",
                o->opcodes ? f->cubin_dir : "");
    }
    if (o->opcodes && f->cubin_dir[0])
        rmdir(f->cubin_dir); /* only if empty: no kernel code was kept */
    return lr->exit_status != 0 ? lr->exit_status : rc;
}

void au_live_files_free(run_files *f)
{
    for (size_t i = 0; f->runs && i < f->nfiles; ++i)
        au_cf_run_free(&f->runs[i]);
    if (f->runs != f->live_run)
        free(f->runs);
    f->runs = NULL;
    au_report_free(&f->rep);
}
