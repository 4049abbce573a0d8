/*
 * table.c - the service-time table S(family, n, a, c): format v1 reading (libcsv, strict),
 * writing, building, grid validation and exact lookup.  Interpolation lives in interp.c.
 * The format is specified in docs/table-format.md; keep the two in step.
 */
#include "table_impl.h"

#include "atomutil/csvline.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TABLE_MAX_BYTES ((size_t)256 << 20)
#define MAGIC_PREFIX    "# atomutil-table v" /* and the format's version */
#define MAGIC           MAGIC_PREFIX "1"
#define HEADER          "family,n,a,c,service_cycles,min_cycles,max_cycles,mad_cycles"
#define NCOLS           8

/* ------------------------------------------------------------ building */

int au_table_new(const au_table_meta *meta, au_table **out)
{
    *out = NULL;
    if (!meta)
        return au_set_error(AU_E_INVAL, "au_table_new: no metadata");
    au_table *t = calloc(1, sizeof *t);
    if (!t)
        return au_set_error(AU_E_NOMEM, "out of memory");
    t->meta = *meta;
    if (!t->meta.status[0])
        au_strlcpy(t->meta.status, "measured", sizeof t->meta.status);
    au_strlcpy(t->name, "<table>", sizeof t->name);
    *out = t;
    return AU_OK;
}

static int valid_family_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= AU_FAMILY_MAX || !(s[0] >= 'a' && s[0] <= 'z'))
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* Appends a family; its index, or -2 when out of memory. */
static int family_append(au_table *t, const char *name)
{
    if (t->nfam == t->capfam) {
        size_t ncap = t->capfam ? t->capfam * 2 : 8;
        au_family *nf = realloc(t->fam, ncap * sizeof *nf);
        if (!nf)
            return -2;
        t->fam = nf;
        t->capfam = ncap;
    }
    au_family *f = &t->fam[t->nfam];
    memset(f, 0, sizeof *f);
    au_strlcpy(f->name, name, sizeof f->name);
    return (int)t->nfam++;
}

static int family_index(au_table *t, const char *name, int create)
{
    for (size_t i = 0; i < t->nfam; ++i)
        if (strcmp(t->fam[i].name, name) == 0)
            return (int)i;
    return create ? family_append(t, name) : -1;
}

/* Family name -> index while a file is read.  Every row names its family, and the linear search
 * of family_index made reading quadratic in the number of families: 100,000 two-row families
 * (4 MB) took 37 s (tests/fuzz/big_inputs.c keeps that from coming back). */
typedef struct {
    int *slot; /* family index + 1; 0 = empty */
    size_t cap;
} fam_hash;

static size_t hash_name(const char *s)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)(h ^ (h >> 32));
}

/* family_index(t, name, 1) in constant time; the hash holds every family of t. */
static int family_index_hashed(au_table *t, fam_hash *h, const char *name)
{
    if ((t->nfam + 1) * 2 > h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 64;
        int *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return -2;
        for (size_t k = 0; k < t->nfam; ++k) {
            size_t i = hash_name(t->fam[k].name) & (ncap - 1);
            while (ns[i])
                i = (i + 1) & (ncap - 1);
            ns[i] = (int)k + 1;
        }
        free(h->slot);
        h->slot = ns;
        h->cap = ncap;
    }
    size_t i = hash_name(name) & (h->cap - 1);
    while (h->slot[i]) {
        if (strcmp(t->fam[h->slot[i] - 1].name, name) == 0)
            return h->slot[i] - 1;
        i = (i + 1) & (h->cap - 1);
    }
    int fi = family_append(t, name);
    if (fi >= 0)
        h->slot[i] = fi + 1;
    return fi;
}

/* Adds one row; line is the source line (0 when built in memory) for messages; h, when not NULL,
 * indexes the families by name (reading a file). */
