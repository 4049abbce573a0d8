/*
 * test_family_costs.c - a shipped table may not make one family cost more than another at the
 * unit's saturation unless the unit really does.  For every family of TABLE, S = service time at
 * n = the table's largest n, a = 1, c = 0 (one serialized pass, the unit saturated).  A family
 * more than measurement noise above the cheapest family passes only when UNIT_BOUND.csv (the
 * output of calibrate/tools/unit_bound.cu on the same GPU model) holds a kernel that does the same
 * job with nothing but the atomic and measures the same cost within 5 %: then the difference is
 * the unit's.  Where the unit-bound kernel is faster, the table's kernel was bound by something
 * else (instruction issue, latency) and the test fails, naming the family and both costs.  The
 * dsmem (cluster) families are not ATOMS jobs of the unit that unit_bound measures: they are left
 * out (docs/calibration.md checks them otherwise).
 *
 * usage: test_family_costs TABLE UNIT_BOUND.csv[,MORE.csv] [TABLE UNIT_BOUND.csv ...]
 * (a table's unit_bound cases may come from several runs on its GPU model, comma-separated: the
 * cases of a family added later, validation/calibrate_family.sh)
 * Exit status 0 when every pair passes, 1 otherwise (one line per failure on stderr).
 */
#include "atomutil/csvline.h"
#include "atomutil/model.h"
#include "cal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES   1024
/* noise of a table cell: 2 % of its value or 3 MADs of its repetitions, whichever is larger, but
 * never more than 5 % (a cell that noisy hides what this test looks for) */
#define NOISE_REL   0.02
#define NOISE_MAD   3.0
#define NOISE_MAX   0.05
/* a unit-bound measurement confirms a table value within this relative difference */
#define CONFIRM_REL 0.05

typedef struct {
    char name[64];
    double cycles;
} ub_case;

typedef struct {
    char gpu[128];
    ub_case c[MAX_CASES];
    int n;
} ub_file;

/* Reads unit_bound's CSV: '# unit_bound gpu="NAME" ...' then a header with columns case and
 * cycles_per_job; its cases are appended to u, whose GPU it must name where u has one.  0 on
 * success. */
static int read_ub(const char *path, ub_file *u)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    char gpu0[sizeof u->gpu];
    snprintf(gpu0, sizeof gpu0, "%s", u->gpu);
    u->gpu[0] = '\0';
    const int n0 = u->n;
    char line[1024];
    int col_case = -1, col_cyc = -1, lineno = 0, rc = 0;
    struct csv_parser p;
    au_csv_line cl;
    memset(&cl, 0, sizeof cl);
    cl.max = 32;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#') {
            const char *g = strstr(line, "gpu=\"");
            if (g) {
                g += 5;
                size_t k = strcspn(g, "\"");
                if (k >= sizeof u->gpu)
                    k = sizeof u->gpu - 1;
                memcpy(u->gpu, g, k);
                u->gpu[k] = '\0';
            }
            continue;
        }
        if (au_csv_split(&p, line, strlen(line), &cl) != AU_OK || cl.overflow) {
            fprintf(stderr, "%s:%d: malformed CSV line\n", path, lineno);
            rc = -1;
            break;
        }
        char **fields = cl.f;
        int nf = cl.n;
        if (col_case < 0) {
            for (int i = 0; i < nf; ++i) {
                if (!strcmp(fields[i], "case"))
                    col_case = i;
                if (!strcmp(fields[i], "cycles_per_job"))
                    col_cyc = i;
            }
            if (col_case < 0 || col_cyc < 0) {
                fprintf(stderr, "%s:%d: no columns case and cycles_per_job\n", path, lineno);
                rc = -1;
                break;
            }
            continue;
        }
        if (nf <= col_case || nf <= col_cyc || u->n == MAX_CASES) {
            fprintf(stderr, "%s:%d: malformed row\n", path, lineno);
            rc = -1;
            break;
        }
        char *end;
        double v = strtod(fields[col_cyc], &end);
        if (*end || !(v > 0)) {
            fprintf(stderr, "%s:%d: bad cycles_per_job '%s'\n", path, lineno, fields[col_cyc]);
            rc = -1;
            break;
        }
        snprintf(u->c[u->n].name, sizeof u->c[u->n].name, "%s", fields[col_case]);
        u->c[u->n++].cycles = v;
    }
    au_csv_line_clear(&cl);
    csv_free(&p);
    fclose(f);
    if (rc == 0 && (u->n == n0 || !u->gpu[0])) {
        fprintf(stderr, "%s: no cases or no gpu name\n", path);
        rc = -1;
    } else if (rc == 0 && gpu0[0] && strcmp(gpu0, u->gpu) != 0) {
        fprintf(stderr, "%s is for '%s', the files before it for '%s'\n", path, u->gpu, gpu0);
        rc = -1;
    }
    return rc;
}

