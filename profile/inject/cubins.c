/*
 * cubins.c - the code of the measured kernels, for atomutil-profile --opcodes (docs/opcodes.md).
 * With ATOMUTIL_CUBIN_DIR set, every module's cubin is kept when it is loaded (with -k a plain
 * identifier, only those that name it: au_select_literal); at the first measured
 * launch of each kernel that ran atomics (the report prices no other), and for the kernel nodes of
 * measured graph launches, the cubin holding its code (the one with a ".text.<mangled name>"
 * section) is written to that directory as <crc>.cubin, and a line
 *     ==ATOMUTIL== <pid> code: <crc> <mangled name> <demangled name>
 * goes to the output file, so that atomutil-profile can disassemble the kernel and read the opcodes
 * of its shared atomics.
 */
#define _GNU_SOURCE /* memmem, MAP_ANONYMOUS, MAP_POPULATE */
#include "cubins.h"

#include "base.h"
#include "kernels.h"
#include "sass_scan.h"
#include "select.h"

#include "atomutil/util.h"
#include "counters_file.h"

#include <cupti_pcsampling.h> /* cuptiGetCubinCrc */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* cubins from this size up are copied into pages of their own, made at once (copy_of) */
#define AU_CUBIN_MAP_MIN (256 * 1024)

typedef struct cubin {
    uint64_t crc;
    int have_crc;
    char *data;
    size_t size;
    int written;
} cubin;

typedef struct seen_kernel {
    uint64_t hash;
    char *name; /* mangled */
    int done;   /* found and written, or given up */
    int misses; /* launches after which no kept cubin held it */
} seen_kernel;

/* The kept cubins are appended by the module-load callback, which the driver calls holding a lock
 * of its own that au_g.lock's holders also take (inside CUDA calls): so that callback takes only
 * s.lock, never au_g.lock, and nothing is called while s.lock is held (ThreadSanitizer's
 * lock-order report, docs/reliability.md).  Each cubin is allocated once and never moves or
 * changes but for crc/have_crc/written, which only au_g.lock's holders touch. */
static struct {
    pthread_mutex_t lock;
    cubin **v;
    size_t n, cap;
    double t_loaded;   /* seconds in the module-load callback */
    size_t skipped;    /* modules not kept: they do not name -k's text (au_select_literal) */
    seen_kernel *seen; /* au_g.lock */
    size_t nseen, capseen;
} s = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The i-th kept cubin, NULL past the last. */
static cubin *cubin_at(size_t i)
{
    pthread_mutex_lock(&s.lock);
    cubin *cb = i < s.n ? s.v[i] : NULL;
    pthread_mutex_unlock(&s.lock);
    return cb;
}

static size_t cubin_count(void)
{
    pthread_mutex_lock(&s.lock);
    size_t n = s.n;
    pthread_mutex_unlock(&s.lock);
    return n;
}

static size_t cubin_skipped(void)
{
    pthread_mutex_lock(&s.lock);
    size_t n = s.skipped;
    pthread_mutex_unlock(&s.lock);
    return n;
}

/* Set at init, before any callback, and only read after. */
static const char *cubin_dir;

void au_cubin_init(void)
{
    cubin_dir = au_cf_getenv(AU_ENV_CUBIN_DIR);
}

const char *au_cubin_dir(void)
{
    return cubin_dir;
}

/* The CRC is computed when the cubin is needed, not in the module-load callback: a module can load
 * while a stream is being captured, and no CUPTI call may run then (it broke the capture). */
static int crc_of(cubin *cb)
{
    if (cb->have_crc)
        return 0;
    CUpti_GetCubinCrcParams cp = {.size = CUpti_GetCubinCrcParamsSize};
    cp.cubinSize = cb->size;
    cp.cubin = cb->data;
    CUPTI_CHECK(cuptiGetCubinCrc(&cp), return -1);
    cb->crc = cp.cubinCrc;
    cb->have_crc = 1;
    return 0;
}

/* A copy of n bytes whose pages are made in one call: copying a training loop's 120 MB of cubins
 * into fresh malloc'd memory cost 0.07-0.13 s, most of it page faults (docs/performance.md). */
static char *copy_of(const char *src, size_t n)
{
    char *p = NULL;
    if (n >= AU_CUBIN_MAP_MIN) {
        void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        p = m == MAP_FAILED ? NULL : m;
    }
    if (!p && !(p = malloc(n)))
        return NULL;
    memcpy(p, src, n);
    return p;
}

void au_cubin_loaded(const CUpti_ModuleResourceData *m)
{
    if (!m || !m->pCubin || m->cubinSize == 0)
        return;
    double t0 = au_now();
    /* with -k IDENT only modules that name it can hold a selected kernel (graph launches' other
     * nodes lose their code: au_cubin_note_launch says so per kernel) */
    const char *lit = au_select_literal();
    if (lit && !memmem(m->pCubin, m->cubinSize, lit, strlen(lit))) {
        pthread_mutex_lock(&s.lock);
        s.skipped++;
        s.t_loaded += au_now() - t0;
        pthread_mutex_unlock(&s.lock);
        return;
    }
    pthread_mutex_lock(&s.lock);
    int have = 0;
    for (size_t i = 0; i < s.n && !have; ++i)
        have = s.v[i]->size == m->cubinSize && memcmp(s.v[i]->data, m->pCubin, m->cubinSize) == 0;
    cubin *cb = NULL;
    if (!have && au_grow(&s.v, &s.cap, s.n, sizeof *s.v, 16) == 0 && (cb = calloc(1, sizeof *cb)) &&
        (cb->data = copy_of(m->pCubin, m->cubinSize))) {
        cb->size = m->cubinSize;
        s.v[s.n++] = cb;
    } else if (cb) {
        free(cb);
    }
    s.t_loaded += au_now() - t0;
    pthread_mutex_unlock(&s.lock);
}