static int add_row(au_table *t, const char *family, long n, long a, long c, const au_sample *s, long line, fam_hash *h)
{
    if (!valid_family_name(family))
        return au_set_error_at(AU_E_PARSE, t->name, line,
                               "invalid family name '%.40s' (lower-case letters, digits, '_'; "
                               "at most %d characters)",
                               family, AU_FAMILY_MAX - 1);
    if (n < 1 || n > t->meta.max_warps_per_sm)
        return au_set_error_at(AU_E_PARSE, t->name, line, "n=%ld outside 1..%d (max_warps_per_sm)", n,
                               t->meta.max_warps_per_sm);
    if (a < 1 || a > AU_A_MAX)
        return au_set_error_at(AU_E_PARSE, t->name, line, "a=%ld outside 1..%d", a, AU_A_MAX);
    if (c < 0 || c > n)
        return au_set_error_at(AU_E_PARSE, t->name, line, "c=%ld outside 0..n (n=%ld)", c, n);
    if (!(s->service_cycles > 0) || !isfinite(s->service_cycles) || !isfinite(s->min_cycles) ||
        !isfinite(s->max_cycles) || !isfinite(s->mad_cycles))
        return au_set_error_at(AU_E_PARSE, t->name, line, "service_cycles must be a finite number > 0");
    static const char *const col[4] = {"service_cycles", "min_cycles", "max_cycles", "mad_cycles"};
    const double v[4] = {s->service_cycles, s->min_cycles, s->max_cycles, s->mad_cycles};
    for (int i = 0; i < 4; ++i)
        if (v[i] > AU_SERVICE_CYCLES_MAX)
            return au_set_error_at(AU_E_PARSE, t->name, line, "%s %.6g above %.0f cycles per job: not a service time",
                                   col[i], v[i], AU_SERVICE_CYCLES_MAX);
    if (!(s->min_cycles > 0 && s->min_cycles <= s->service_cycles && s->service_cycles <= s->max_cycles))
        return au_set_error_at(AU_E_PARSE, t->name, line, "need 0 < min_cycles <= service_cycles <= max_cycles");
    if (!(s->mad_cycles >= 0))
        return au_set_error_at(AU_E_PARSE, t->name, line, "mad_cycles must be >= 0");
    int fi = h ? family_index_hashed(t, h, family) : family_index(t, family, 1);
    if (fi < 0)
        return au_set_error(AU_E_NOMEM, "out of memory");
    if (au_grow(&t->rows, &t->caprows, t->nrows, sizeof *t->rows, 256) != 0)
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_row *r = &t->rows[t->nrows++];
    r->fam = fi;
    r->n = (int)n;
    r->a = (int)a;
    r->c = (int)c;
    r->s = *s;
    r->line = line;
    t->finalized = 0;
    return AU_OK;
}

int au_table_add(au_table *t, const char *family, int n, int a, int c, const au_sample *s)
{
    if (!t || !family || !s)
        return au_set_error(AU_E_INVAL, "au_table_add: null argument");
    return add_row(t, family, n, a, c, s, 0, NULL);
}

/* qsort context: rows are ordered by family name, n, a, c. */
static const au_table *sort_table;

static int cmp_row(const void *x, const void *y)
{
    const au_row *p = x, *q = y;
    int k = strcmp(sort_table->fam[p->fam].name, sort_table->fam[q->fam].name);
    if (k)
        return k;
    if (p->n != q->n)
        return p->n < q->n ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->c != q->c)
        return p->c < q->c ? -1 : 1;
    return 0;
}

static int cmp_int(const void *x, const void *y)
{
    int p = *(const int *)x, q = *(const int *)y;
    return (p > q) - (p < q);
}

/* Sorted distinct values of one field over rows [lo, hi). */
static int distinct(const au_row *rows, size_t lo, size_t hi, int which, int **vals, int *count)
{
    int *v = malloc((hi - lo) * sizeof *v);
    if (!v)
        return AU_E_NOMEM;
    for (size_t i = lo; i < hi; ++i)
        v[i - lo] = which == 0 ? rows[i].n : rows[i].a;
    qsort(v, hi - lo, sizeof *v, cmp_int);
    int k = 0;
    for (size_t i = 0; i < hi - lo; ++i)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    *vals = v;
    *count = k;
    return AU_OK;
}