/* Reads the comma-separated unit_bound files of `paths` (one GPU model) into u.  0 on success. */
static int read_ub_list(const char *paths, ub_file *u)
{
    char buf[4096];
    memset(u, 0, sizeof *u);
    if (snprintf(buf, sizeof buf, "%s", paths) >= (int)sizeof buf)
        return -1;
    for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save))
        if (read_ub(p, u) != 0)
            return -1;
    return u->n > 0 ? 0 : -1;
}

static const ub_case *ub_find(const ub_file *u, const char *name)
{
    for (int i = 0; i < u->n; ++i)
        if (!strcmp(u->c[i].name, name))
            return &u->c[i];
    return NULL;
}

/* The unit_bound case doing what the table's calibration kernel does at a = 1: the family's
 * operation with the lanes au_cal_family_lanes(f, 1) gives (1 lane, 16 or 32 distinct lanes). */
static void ub_case_name(const char *family, char *buf, size_t size)
{
    int k = au_cal_family_index(family);
    int lanes = k >= 0 ? au_cal_family_lanes(&au_cal_families[k], 1) : 1;
    snprintf(buf, size, "%s/%s", family, lanes == 1 ? "lane1" : lanes == 16 ? "half" : "distinct");
}

static int check_pair(const char *table_path, const char *ub_path)
{
    au_table *t = NULL;
    if (au_table_load(table_path, &t) != AU_OK) {
        fprintf(stderr, "%s: %s\n", table_path, au_last_error());
        return 1;
    }
    ub_file *u = malloc(sizeof *u);
    int bad = 0;
    if (!u || read_ub_list(ub_path, u) != 0) {
        free(u);
        au_table_free(t);
        return 1;
    }
    const au_table_meta *m = au_table_get_meta(t);
    if (strcmp(m->gpu_name, u->gpu) != 0) {
        fprintf(stderr, "%s is for '%s', %s for '%s'\n", table_path, m->gpu_name, ub_path, u->gpu);
        bad = 1;
    }
    size_t nf = au_table_family_count(t);
    double s[64], noise[64];
    size_t cheapest = 0;
    int have_cheapest = 0;
    for (size_t i = 0; i < nf && i < 64; ++i) {
        const char *fam = au_table_family_name(t, i);
        au_sample x;
        s[i] = NAN;
        if (au_family_is_dsmem(fam))
            continue;
        if (au_table_lookup(t, fam, au_table_n_max(t, fam), 1, 0, &x) != AU_OK) {
            fprintf(stderr, "%s: family %s has no cell at its largest n, a = 1, c = 0\n", table_path, fam);
            bad = 1;
            continue;
        }
        s[i] = x.service_cycles;
        noise[i] = fmin(NOISE_MAX * x.service_cycles, fmax(NOISE_REL * x.service_cycles, NOISE_MAD * x.mad_cycles));
        if (!have_cheapest || s[i] < s[cheapest])
            cheapest = i;
        have_cheapest = 1;
    }
    for (size_t i = 0; i < nf && i < 64; ++i) {
        const char *fam = au_table_family_name(t, i);
        if (au_family_is_dsmem(fam)) {
            printf("%-12s not an ATOMS family: not checked\n", fam);
            continue;
        }
        if (isnan(s[i]) || s[i] - s[cheapest] <= noise[i] + noise[cheapest]) {
            printf("%-12s S %.4f: within noise of the cheapest (%s %.4f)\n", fam, s[i],
                   au_table_family_name(t, cheapest), s[cheapest]);
            continue;
        }
        char name[64];
        ub_case_name(fam, name, sizeof name);
        const ub_case *c = ub_find(u, name);
        if (!c) {
            fprintf(stderr,
                    "%s: %s costs %.4f, %.4f above the cheapest (%s), and %s has no case %s to "
                    "prove it\n",
                    table_path, fam, s[i], s[i] - s[cheapest], au_table_family_name(t, cheapest), ub_path, name);
            bad = 1;
        } else if (fabs(c->cycles - s[i]) > CONFIRM_REL * s[i]) {
            fprintf(stderr,
                    "%s: %s costs %.4f, %.4f above the cheapest (%s), but the unit-bound kernel %s "
                    "runs at %.4f cycles per job: the table's kernel is not bound by the unit\n",
                    table_path, fam, s[i], s[i] - s[cheapest], au_table_family_name(t, cheapest), name, c->cycles);
            bad = 1;
        } else {
            printf("%-12s S %.4f: above the cheapest (%s %.4f), confirmed by %s at %.4f\n", fam, s[i],
                   au_table_family_name(t, cheapest), s[cheapest], name, c->cycles);
        }
    }
    free(u);
    au_table_free(t);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (argc - 1) % 2) {
        fprintf(stderr, "usage: test_family_costs TABLE UNIT_BOUND.csv[,MORE.csv] [TABLE UNIT_BOUND.csv ...]\n");
        return 2;
    }
    int bad = 0;
    for (int i = 1; i < argc; i += 2) {
        printf("== %s against %s\n", argv[i], argv[i + 1]);
        bad |= check_pair(argv[i], argv[i + 1]);
    }
    printf(bad ? "FAILED\n" : "passed\n");
    return bad;
}
