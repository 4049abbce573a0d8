/*
 * ncu_import.c - Nsight Compute CSV export reader: the details page (long format) and the raw page.
 *
 * The details page: a header row ("ID","Process ID",...,"Metric Name","Metric Unit","Metric Value")
 * and then one fully quoted row per launch and metric.  The raw page (--page raw): a header with
 * one column per metric ("sm__cycles_active.avg"), a units line (its ID empty), then one row per
 * launch; only the columns of the metrics the model reads are looked at, each value as a details
 * row's.  The profiled application's stdout and ncu's ==PROF== / ==WARNING== lines can appear
 * before and between those rows.  Rule: before the header every line is skipped; after it, a line
 * that starts with '"' (after blanks) is a CSV row and must parse with exactly the header's columns,
 * any other line is foreign output and skipped.  Values carry thousands separators ("1,980,000"),
 * units may be scaled ("Kinst", "usecond") and "n/a" marks a metric the GPU lacks; a counter given
 * in a unit of another kind ("%" on cycles) is not stored (au_counters.wrong_unit).
 */
#include "ncu_import.h"

#include "atomutil/csvline.h"
#include "atomutil/util.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT_MAX_BYTES ((size_t)1 << 30)

/* A file given as the other kind: what it is and where it goes. */
#define TABLE_NOT_EXPORT                                                                                 \
    "this is a service-time table (atomutil-calibrate's CSV), not an Nsight Compute export or counters " \
    "file; pass it with --table"
#define EXPORT_NOT_TABLE \
    "this is an Nsight Compute export or counters file, not a service-time table; pass it with --import"
/* The widest header read: the raw page of a report of every section has a few thousand columns. */
#define MAX_COLS 65536
/* seen_bits and the raw page's columns: one slot per metric the model reads (au_metric_defs). */
#define MAX_DEFS 32

/* Columns we read; index into col[] */
enum { C_ID, C_PID, C_KERNEL, C_BLOCK, C_GRID, C_CC, C_METRIC, C_UNIT, C_VALUE, C_N };
static const char *const col_names[C_N] = {"ID", "Process ID",  "Kernel Name", "Block Size",  "Grid Size",
                                           "CC", "Metric Name", "Metric Unit", "Metric Value"};
static const int col_required[C_N] = {1, 0, 1, 0, 0, 0, 2, 0, 2}; /* 2: of the details page only */

/* One error message format for the whole reader. */
static int fail(const char *name, long line, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return au_set_error_at(AU_E_PARSE, name, line, "%s", msg);
}

int au_ncu_next_fields(struct csv_parser *p, const char **s, const char *e, au_csv_wide *fs, const char *name,
                       long *lineno)
{
    while (*s < e) {
        const char *line = *s, *nl = memchr(line, '\n', (size_t)(e - line));
        size_t ll = (size_t)((nl ? nl : e) - line);
        *s = nl ? nl + 1 : e;
        ++*lineno;
        if (ll && line[ll - 1] == '\r')
            --ll;
        if (!ll || line[0] != '"')
            continue;
        int rc = au_csv_split_wide(p, line, ll, fs);
        if (rc == AU_E_NOMEM)
            return rc;
        if (rc != AU_OK || fs->overflow)
            return au_set_error(AU_E_PARSE, "%s:%ld: malformed CSV line", name, *lineno);
        return 1;
    }
    return 0;
}

int au_ncu_column(const au_csv_wide *fs, const char *name)
{
    for (int i = 0; i < fs->n; ++i)
        if (strcmp(fs->f[i], name) == 0)
            return i;
    return -1;
}

/* "1,980,000" / "26,073.14" / "-3" -> double; AU_E_PARSE if not a finite number, or if the
 * commas are not thousands separators of the integer part ("1,5" or "26.073,14" would otherwise
 * read as 15 and 26.07314). */