static void free_index(au_table *t)
{
    for (size_t i = 0; i < t->nfam; ++i) {
        free(t->fam[i].nv);
        free(t->fam[i].av);
        free(t->fam[i].cell);
        t->fam[i].nv = t->fam[i].av = NULL;
        t->fam[i].cell = NULL;
    }
}

/* Distributed-shared-memory (cluster) families: their jobs are generic ATOMs, never ATOMS.CAS, so
 * they hold only c = 0 rows (docs/table-format.md, "Grid rule"). */
int au_family_is_dsmem(const char *family)
{
    return family && strncmp(family, "dsmem", 5) == 0;
}

/* Builds one family's (n, a) index over its sorted rows [lo, hi) and checks the grid: every
 * n x a pair present, each with c = 0 and c = n (dsmem families: c = 0 only). */
static int index_family(au_table *t, au_family *f, size_t lo, size_t hi)
{
    if (distinct(t->rows, lo, hi, 0, &f->nv, &f->nn) || distinct(t->rows, lo, hi, 1, &f->av, &f->na))
        return au_set_error(AU_E_NOMEM, "out of memory");
    f->cell = malloc((size_t)f->nn * (size_t)f->na * sizeof *f->cell);
    if (!f->cell)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (int i = 0; i < f->nn * f->na; ++i)
        f->cell[i].lo = f->cell[i].hi = 0;
    size_t r = lo, first = lo;
    const int dsmem = au_family_is_dsmem(f->name);
    for (int i = 0; i < f->nn; ++i) {
        /* the first row of this n, to point at when a pair is missing: rows are sorted by n, so a
         * cursor finds it (searching from lo for each n was quadratic in the number of n values:
         * 200,000 of them, a 10 MB table, took 83 s) */
        while (first < hi && t->rows[first].n < f->nv[i])
            ++first;
        long nline = first < hi ? t->rows[first].line : 0;
        for (int j = 0; j < f->na; ++j) {
            au_cell *cell = &f->cell[i * f->na + j];
            if (r >= hi || t->rows[r].n != f->nv[i] || t->rows[r].a != f->av[j])
                return au_set_error_at(AU_E_PARSE, t->name, nline,
                                       "family %s: grid point n=%d a=%d missing (every n of the "
                                       "family needs every a of the family)",
                                       f->name, f->nv[i], f->av[j]);
            cell->lo = r;
            while (r < hi && t->rows[r].n == f->nv[i] && t->rows[r].a == f->av[j])
                ++r;
            cell->hi = r;
            const au_row *first = &t->rows[cell->lo], *last = &t->rows[cell->hi - 1];
            if (dsmem && last->c != 0)
                return au_set_error_at(AU_E_PARSE, t->name, last->line,
                                       "family %s: row n=%d a=%d c=%d: dsmem families hold only "
                                       "c=0 rows (their jobs are never ATOMS.CAS)",
                                       f->name, f->nv[i], f->av[j], last->c);
            if (dsmem)
                continue;
            if (first->c != 0 || last->c != f->nv[i])
                return au_set_error_at(AU_E_PARSE, t->name, first->line,
                                       "family %s: n=%d a=%d lacks the c=%d row (each n, a pair "
                                       "needs c=0 and c=n)",
                                       f->name, f->nv[i], f->av[j], first->c != 0 ? 0 : f->nv[i]);
        }
    }
    return AU_OK;
}

