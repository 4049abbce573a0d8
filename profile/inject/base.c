/*
 * base.c - what every module of the injection library uses: the shared state au_g, writing to the
 * output file ('==ATOMUTIL==' diagnostics, CSV quoting, CUPTI errors), the pending-launch list,
 * detached threads, the clock and demangling.  It calls no other module, so that inject.c (the
 * callbacks), cubins.c, share.c and the collectors only depend on it, never on each other through it.
 */

#include "inject_internal.h"

#include "atomutil/util.h"
#include "counters_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* C++ demangler of the C++ runtime (libstdc++), so that kernel names read as ncu prints them. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

inject_state au_g = {.lock = PTHREAD_MUTEX_INITIALIZER,
                     .graph_done = PTHREAD_COND_INITIALIZER,
                     .launch_done = PTHREAD_COND_INITIALIZER,
                     .early_lock = PTHREAD_MUTEX_INITIALIZER,
                     .fd = -1};

/* ------------------------------------------------------------------ output */

/* Writes all of buf with one write() where possible: O_APPEND keeps concurrent writers (several
 * processes of one target) from interleaving within a call. */
void au_write_all(const char *buf, size_t len)
{
    while (len > 0 && au_g.fd >= 0) {
        ssize_t n = write(au_g.fd, buf, len);
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
    int n = au_cf_head(line, sizeof line, au_g.pid, kind);
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
    int n = au_cf_timing_format(line, sizeof line, au_g.pid, t);
    if (n > 0 && (size_t)n < sizeof line)
        au_write_all(line, (size_t)n);
}

void au_csv_quote(const char *s, char *buf, size_t size)
{
    size_t k = 0;
    for (; s && *s && k + 2 < size; ++s) {
        if (*s == '"')
            buf[k++] = '"';
        buf[k++] = *s;
    }
    buf[k] = '\0';
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
                 name, au_g.pid);
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