int au_ncu_parse_value(const char *s, double *out)
{
    char buf[64];
    size_t o = 0;
    int run = 0, grouped = 0, in_int = 1; /* run: digits since the last ',' */
    /* --print-metric-instances writes "AGGREGATE (INSTANCES)": the aggregate is the value */
    const char *inst = strstr(s, " (");
    const char *end = inst && s[strlen(s) - 1] == ')' ? inst : s + strlen(s);
    for (const char *p = s; p < end; ++p) {
        if (*p == ',') { /* 1-3 digits before the first separator, exactly 3 after each */
            if (!in_int || run == 0 || run > 3 || (grouped && run != 3))
                return AU_E_PARSE;
            grouped = 1;
            run = 0;
            continue;
        }
        if (*p >= '0' && *p <= '9') {
            ++run;
        } else if (in_int && (*p == '.' || *p == 'e' || *p == 'E')) {
            if (grouped && run != 3)
                return AU_E_PARSE;
            in_int = 0;
        }
        if (o + 1 >= sizeof buf)
            return AU_E_PARSE;
        buf[o++] = *p;
    }
    if (in_int && grouped && run != 3)
        return AU_E_PARSE;
    buf[o] = '\0';
    return au_parse_double(buf, out);
}

/* Multiplier from a unit string to the base unit the model uses (counts, cycles, ns). */
static int unit_scale(const char *unit, const char *metric, double *scale)
{
    static const struct {
        const char *u;
        double k;
    } time_units[] = {{"ns", 1},   {"nsecond", 1},   {"us", 1e3}, {"usecond", 1e3},
                      {"ms", 1e6}, {"msecond", 1e6}, {"s", 1e9},  {"second", 1e9}};
    *scale = 1;
    if (!*unit)
        return AU_OK;
    if (strcmp(metric, AU_METRIC_DURATION) == 0) {
        for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; ++i)
            if (strcmp(unit, time_units[i].u) == 0) {
                *scale = time_units[i].k;
                return AU_OK;
            }
        return AU_E_PARSE;
    }
    /* counts: optional K/M/G/T prefix before the base unit (inst, cycle, warp, ...) */
    double k = 1;
    const char *base = unit;
    switch (unit[0]) {
    case 'K': k = 1e3; break;
    case 'M': k = 1e6; break;
    case 'G': k = 1e9; break;
    case 'T': k = 1e12; break;
    }
    if (k != 1 && unit[1])
        base = unit + 1;
    else
        k = 1;
    static const char *const bases[] = {"inst",      "cycle", "warp",  "byte",   "sector", "request",
                                        "wavefront", "SM",    "block", "thread", "pass",   "register"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; ++i) {
        size_t bl = strlen(bases[i]);
        /* accept "cycle", "cycle/cycle" style ratios only without prefix */
        if (strncmp(base, bases[i], bl) == 0 && (base[bl] == '\0' || base[bl] == '/')) {
            *scale = base[bl] == '/' ? 1 : k;
            return AU_OK;
        }
    }
    if (strcmp(unit, "%") == 0)
        return AU_OK;
    return AU_E_PARSE;
}

/* 1 when unit (one unit_scale accepts) is of the kind of a metric whose base unit is base: none,
 * or base with an optional K/M/G/T prefix or as a ratio ("warp/cycle"); not "%", a time, another
 * count ("inst" on a count of cycles). */
static int unit_fits(const char *unit, const char *base)
{
    if (!*unit)
        return 1;
    if (strchr("KMGT", unit[0]) && unit[1])
        ++unit;
    size_t bl = strlen(base);
    return bl && strncmp(unit, base, bl) == 0 && (unit[bl] == '\0' || unit[bl] == '/');
}

/* ---------------------------------------------------------------- launch lookup */

typedef struct {
    long long pid, id;
    size_t idx; /* launch index in the report + 1; 0 = empty slot */
} slot;

typedef struct {
    slot *s;
    size_t cap, used;
} launch_map;

static size_t hash2(long long a, long long b)
{
    unsigned long long h = (unsigned long long)a * 0x9E3779B97F4A7C15ull ^ (unsigned long long)b;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 32));
}