int au_table_finalize(au_table *t)
{
    if (!t)
        return au_set_error(AU_E_INVAL, "au_table_finalize: null table");
    free_index(t);
    t->finalized = 0;
    if (t->nrows == 0)
        return au_set_error_at(AU_E_PARSE, t->name, 0, "no data rows");
    sort_table = t;
    qsort(t->rows, t->nrows, sizeof *t->rows, cmp_row);
    sort_table = NULL;
    for (size_t i = 1; i < t->nrows; ++i) {
        const au_row *p = &t->rows[i - 1], *q = &t->rows[i];
        if (p->fam == q->fam && p->n == q->n && p->a == q->a && p->c == q->c) {
            long l1 = p->line < q->line ? p->line : q->line, l2 = p->line < q->line ? q->line : p->line;
            return au_set_error_at(AU_E_PARSE, t->name, l2, "duplicate row %s,%d,%d,%d (first at line %ld)",
                                   t->fam[q->fam].name, q->n, q->a, q->c, l1);
        }
    }
    /* families in name order; their rows are contiguous after the sort */
    size_t lo = 0;
    while (lo < t->nrows) {
        size_t hi = lo;
        while (hi < t->nrows && t->rows[hi].fam == t->rows[lo].fam)
            ++hi;
        au_family *f = &t->fam[t->rows[lo].fam];
        f->lo = lo;
        f->hi = hi;
        int rc = index_family(t, f, lo, hi);
        if (rc)
            return rc;
        lo = hi;
    }
    if (family_index(t, "add", 0) < 0)
        return au_set_error_at(AU_E_PARSE, t->name, 0, "required family 'add' has no rows");
    t->finalized = 1;
    return AU_OK;
}

void au_table_free(au_table *t)
{
    if (!t)
        return;
    free_index(t);
    free(t->fam);
    free(t->rows);
    free(t);
}

/* ------------------------------------------------------------ metadata */

enum { K_STR, K_INT, K_DBL, K_CC };
static const struct meta_key {
    const char *key;
    int type, required;
    size_t off, size;
} meta_keys[] = {
#define S_(k, req)                                                                  \
    {                                                                               \
#k, K_STR, req, offsetof(au_table_meta, k), sizeof(((au_table_meta *)0)->k) \
    }
#define I_(k, req)                                    \
    {                                                 \
#k, K_INT, req, offsetof(au_table_meta, k), 0 \
    }
    S_(gpu_name, 1),
    {"compute_capability", K_CC, 1, 0, 0},
    I_(sm_count, 1),
    I_(max_warps_per_sm, 1),
    S_(method, 1),
    {"sm_clock_mhz", K_DBL, 0, offsetof(au_table_meta, sm_clock_mhz), 0},
    S_(cuda_version, 0),
    S_(driver_version, 0),
    I_(jobs_per_warp, 0),
    I_(repetitions, 0),
    S_(date, 0),
    S_(tool_version, 0),
    S_(status, 0),
    S_(note, 0),
    {"l2_hit_latency_cycles", K_DBL, 0, offsetof(au_table_meta, l2_hit_latency_cycles), 0},
    {"dram_latency_cycles", K_DBL, 0, offsetof(au_table_meta, dram_latency_cycles), 0},
    {"match_any_cycles_per_value", K_DBL, 0, offsetof(au_table_meta, match_any_cycles_per_value), 0},
    {"match_any_latency_cycles_per_value", K_DBL, 0, offsetof(au_table_meta, match_any_latency_cycles_per_value), 0},
#undef S_
#undef I_
};
#define NKEYS (sizeof meta_keys / sizeof meta_keys[0])