double au_cubin_load_seconds(size_t *kept, size_t *bytes, size_t *skipped)
{
    pthread_mutex_lock(&s.lock);
    double t = s.t_loaded;
    *kept = s.n;
    *skipped = s.skipped;
    *bytes = 0;
    for (size_t i = 0; i < s.n; ++i)
        *bytes += s.v[i]->size;
    pthread_mutex_unlock(&s.lock);
    return t;
}

/* Writes cb to the cubin directory as <name>.cubin (once); 0 on success. */
static int write_cubin(cubin *cb, const char *name)
{
    if (cb->written)
        return 0;
    if (!cubin_dir)
        return -1;
    char path[4096];
    mkdir(cubin_dir, 0755);
    snprintf(path, sizeof path, "%s/%s.cubin", cubin_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(cb->data, 1, cb->size, f) != cb->size) {
        au_diag(AU_CF_WARNING, "cannot write cubin %s", path);
        if (f)
            fclose(f);
        return -1;
    }
    if (fclose(f) != 0) {
        au_diag(AU_CF_WARNING, "cannot write cubin %s", path);
        return -1;
    }
    cb->written = 1;
    return 0;
}

static uint64_t fnv1a(const char *p)
{
    uint64_t h = 1469598103934665603ull;
    for (; *p; ++p)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* The most recently loaded kept cubin that holds kernel `mangled` (its section ".text.<mangled>"),
 * NULL when none does: a module loads during its kernel's first launch. */
static cubin *holder(const char *mangled)
{
    for (size_t i = cubin_count(); i-- > 0;) {
        cubin *cb = cubin_at(i);
        if (au_cubin_text(cb->data, cb->size, mangled, NULL, NULL) == 0)
            return cb;
    }
    return NULL;
}

int au_cubin_forms(const char *mangled)
{
    if (!cubin_dir || !mangled || !*mangled)
        return -1;
    const cubin *cb = holder(mangled);
    return cb ? au_sass_scan(cb->data, cb->size, mangled) : -1;
}

/* The atomic forms (AU_SASS_* bits) of kernel func's code, kept in its au_kernel_info; -1 while
 * not known. */
static int kernel_forms(const void *func)
{
    au_kernel_info *k = au_kernel_info_of(func);
    if (!k || !k->mangled)
        return -1;
    if (k->forms == 0 && k->scans < 3) {
        int f = au_cubin_forms(k->mangled);
        if (f >= 0)
            k->forms = (signed char)(f + 1);
        else
            k->scans++;
    }
    return k->forms > 0 ? k->forms - 1 : -1;
}

int au_cubin_generic(const void *func)
{
    int f = kernel_forms(func);
    return f > 0 && (f & AU_SASS_GENERIC) != 0;
}

void au_cubin_note_launch(const char *mangled)
{
    if (!cubin_dir || !mangled || !*mangled)
        return;
    uint64_t h = fnv1a(mangled);
    seen_kernel *k = NULL;
    for (size_t i = 0; i < s.nseen && !k; ++i)
        if (s.seen[i].hash == h && strcmp(s.seen[i].name, mangled) == 0)
            k = &s.seen[i];
    if (k && k->done)
        return;
    if (!k) {
        if (au_grow(&s.seen, &s.capseen, s.nseen, sizeof *s.seen, 64) != 0)
            return;
        char *copy = strdup(mangled);
        if (!copy)
            return;
        k = &s.seen[s.nseen++];
        *k = (seen_kernel){h, copy, 0, 0};
    }
    /* this runs when the launch's range is decoded, as its call returns: its module is loaded */
    cubin *cb = holder(mangled);
    if (!cb) {
        if (++k->misses == 3) {
            k->done = 1;
            const char *lit = au_select_literal();
            if (lit && cubin_skipped())
                au_diag(AU_CF_WARNING,
                        "no kept module holds kernel %s: its opcodes are unknown (with -k %s, modules that "
                        "do not name '%s' were not kept)",
                        mangled, lit, lit);
            else
                au_diag(AU_CF_WARNING, "no loaded module holds kernel %s: its opcodes are unknown", mangled);
        }
        return;
    }
    k->done = 1;
    if (crc_of(cb) != 0)
        return;
    char name[32];
    snprintf(name, sizeof name, "%u", (uint32_t)cb->crc);
    if (write_cubin(cb, name) != 0)
        return;
    char *demangled = au_demangle(mangled);
    const char *dn = demangled ? demangled : mangled;
    size_t len = strlen(mangled) + strlen(dn) + 96;
    char *line = malloc(len);
    if (line) {
        int n = au_cf_head(line, len, au_pid(), AU_CF_CODE); /* 96 bytes hold it and the CRC */
        n += snprintf(line + n, len - (size_t)n, "%s %s %s\n", name, mangled, dn);
        for (int i = 0; i + 1 < n; ++i)
            if (line[i] == '\n' || line[i] == '\r')
                line[i] = ' ';
        if (n > 0)
            au_write_all(line, (size_t)n);
        free(line);
    }
    free(demangled);
}