static int map_grow(launch_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return AU_E_NOMEM;
    for (size_t i = 0; i < m->cap; ++i) {
        if (!m->s[i].idx)
            continue;
        size_t h = hash2(m->s[i].pid, m->s[i].id) & (ncap - 1);
        while (ns[h].idx)
            h = (h + 1) & (ncap - 1);
        ns[h] = m->s[i];
    }
    free(m->s);
    m->s = ns;
    m->cap = ncap;
    return AU_OK;
}

/* Finds the slot of (pid, id), or the empty slot where it goes. */
static slot *map_find(launch_map *m, long long pid, long long id)
{
    size_t h = hash2(pid, id) & (m->cap - 1);
    while (m->s[h].idx && !(m->s[h].pid == pid && m->s[h].id == id))
        h = (h + 1) & (m->cap - 1);
    return &m->s[h];
}

/* Per-launch bookkeeping kept beside the report: which metrics were seen (for duplicates). */
typedef struct {
    unsigned seen_bits; /* one bit per au_metric_defs entry (at most MAX_DEFS) */
} launch_extra;

/* ---------------------------------------------------------------- reader */

/* One whole number of a grid or block at *p (blanks around it skipped), 0..UINT_MAX; -1 if none. */
static int dim_number(const char **p, unsigned *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        ++s;
    unsigned long long v = 0;
    const char *digits = s;
    for (; *s >= '0' && *s <= '9'; ++s)
        if ((v = v * 10 + (unsigned)(*s - '0')) > UINT_MAX)
            return -1;
    if (s == digits)
        return -1;
    while (*s == ' ' || *s == '\t')
        ++s;
    *out = (unsigned)v;
    *p = s;
    return 0;
}

/* "(528, 1, 1)", as ncu and atomutil's counters files write a grid or block, into d[3]; -1 when the
 * text is anything else ("528", "(528, 1)", "(-1, 1, 1)", "(5e2, 1, 1)"). */
static int parse_dims(const char *s, unsigned d[3])
{
    if (*s++ != '(')
        return -1;
    for (int i = 0; i < 3; ++i)
        if (dim_number(&s, &d[i]) != 0 || *s++ != (i < 2 ? ',' : ')'))
            return -1;
    return *s == '\0' ? 0 : -1;
}

/* The grid and block columns of the row in fs into l (read once, at the launch's first row): a
 * value that is not "(X, Y, Z)" refuses the export, as a malformed number does. */
static int read_dims(const char *name, long line, const char *const *f, const int *col, au_launch *l)
{
    static const struct {
        int col;
        unsigned bit;
    } dims[] = {{C_GRID, AU_DIMS_GRID}, {C_BLOCK, AU_DIMS_BLOCK}};
    for (size_t i = 0; i < 2; ++i) {
        int c = col[dims[i].col];
        if (c < 0)
            continue;
        if (parse_dims(f[c], dims[i].bit == AU_DIMS_GRID ? l->grid : l->block) != 0)
            return fail(name, line, "%s '%.40s' is not (X, Y, Z) of whole numbers", col_names[dims[i].col], f[c]);
        l->dims |= dims[i].bit;
    }
    if (l->dims & AU_DIMS_GRID) /* the blocks a hot DSMEM receiver's cluster count needs */
        l->ctr.blocks = (double)l->grid[0] * l->grid[1] * l->grid[2];
    return AU_OK;
}

/* After a repeated header, a launch seen twice is most likely the same process's launch in both
 * exports: says so. */
static const char *appended_hint(long header_again, char *buf, size_t size)
{
    if (!header_again)
        return "";
    snprintf(buf, size, " (the header repeats on line %ld: the same run's exports appended?)", header_again);
    return buf;
}