static int parse_meta_line(au_table *t, char *line, long lineno, unsigned *seen)
{
    /* "# key: value" */
    char *p = line + 1;
    while (*p == ' ')
        ++p;
    char *colon = strchr(p, ':');
    if (!colon)
        return au_set_error_at(AU_E_PARSE, t->name, lineno, "metadata line must read '# key: value'");
    *colon = '\0';
    char *val = colon + 1;
    while (*val == ' ')
        ++val;
    size_t vl = strlen(val);
    while (vl && (val[vl - 1] == ' ' || val[vl - 1] == '\t'))
        val[--vl] = '\0';
    size_t k;
    for (k = 0; k < NKEYS; ++k)
        if (strcmp(p, meta_keys[k].key) == 0)
            break;
    if (k == NKEYS)
        return au_set_error_at(AU_E_PARSE, t->name, lineno, "unknown metadata key '%.60s'", p);
    if (*seen & (1u << k))
        return au_set_error_at(AU_E_PARSE, t->name, lineno, "metadata key '%s' given twice", p);
    *seen |= 1u << k;
    const struct meta_key *mk = &meta_keys[k];
    char *base = (char *)&t->meta;
    long iv;
    double dv;
    switch (mk->type) {
    case K_STR:
        if (vl >= mk->size)
            return au_set_error_at(AU_E_PARSE, t->name, lineno, "value of '%s' longer than %zu characters", mk->key,
                                   mk->size - 1);
        memcpy(base + mk->off, val, vl + 1);
        break;
    case K_INT:
        if (au_parse_long(val, &iv) || iv < 1 || iv > 1000000)
            return au_set_error_at(AU_E_PARSE, t->name, lineno, "'%s' must be an integer in 1..1000000", mk->key);
        *(int *)(base + mk->off) = (int)iv;
        break;
    case K_DBL:
        if (au_parse_double(val, &dv) || dv <= 0 || dv > 1e6)
            return au_set_error_at(AU_E_PARSE, t->name, lineno, "'%s' must be a number > 0 and <= 1000000", mk->key);
        *(double *)(base + mk->off) = dv;
        break;
    case K_CC: {
        int maj, min, used = 0;
        if (sscanf(val, "%2d.%2d%n", &maj, &min, &used) != 2 || val[used] || maj < 1 || min < 0)
            return au_set_error_at(AU_E_PARSE, t->name, lineno, "compute_capability must read MAJOR.MINOR, e.g. 9.0");
        t->meta.cc_major = maj;
        t->meta.cc_minor = min;
        break;
    }
    }
    return AU_OK;
}

static int check_meta(au_table *t, unsigned seen, long lineno)
{
    for (size_t k = 0; k < NKEYS; ++k)
        if (meta_keys[k].required && !(seen & (1u << k)))
            return au_set_error_at(AU_E_PARSE, t->name, lineno, "required metadata '%s' missing before the header",
                                   meta_keys[k].key);
    if (!t->meta.gpu_name[0])
        return au_set_error_at(AU_E_PARSE, t->name, lineno, "gpu_name is empty");
    if (strcmp(t->meta.method, "steady") != 0 && strcmp(t->meta.method, "burst") != 0)
        return au_set_error_at(AU_E_PARSE, t->name, lineno, "method must be 'steady' or 'burst'");
    if (!t->meta.status[0])
        au_strlcpy(t->meta.status, "measured", sizeof t->meta.status);
    if (strcmp(t->meta.status, "measured") != 0 && strcmp(t->meta.status, "provisional") != 0)
        return au_set_error_at(AU_E_PARSE, t->name, lineno, "status must be 'measured' or 'provisional'");
    return AU_OK;
}

/* ------------------------------------------------------------ reading */

/* Splits a line without quotes in place at its commas, trimming spaces and tabs around each field
 * as libcsv does: the same fields libcsv's strict mode gives, without a copy per field (a table
 * has over 100,000 lines).  Returns the number of fields, or NCOLS + 1 for more than NCOLS. */
static int split_plain(char *line, char *f[NCOLS])
{
    int n = 0;
    for (char *s = line;; ++n) {
        char *c = strchr(s, ',');
        if (c)
            *c = '\0';
        if (n == NCOLS)
            return NCOLS + 1;
        s += strspn(s, " \t");
        size_t l = strlen(s);
        while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
            s[--l] = '\0';
        f[n] = s;
        if (!c)
            return n + 1;
        s = c + 1;
    }
}

/* Parses one data line (in place): quote-free lines are split directly, the others by libcsv in
 * strict mode. */
