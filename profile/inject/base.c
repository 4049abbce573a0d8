/*
 * base.c - what every module of the injection library uses (base.h): the library's lock and shared
 * facts, the process's identity, the counters file and its lines ('==ATOMUTIL==' diagnostics,
 * timing lines, CUPTI errors), detached threads, the clock and demangling.  It calls no other
 * module, so that every module can depend on it without a circle.
 */

#include "base.h"

#include "atomutil/util.h"
#include "counters_file.h"
#include "ncu_import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* C++ demangler of the C++ runtime (libstdc++), so that kernel names read as ncu prints them. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

inject_shared au_g = {.lock = PTHREAD_MUTEX_INITIALIZER, .early_lock = PTHREAD_MUTEX_INITIALIZER};

static int fd = -1; /* the counters file, O_APPEND */
static long pid;
static char proc_name[64];

/* ------------------------------------------------------------------ output */

static void open_output(void)
{
    const char *path = au_cf_getenv(AU_ENV_COUNTERS_FILE);
    char def[64];
    if (!path || !*path) {
        snprintf(def, sizeof def, "atomutil-%ld.counters.csv", pid);
        path = def;
    }
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    off_t end = lseek(fd, 0, SEEK_END);
    if (end == 0)
        au_write_all(AU_NCU_CSV_HEADER, strlen(AU_NCU_CSV_HEADER));
}

void au_output_open(void)
{
    pid = (long)getpid();
    FILE *f = fopen("/proc/self/comm", "r");
    if (f) {
        if (fgets(proc_name, sizeof proc_name, f))
            proc_name[strcspn(proc_name, "\n\"")] = '\0';
        fclose(f);
    }
    open_output();
}

void au_output_close(void)
{
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
}

long au_pid(void)
{
    return pid;
}

const char *au_proc_name(void)
{
    return proc_name;
}

/* Writes all of buf with one write() where possible: O_APPEND keeps concurrent writers (several
 * processes of one target) from interleaving within a call. */
void au_write_all(const char *buf, size_t len)
{
    while (len > 0 && fd >= 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* One line "==ATOMUTIL== <pid> <kind>: <prefix><text>" (newlines in the text made blanks). */
static void diag_line(au_cf_kind kind, const char *prefix, const char *fmt, va_list ap)
{
    char msg[768], line[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *p = msg; *p; ++p)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    int n = au_cf_head(line, sizeof line, pid, kind);
    if (n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%s\n", prefix, msg);
    if (n > 0)
        au_write_all(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void au_diag(au_cf_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_line(kind, "", fmt, ap);
    va_end(ap);
}

void au_error(au_cf_errcat cat, const char *fmt, ...)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", au_cf_errcat_word(cat));
    va_list ap;
    va_start(ap, fmt);
    diag_line(AU_CF_ERROR, prefix, fmt, ap);
    va_end(ap);
}

void au_timing(const au_cf_timing *t)
{
    char line[2048];
    int n = au_cf_timing_format(line, sizeof line, pid, t);
    if (n > 0 && (size_t)n < sizeof line)
        au_write_all(line, (size_t)n);
}

static const char *cupti_err(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

/* The error category is what atomutil-profile explains to the user (live.c). */
void au_report_cupti(const char *call, CUptiResult r)
{
    const char *name = call;
    const char *paren = strchr(call, '(');
    char fn[96];
    if (paren && (size_t)(paren - call) < sizeof fn) {
        memcpy(fn, call, (size_t)(paren - call));
        fn[paren - call] = '\0';
        name = fn;
    }
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: au_error(AU_CF_E_PERMISSION, "%s: %s", name, cupti_err(r)); break;
    case CUPTI_ERROR_HARDWARE_BUSY:
        /* measured: children of a profiled process on the same GPU (multiprocessing) get this
         * while the parent's range profiler is enabled (docs/live-profiling.md) */
        au_error(AU_CF_E_BUSY,
                 "%s: the GPU's counters are held by another process (one process at a time "
                 "can profile a GPU): the launches of process %ld on this device are not measured",
                 name, pid);
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        au_error(AU_CF_E_SUBSCRIBER, "%s: %s", name, cupti_err(r));
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED: au_error(AU_CF_E_UNSUPPORTED, "%s: %s", name, cupti_err(r)); break;
    default: au_error(AU_CF_E_CUPTI, "%s: %s", name, cupti_err(r));
    }
}

/* ------------------------------------------------------------------ threads, time, names */

int au_spawn_detached(void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    pthread_t t;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc;
}

double au_now(void)
{
    return au_monotonic_s();
}

char *au_demangle(const char *name)
{
    if (!name)
        return strdup("<unknown kernel>");
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return strdup(name);
}