/* What a reader keeps while it reads an export, line by line (au_ncu_reader). */
struct au_ncu_reader {
    const char *name;
    au_report *r;
    const au_metric_def *defs;
    size_t ndefs;
    struct csv_parser p;
    au_csv_wide fs; /* the fields of the current line */
    launch_map map;
    launch_extra *extra; /* per launch read from this export, from first_launch on */
    size_t extra_cap, first_launch;
    int col[C_N], ncols;
    char hint[96];
    long lineno, header_line, rows, header_again;
    int seen_text, table; /* a line not blank read; the first such was a service-time table's */
    char *header;         /* the header line as read */
    char *line;           /* the current row, copied */
    size_t line_cap;
    /* the raw page: its header has a column per metric and no metric name, unit or value */
    int raw, want_units;      /* want_units: the row after a header, its units line */
    int def_col[MAX_DEFS];    /* the column of each metric the model reads, -1 none */
    char *def_unit[MAX_DEFS]; /* ... its unit, from the units line */
    char *units;              /* the first units line as read, and */
    long units_line;          /* ... its number */
};
typedef struct au_ncu_reader import_state;

/* The raw page's header in st->fs: the column of each metric the model reads (def_col). */
static int raw_columns(import_state *st)
{
    for (int i = 0; i < st->fs.n; ++i)
        for (size_t di = 0; di < st->ndefs; ++di)
            if (strcmp(st->fs.f[i], st->defs[di].name) == 0) {
                if (st->def_col[di] >= 0)
                    return fail(st->name, st->lineno, "column \"%s\" appears twice in the header", st->defs[di].name);
                st->def_col[di] = i;
            }
    st->want_units = 1;
    return AU_OK;
}

/* The header line: finds the columns read (col[]), and whether it is the raw page's.  AU_OK or the
 * error. */
static int read_header(import_state *st, const char *line, size_t ll)
{
    int rc;
    au_csv_wide *fs = &st->fs;
    if ((rc = au_csv_split_wide(&st->p, line, ll, fs)) != AU_OK || fs->overflow)
        return rc == AU_E_NOMEM ? au_set_error(AU_E_NOMEM, "out of memory")
               : fs->overflow   ? fail(st->name, st->lineno, "header has more than %d columns", MAX_COLS)
                                : fail(st->name, st->lineno, "malformed CSV header");
    for (int i = 0; i < fs->n; ++i)
        for (int k = 0; k < C_N; ++k)
            if (strcmp(fs->f[i], col_names[k]) == 0) {
                if (st->col[k] >= 0)
                    return fail(st->name, st->lineno, "column \"%s\" appears twice in the header", col_names[k]);
                st->col[k] = i;
            }
    int metric_cols = 0; /* --page raw names one column per metric: "sm__cycles_active.avg" */
    for (int i = 0; i < fs->n; ++i)
        metric_cols += strstr(fs->f[i], "__") != NULL;
    st->raw = metric_cols > 0 && st->col[C_METRIC] < 0 && st->col[C_UNIT] < 0 && st->col[C_VALUE] < 0;
    for (int k = 0; k < C_N; ++k)
        if (col_required[k] && st->col[k] < 0 && !(st->raw && col_required[k] == 2))
            return fail(st->name, st->lineno, "column \"%s\" missing from the header", col_names[k]);
    if (st->raw && (rc = raw_columns(st)) != AU_OK)
        return rc;
    st->ncols = fs->n;
    st->header_line = st->lineno;
    if (!(st->header = strdup(line)))
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_csv_wide_clear(fs);
    return AU_OK;
}

/* A new launch of the export for the row in st->fs: its name, grid, block and compute capability. */
static int new_launch(import_state *st, slot *sl, long long pid, long long id, au_launch **out)
{
    const char *const *f = (const char *const *)st->fs.f;
    const int *col = st->col;
    au_launch *l = au_report_add(st->r);
    if (!l)
        return AU_E_NOMEM;
    size_t li = st->r->count - 1 - st->first_launch;
    if (au_grow(&st->extra, &st->extra_cap, li, sizeof *st->extra, 64) != 0) /* li counts up by one */
        return au_set_error(AU_E_NOMEM, "out of memory");
    st->extra[li].seen_bits = 0;
    sl->pid = pid;
    sl->id = id;
    sl->idx = st->r->count;
    st->map.used++;
    l->id = id;
    l->pid = pid;
    *out = l;
    if (!(l->kernel = strdup(f[col[C_KERNEL]])))
        return au_set_error(AU_E_NOMEM, "out of memory");
    int rc = read_dims(st->name, st->lineno, f, col, l);
    if (rc != AU_OK)
        return rc;
    if (col[C_CC] >= 0) {
        int maj, min, used = 0;
        const char *cc = f[col[C_CC]];
        if (sscanf(cc, "%2d.%2d%n", &maj, &min, &used) != 2 || cc[used] || maj < 1 || min < 0)
            return fail(st->name, st->lineno, "CC '%.20s' is not MAJOR.MINOR", cc);
        l->cc_major = maj;
        l->cc_minor = min;
    }
    return AU_OK;
}