static int parse_data_line(au_table *t, struct csv_parser *p, char *line, size_t len, long lineno, fam_hash *h)
{
    au_csv_line rf = {.max = NCOLS};
    char *f[NCOLS];
    int rc = AU_OK, nf;
    if (!strpbrk(line, "\"\r")) { /* a CR inside a line ends a row for libcsv */
        nf = split_plain(line, f);
    } else {
        int st = au_csv_split(p, line, len, &rf);
        if (st == AU_E_PARSE) {
            rc = au_set_error_at(AU_E_PARSE, t->name, lineno, "CSV syntax: %s", csv_strerror(rf.csv_err));
            goto out;
        }
        if (st == AU_E_NOMEM) {
            rc = au_set_error(AU_E_NOMEM, "out of memory");
            goto out;
        }
        for (int i = 0; i < rf.n; ++i)
            f[i] = rf.f[i];
        nf = rf.overflow ? NCOLS + 1 : rf.n;
    }
    if (nf != NCOLS) {
        rc = au_set_error_at(AU_E_PARSE, t->name, lineno, "expected %d fields (%s), got %s%d", NCOLS, HEADER,
                             nf > NCOLS ? "more than " : "", nf > NCOLS ? NCOLS : nf);
        goto out;
    }
    static const char *const names[NCOLS] = {"family",         "n",          "a",          "c",
                                             "service_cycles", "min_cycles", "max_cycles", "mad_cycles"};
    long iv[3];
    double dv[4];
    for (int i = 1; i < 4; ++i)
        if (au_parse_long(f[i], &iv[i - 1])) {
            rc = au_set_error_at(AU_E_PARSE, t->name, lineno, "%s: '%.40s' is not an integer", names[i], f[i]);
            goto out;
        }
    for (int i = 4; i < 8; ++i)
        if (au_parse_double(f[i], &dv[i - 4])) {
            rc = au_set_error_at(AU_E_PARSE, t->name, lineno, "%s: '%.40s' is not a finite number", names[i], f[i]);
            goto out;
        }
    au_sample s = {dv[0], dv[1], dv[2], dv[3]};
    rc = add_row(t, f[0], iv[0], iv[1], iv[2], &s, lineno, h);
out:
    au_csv_line_clear(&rf);
    return rc;
}

int au_table_magic_line(const char *line, size_t len)
{
    size_t pl = strlen(MAGIC_PREFIX);
    return len >= pl && memcmp(line, MAGIC_PREFIX, pl) == 0;
}

/* The first line that is not blank must be MAGIC. */
static int check_magic(const char *name, const char *line, long lineno)
{
    if (strcmp(line, MAGIC) == 0)
        return AU_OK;
    /* MAGIC_PREFIX and digits is another version; anything else (a v1 line with junk after it,
     * CR-only line ends) is not a table we know */
    int prefix = au_table_magic_line(line, strlen(line));
    const char *v = prefix ? line + strlen(MAGIC_PREFIX) : line;
    int other = prefix && *v && strspn(v, "0123456789") == strlen(v);
    return other ? au_set_error_at(AU_E_PARSE, name, lineno,
                                   "unsupported table format version v%.20s (this atomutil reads '%s')", v, MAGIC)
                 : au_set_error_at(AU_E_PARSE, name, lineno, "not an atomutil table: first line must be '%s'", MAGIC);
}