/* The launch of the row in st->fs, found by (process, ID) or added.  *idx: its slot's index. */
static int row_launch(import_state *st, au_launch **out, size_t *idx, long long *idp)
{
    const char *const *f = (const char *const *)st->fs.f;
    long long id, pid = -1;
    long v;
    if (au_parse_long(f[st->col[C_ID]], &v) || v < 0)
        return fail(st->name, st->lineno, "ID '%.40s' is not a launch number", f[st->col[C_ID]]);
    id = v;
    if (st->col[C_PID] >= 0) {
        if (au_parse_long(f[st->col[C_PID]], &v) || v < 0)
            return fail(st->name, st->lineno, "Process ID '%.40s' is not a number", f[st->col[C_PID]]);
        pid = v;
    }
    *idp = id;
    if (st->map.used * 2 >= st->map.cap && map_grow(&st->map) != AU_OK)
        return au_set_error(AU_E_NOMEM, "out of memory");
    slot *sl = map_find(&st->map, pid, id);
    if (!sl->idx) {
        int rc = new_launch(st, sl, pid, id, out);
        *idx = sl->idx;
        return rc;
    }
    *out = &st->r->launches[sl->idx - 1];
    *idx = sl->idx;
    if (strcmp((*out)->kernel, f[st->col[C_KERNEL]]) != 0)
        return fail(st->name, st->lineno, "launch ID %lld changes kernel name between rows%s", id,
                    appended_hint(st->header_again, st->hint, sizeof st->hint));
    return AU_OK;
}

/* Metric di of the model (au_metric_defs), value in unit, into launch l (slot index idx): a
 * counter, the SM count, the duration or the device name.  A details row's or a raw column's. */
static int put_metric(import_state *st, au_launch *l, size_t idx, long long id, size_t di, const char *unit,
                      const char *value)
{
    const char *metric = st->defs[di].name;
    const char *name = st->name;
    long lineno = st->lineno;
    launch_extra *ex = &st->extra[idx - 1 - st->first_launch];
    if (ex->seen_bits & (1u << di))
        return fail(name, lineno, "duplicate row for metric %s of launch ID %lld%s", metric, id,
                    appended_hint(st->header_again, st->hint, sizeof st->hint));
    ex->seen_bits |= 1u << di;
    if (strcmp(value, "n/a") == 0)
        return AU_OK; /* the GPU lacks it: stays missing */
    if (strcmp(metric, AU_METRIC_DEVICE_NAME) == 0) {
        au_strlcpy(l->device, value, sizeof l->device);
        return AU_OK;
    }
    double v, scale;
    if (au_ncu_parse_value(value, &v) != AU_OK)
        return fail(name, lineno, "value '%.40s' of %s is not a finite number", value, metric);
    if (v < 0)
        return fail(name, lineno, "value %s of %s is negative", value, metric);
    if (unit_scale(unit, metric, &scale) != AU_OK)
        return fail(name, lineno, "unknown unit '%.20s' of %s", unit, metric);
    if (st->defs[di].counter && !unit_fits(unit, st->defs[di].unit)) {
        l->ctr.wrong_unit |= st->defs[di].counter; /* not used: the launch's verdict is unknown */
        return AU_OK;
    }
    v *= scale;
    if (!isfinite(v)) /* a finite value in a scaled unit can overflow: 9e307 Kinst */
        return fail(name, lineno, "value '%.40s' %.20s of %s is too large", value, unit, metric);
    if (strcmp(metric, AU_METRIC_SM_COUNT) == 0) {
        if (v < 1 || v > 100000 || v != floor(v))
            return fail(name, lineno, "SM count %s is not a positive integer", value);
        l->sm_count = (int)v;
    } else if (strcmp(metric, AU_METRIC_DURATION) == 0) {
        l->duration_ns = v;
    } else {
        au_counters_set(&l->ctr, metric, v);
    }
    return AU_OK;
}

/* A details page's row: one metric of one launch; a metric the model does not use is skipped. */
static int details_row(import_state *st)
{
    const char *const *f = (const char *const *)st->fs.f;
    const char *metric = f[st->col[C_METRIC]];
    au_launch *l = NULL;
    size_t idx = 0;
    long long id = 0;
    int rc = row_launch(st, &l, &idx, &id);
    for (size_t di = 0; di < st->ndefs && rc == AU_OK; ++di)
        if (strcmp(st->defs[di].name, metric) == 0)
            return put_metric(st, l, idx, id, di, st->col[C_UNIT] >= 0 ? f[st->col[C_UNIT]] : "", f[st->col[C_VALUE]]);
    return rc;
}

/* The raw page's units line in st->fs (line: its text), the row after a header: each metric's
 * unit, checked as a details row's unit is; after a repeated header, the first one again. */
static int read_units(import_state *st, const char *line)
{
    const char *const *f = (const char *const *)st->fs.f;
    st->want_units = 0;
    if (f[st->col[C_ID]][0])
        return fail(st->name, st->lineno, "no units line (ID empty) after the --page raw header on line %ld",
                    st->header_again ? st->header_again : st->header_line);
    if (st->units)
        return strcmp(line, st->units) == 0 ? AU_OK
                                            : fail(st->name, st->lineno,
                                                   "a second units line, unlike the one on line %ld (two exports "
                                                   "appended?)",
                                                   st->units_line);
    for (size_t di = 0; di < st->ndefs; ++di) {
        int c = st->def_col[di];
        double scale;
        if (c < 0)
            continue;
        if (unit_scale(f[c], st->defs[di].name, &scale) != AU_OK)
            return fail(st->name, st->lineno, "unknown unit '%.20s' of %s", f[c], st->defs[di].name);
        if (!(st->def_unit[di] = strdup(f[c])))
            return au_set_error(AU_E_NOMEM, "out of memory");
    }
    st->units_line = st->lineno;
    if (!(st->units = strdup(line)))
        return au_set_error(AU_E_NOMEM, "out of memory");
    return AU_OK;
}

/* A raw page's row: one launch, its metrics in their columns; an empty field is a metric not
 * collected for that launch (left missing, as a details page without its row). */
static int raw_row(import_state *st)
{
    const char *const *f = (const char *const *)st->fs.f;
    au_launch *l = NULL;
    size_t idx = 0, before = st->r->count;
    long long id = 0;
    int rc = row_launch(st, &l, &idx, &id);
    if (rc == AU_OK && st->r->count == before)
        return fail(st->name, st->lineno, "launch ID %lld on a second row%s", id,
                    appended_hint(st->header_again, st->hint, sizeof st->hint));
    for (size_t di = 0; di < st->ndefs && rc == AU_OK; ++di)
        if (st->def_col[di] >= 0 && f[st->def_col[di]][0])
            rc = put_metric(st, l, idx, id, di, st->def_unit[di], f[st->def_col[di]]);
    return rc;
}

/* 1 when line (len bytes) begins as the CSV header does: how the reader finds it, among a
 * program's output, and how a file is told to be an export (au_ncu_given_as_table). */
static int header_start(const char *line, size_t len)
{
    return len >= 5 && memcmp(line, "\"ID\",", 5) == 0;
}

/* A line after the header that starts with '"': the header again (two exports appended) or one
 * metric of one launch. */