/* meta_only: stop at the header line once the metadata is checked (no rows, not finalized). */
static int parse_table(const char *name, const char *buf, size_t len, int meta_only, au_table **out)
{
    *out = NULL;
    au_table *t = calloc(1, sizeof *t);
    if (!t)
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_strlcpy(t->name, name, sizeof t->name);
    struct csv_parser p;
    int rc = AU_OK, have_parser = 0;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        rc = au_set_error(AU_E_NOMEM, "out of memory");
        goto fail;
    }
    have_parser = 1;
    if ((rc = au_check_text(name, buf, len, " (expected '" MAGIC "')", "not a CSV table")))
        goto fail;
    enum { WANT_MAGIC, META, DATA } state = WANT_MAGIC;
    unsigned seen = 0;
    fam_hash fh = {NULL, 0};
    long lineno = 0;
    char *linebuf = NULL;
    size_t linecap = 0;
    const char *s = buf, *end = buf + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
        ++lineno;
        if (ll && s[ll - 1] == '\r')
            --ll;
        if (au_copy_line(&linebuf, &linecap, s, ll) != 0) {
            rc = au_set_error(AU_E_NOMEM, "out of memory");
            break;
        }
        s = nl ? nl + 1 : end;
        int blank = strspn(linebuf, " \t") == ll;
        if (state == WANT_MAGIC) {
            if (blank)
                continue;
            if ((rc = check_magic(name, linebuf, lineno)))
                break;
            state = META;
        } else if (state == META) {
            if (blank)
                continue;
            if (linebuf[0] == '#') {
                if ((rc = parse_meta_line(t, linebuf, lineno, &seen)))
                    break;
                continue;
            }
            if (strcmp(linebuf, HEADER) != 0) {
                rc = au_set_error_at(AU_E_PARSE, name, lineno, "header must read '%s'", HEADER);
                break;
            }
            if ((rc = check_meta(t, seen, lineno)))
                break;
            state = DATA;
            if (meta_only)
                break;
        } else {
            if (blank)
                continue;
            if (linebuf[0] == '#') {
                rc = au_set_error_at(AU_E_PARSE, name, lineno, "comment or metadata after the header");
                break;
            }
            if ((rc = parse_data_line(t, &p, linebuf, ll, lineno, &fh)))
                break;
        }
    }
    free(linebuf);
    free(fh.slot);
    if (rc)
        goto fail;
    if (state != DATA) {
        rc = au_set_error_at(AU_E_PARSE, name, lineno,
                             state == WANT_MAGIC ? "empty file (expected '" MAGIC "')"
                                                 : "truncated: no header line '" HEADER "'");
        goto fail;
    }
    if (meta_only)
        goto done;
    if (t->nrows == 0) {
        rc = au_set_error_at(AU_E_PARSE, name, lineno, "no data rows after the header");
        goto fail;
    }
    if ((rc = au_table_finalize(t)))
        goto fail;
done:
    csv_free(&p);
    *out = t;
    return AU_OK;
fail:
    if (have_parser)
        csv_free(&p);
    au_table_free(t);
    return rc;
}

int au_table_parse(const char *name, const char *buf, size_t len, au_table **out)
{
    return parse_table(name, buf, len, 0, out);
}

int au_table_load_meta(const char *path, au_table_meta *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return au_set_error(AU_E_IO, "%s: cannot open: %s", path, strerror(errno));
    /* the metadata block is a few hundred bytes: a prefix is enough, the rows are not read */
    enum { PREFIX = 65536 };
    char *buf = malloc(PREFIX);
    if (!buf) {
        fclose(f);
        return au_set_error(AU_E_NOMEM, "%s: out of memory", path);
    }
    size_t len = fread(buf, 1, PREFIX, f);
    int rc = ferror(f) ? au_set_error(AU_E_IO, "%s: read error: %s", path, strerror(errno)) : AU_OK;
    fclose(f);
    au_table *t = NULL;
    if (rc == AU_OK && (rc = parse_table(path, buf, len, 1, &t)) == AU_OK)
        *out = t->meta;
    au_table_free(t);
    free(buf);
    return rc;
}

static int parse_table_file(const char *name, char *buf, size_t len, void *out)
{
    return au_table_parse(name, buf, len, out);
}

int au_table_load(const char *path, au_table **out)
{
    *out = NULL;
    if (!path)
        return au_set_error(AU_E_INVAL, "au_table_load: no path");
    int rc = au_parse_file(path, TABLE_MAX_BYTES, parse_table_file, out);
    if (rc == AU_OK)
        au_strlcpy((*out)->path, path, sizeof(*out)->path);
    return rc;
}

/* ------------------------------------------------------------ writing */