static int read_row(import_state *st, const char *line, size_t ll)
{
    if (header_start(line, ll)) {
        /* two exports appended into one file: the same header again is read on */
        if (strcmp(line, st->header) != 0)
            return fail(st->name, st->lineno, "a second CSV header, unlike the one on line %ld (two exports appended?)",
                        st->header_line);
        st->header_again = st->lineno;
        st->want_units = st->raw;
        return AU_OK;
    }
    int rc = au_csv_split_wide(&st->p, line, ll, &st->fs);
    if (rc == AU_E_NOMEM)
        return au_set_error(AU_E_NOMEM, "out of memory");
    if (rc != AU_OK)
        return fail(st->name, st->lineno, "CSV syntax error: %s", csv_strerror(st->fs.csv_err));
    if (st->fs.overflow || st->fs.n != st->ncols)
        return fail(st->name, st->lineno, "expected %d fields as in the header (line %ld), got %s%d", st->ncols,
                    st->header_line, st->fs.overflow ? "more than " : "", st->fs.n);
    if (st->want_units) {
        rc = read_units(st, line);
    } else {
        ++st->rows;
        rc = st->raw ? raw_row(st) : details_row(st);
    }
    if (rc == AU_OK)
        au_csv_wide_clear(&st->fs);
    return rc;
}

/* Names of the absent required metrics, per launch read. */
static void note_missing(import_state *st)
{
    for (size_t i = st->first_launch; i < st->r->count; ++i) {
        au_launch *l = &st->r->launches[i];
        size_t o = 0;
        for (size_t k = 0; k < st->ndefs; ++k) {
            const au_metric_def *d = &st->defs[k];
            if (!d->required || (l->ctr.have & d->counter) || (l->ctr.wrong_unit & d->counter))
                continue;
            int n = snprintf(l->missing_names + o, sizeof l->missing_names - o, "%s%s", o ? "," : "", d->name);
            if (n < 0 || (size_t)n >= sizeof l->missing_names - o)
                break;
            o += (size_t)n;
        }
    }
}

int au_ncu_check(const char *name, const char *buf, size_t len)
{
    return au_check_text(name, buf, len, ": not an Nsight Compute CSV export", "not an Nsight Compute CSV export");
}

int au_ncu_begin(const char *name, au_report *r, au_ncu_reader **out)
{
    snprintf(r->source, sizeof r->source, "%s", name);
    import_state *st = calloc(1, sizeof *st);
    *out = st;
    if (!st)
        return au_set_error(AU_E_NOMEM, "out of memory");
    st->name = name;
    st->r = r;
    st->defs = au_metric_defs(&st->ndefs);
    st->fs = (au_csv_wide){.max = MAX_COLS};
    st->first_launch = r->count;
    for (int i = 0; i < C_N; ++i)
        st->col[i] = -1;
    for (int i = 0; i < MAX_DEFS; ++i)
        st->def_col[i] = -1;
    if (st->ndefs > MAX_DEFS) { /* seen_bits and def_col hold MAX_DEFS */
        size_t n = st->ndefs;
        free(st);
        *out = NULL;
        return au_set_error(AU_E_INVAL, "the model reads %zu metrics, the CSV reader at most %d", n, MAX_DEFS);
    }
    if (csv_init(&st->p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        free(st);
        *out = NULL;
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    if (map_grow(&st->map) != AU_OK)
        return au_set_error(AU_E_NOMEM, "out of memory");
    return AU_OK;
}

/* Line lineno's text as the reader reads it: without a UTF-8 byte-order mark (an export saved by
 * an editor), the CR of a CRLF and the blanks before it (a row indented by an editor or a script
 * is read, not skipped as program output: a skipped row would leave its launch a counter short). */
static const char *line_text(const char *ls, size_t *ll, long lineno)
{
    if (lineno == 1 && *ll >= 3 && memcmp(ls, "\xEF\xBB\xBF", 3) == 0)
        ls += 3, *ll -= 3;
    if (*ll && ls[*ll - 1] == '\r')
        --*ll;
    while (*ll && (ls[0] == ' ' || ls[0] == '\t'))
        ++ls, --*ll;
    return ls;
}

/* Before the header, foreign lines are skipped; after it, every line that starts with '"' is a
 * row. */
int au_ncu_line(au_ncu_reader *st, const char *ls, size_t ll)
{
    ls = line_text(ls, &ll, ++st->lineno);
    if (ll && !st->seen_text) /* a table given as an export: said if no header follows */
        st->seen_text = 1, st->table = au_table_magic_line(ls, ll);
    if (ll == 0 || ls[0] != '"')
        return AU_OK; /* application output, ==PROF== lines, blank lines */
    if (au_copy_line(&st->line, &st->line_cap, ls, ll) != 0)
        return au_set_error(AU_E_NOMEM, "out of memory");
    if (!st->header_line)
        return header_start(st->line, ll) ? read_header(st, st->line, ll) : AU_OK;
    return read_row(st, st->line, ll);
}

int au_ncu_raw(const au_ncu_reader *st)
{
    return st->raw;
}

int au_ncu_end(au_ncu_reader *st, int status)
{
    if (!st)
        return status;
    int rc = status;
    if (rc == AU_OK && !st->header_line && st->table)
        rc = au_set_error(AU_E_PARSE, "%s: " TABLE_NOT_EXPORT, st->name);
    else if (rc == AU_OK && !st->header_line)
        rc = fail(st->name, st->lineno ? st->lineno : 1,
                  "no Nsight Compute CSV header (a line starting with \"ID\",): export with "
                  "ncu --csv --metrics ...");
    else if (rc == AU_OK && st->rows == 0)
        rc = fail(st->name, st->lineno, "header but no metric rows: no kernel launch was profiled");
    if (rc == AU_OK)
        note_missing(st);
    au_csv_wide_free(&st->fs);
    for (int i = 0; i < MAX_DEFS; ++i)
        free(st->def_unit[i]);
    free(st->units);
    free(st->header);
    free(st->line);
    free(st->map.s);
    free(st->extra);
    csv_free(&st->p);
    free(st);
    return rc;
}

int au_ncu_import_buffer(const char *name, const char *buf, size_t len, au_report *r)
{
    au_ncu_reader *rd;
    int rc = au_ncu_begin(name, r, &rd);
    if (rc == AU_OK)
        rc = au_ncu_check(name, buf, len);
    for (const char *s = buf, *end = buf + len; s < end && rc == AU_OK;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
        rc = au_ncu_line(rd, s, ll);
        s = nl ? nl + 1 : end;
    }
    return au_ncu_end(rd, rc);
}

int au_ncu_has_header(const char *buf, size_t len)
{
    long lineno = 0;
    int seen_text = 0;
    for (const char *s = buf, *end = buf + len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
        const char *t = line_text(s, &ll, ++lineno);
        s = nl ? nl + 1 : end;
        if (ll && !seen_text++ && au_table_magic_line(t, ll))
            return 0;
        if (header_start(t, ll))
            return 1;
    }
    return 0;
}

/* *(int *)out = 1 when buf is an export (or counters file), as the reader would take it. */
static int sniff_export(const char *name, char *buf, size_t len, void *out)
{
    (void)name;
    *(int *)out = au_ncu_has_header(buf, len);
    return AU_OK;
}

int au_ncu_table_error(const char *path, int status)
{
    if (status != AU_E_PARSE)
        return status;
    char why[1024];
    au_strlcpy(why, au_last_error(), sizeof why);
    int is_export = 0;
    if (au_parse_file(path, EXPORT_MAX_BYTES, sniff_export, &is_export) == AU_OK && is_export)
        return au_set_error(status, "%s: " EXPORT_NOT_TABLE, path);
    return au_set_error(status, "%s", why);
}

static int parse_export_file(const char *name, char *buf, size_t len, void *out)
{
    return au_ncu_import_buffer(name, buf, len, out);
}

int au_ncu_import(const char *path, au_report *r)
{
    return au_parse_file(path, EXPORT_MAX_BYTES, parse_export_file, r);
}