int au_table_write(const au_table *t, FILE *f)
{
    if (!t || !f)
        return au_set_error(AU_E_INVAL, "au_table_write: null argument");
    if (!t->finalized)
        return au_set_error(AU_E_INVAL, "au_table_write: table not finalized");
    const au_table_meta *m = &t->meta;
    fprintf(f, "%s\n", MAGIC);
    for (size_t k = 0; k < NKEYS; ++k) {
        const struct meta_key *mk = &meta_keys[k];
        const char *base = (const char *)m;
        switch (mk->type) {
        case K_STR:
            if (base[mk->off])
                fprintf(f, "# %s: %s\n", mk->key, base + mk->off);
            break;
        case K_INT:
            if (*(const int *)(base + mk->off))
                fprintf(f, "# %s: %d\n", mk->key, *(const int *)(base + mk->off));
            break;
        case K_DBL:
            if (*(const double *)(base + mk->off) > 0)
                fprintf(f, "# %s: %.1f\n", mk->key, *(const double *)(base + mk->off));
            break;
        case K_CC: fprintf(f, "# %s: %d.%d\n", mk->key, m->cc_major, m->cc_minor); break;
        }
    }
    fprintf(f, "%s\n", HEADER);
    for (size_t i = 0; i < t->nrows; ++i) {
        const au_row *r = &t->rows[i];
        fprintf(f, "%s,%d,%d,%d,%.4f,%.4f,%.4f,%.4f\n", t->fam[r->fam].name, r->n, r->a, r->c, r->s.service_cycles,
                r->s.min_cycles, r->s.max_cycles, r->s.mad_cycles);
    }
    if (ferror(f))
        return au_set_error(AU_E_IO, "write error: %s", strerror(errno));
    return AU_OK;
}

int au_table_save(const au_table *t, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return au_set_error(AU_E_IO, "%s: cannot create: %s", path, strerror(errno));
    int rc = au_table_write(t, f);
    if (fclose(f) != 0 && rc == AU_OK)
        rc = au_set_error(AU_E_IO, "%s: write error: %s", path, strerror(errno));
    return rc;
}

/* ------------------------------------------------------------ queries */

const au_table_meta *au_table_get_meta(const au_table *t)
{
    return &t->meta;
}
const char *au_table_path(const au_table *t)
{
    return t->path;
}
size_t au_table_family_count(const au_table *t)
{
    return t->nfam;
}

const char *au_table_family_name(const au_table *t, size_t i)
{
    return i < t->nfam ? t->fam[i].name : NULL;
}

int au_table_has_family(const au_table *t, const char *family)
{
    for (size_t i = 0; i < t->nfam; ++i)
        if (strcmp(t->fam[i].name, family) == 0)
            return 1;
    return 0;
}

const au_family *au_table_family(const au_table *t, const char *family)
{
    for (size_t i = 0; i < t->nfam; ++i)
        if (strcmp(t->fam[i].name, family) == 0)
            return &t->fam[i];
    return NULL;
}

int au_table_n_max(const au_table *t, const char *family)
{
    const au_family *f = t && family ? au_table_family(t, family) : NULL;
    return f && f->nn ? f->nv[f->nn - 1] : 0;
}

int au_table_a_max(const au_table *t, const char *family)
{
    const au_family *f = t && family ? au_table_family(t, family) : NULL;
    return f && f->na ? f->av[f->na - 1] : 0;
}

int au_table_lookup(const au_table *t, const char *family, int n, int a, int c, au_sample *out)
{
    if (!t || !family || !out || !t->finalized)
        return au_set_error(AU_E_INVAL, "au_table_lookup: invalid argument");
    const au_family *f = au_table_family(t, family);
    if (!f)
        return au_set_error(AU_E_NOTFOUND, "table has no family '%s'", family);
    for (int i = 0; i < f->nn; ++i) {
        if (f->nv[i] != n)
            continue;
        for (int j = 0; j < f->na; ++j) {
            if (f->av[j] != a)
                continue;
            const au_cell *cell = &f->cell[i * f->na + j];
            for (size_t k = cell->lo; k < cell->hi; ++k)
                if (t->rows[k].c == c) {
                    *out = t->rows[k].s;
                    return AU_OK;
                }
        }
    }
    return au_set_error(AU_E_NOTFOUND, "family %s has no grid point n=%d a=%d c=%d", family, n, a, c);
}
