/*
 * test_results.c - from clock readings to a table, without a GPU: service time of one pass and
 * its rejection rules (ATOMS and dsmem passes), statistics over repetitions, the device-name
 * slug, metadata, writing a table and reading it back through the model library, merging
 * families into an existing table (--merge), and the --compare / --check-thinning checks on
 * synthetic tables.  argv[1] = a scratch directory.
 */
#include "cal.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static const char *dir = ".";

static const char *scratch(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void test_item_service(void)
{
    au_cal_item it = {8, 0, 4, 4, 100, AU_CAL_PAT_BANK};
    au_cal_slot s[2];
    double v = 0;
    memset(s, 0, sizeof s);
    s[0] = (au_cal_slot){1000, 1000 + 8 * 100 * 4, 900, 5, 8};
    CHECK_EQ_INT(au_cal_item_service(s, &it, 32, &v), AU_CAL_REJ_NONE);
    CHECK_NEAR(v, 4.0, 1e-12);
    CHECK_EQ_INT(au_cal_skew(s, &it, 32), 0); /* one block: nothing to compare */
    s[0].warps = 0;                           /* item not run */
    CHECK_EQ_INT(au_cal_item_service(s, &it, 32, &v), AU_CAL_REJ_NOT_RUN);
    s[0].warps = 8;
    s[0].end = 0; /* the runtime-false guard fired */
    CHECK_EQ_INT(au_cal_item_service(s, &it, 32, &v), AU_CAL_REJ_CLOCK);

    /* n = 48: 32 warps in block 0, 16 in block 1, on one SM; T = last end - first start */
    au_cal_item big = {48, 0, 1, 1, 10, AU_CAL_PAT_BANK};
    s[0] = (au_cal_slot){2000, 2400, 1990, 7, 32};
    s[1] = (au_cal_slot){1990, 2470, 1990, 7, 16};
    CHECK_EQ_INT(au_cal_item_service(s, &big, 32, &v), AU_CAL_REJ_NONE);
    CHECK_NEAR(v, 480.0 / (48 * 10), 1e-12);
    CHECK_EQ_INT(au_cal_skew(s, &big, 32), 10);
    s[1].start = 2000 + AU_CAL_SKEW_MAX + 1; /* block 1 started too late */
    CHECK_EQ_INT(au_cal_item_service(s, &big, 32, &v), AU_CAL_REJ_SKEW);
    s[1].start = 1990;
    s[1].smid = 8; /* the pair did not land on one SM */
    CHECK_EQ_INT(au_cal_item_service(s, &big, 32, &v), AU_CAL_REJ_SPLIT);
    s[1].smid = 7;
    s[1].warps = 0;
    CHECK_EQ_INT(au_cal_item_service(s, &big, 32, &v), AU_CAL_REJ_NOT_RUN);
    CHECK(strcmp(au_cal_reject_name(AU_CAL_REJ_SPLIT), "blocks on different SMs") == 0);
}

/* One dsmem pass: median over blocks of cycles / (n k); blocks on a shared SM, blocks that did
 * not run and bad clocks are rejected. */
static void test_dsmem_service(void)
{
    long long cyc[5] = {3000, 1000, 2000, 900000, 1500};
    int smid[5] = {4, 0, 2, 8, 6};
    double v = -1;
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 5, 2, 50, 1, &v), AU_CAL_REJ_NONE);
    CHECK_NEAR(v, 2000.0 / (2 * 50), 1e-12); /* median: an outlier block does not move it */
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 4, 1, 10, 1, &v), AU_CAL_REJ_NONE);
    CHECK_NEAR(v, 2500.0 / 10, 1e-12); /* even count: mean of the middle two */
    smid[3] = 2;                       /* two blocks on SM 2 */
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 5, 2, 50, 1, &v), AU_CAL_REJ_SHARED_SM);
    smid[3] = -1; /* a block that did not run (or no sm_90 code) */
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 5, 2, 50, 1, &v), AU_CAL_REJ_NOT_RUN);
    smid[3] = 8;
    cyc[1] = 0;
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 5, 2, 50, 1, &v), AU_CAL_REJ_CLOCK);
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 0, 2, 50, 1, &v), AU_CAL_REJ_NOT_RUN);
    CHECK(strcmp(au_cal_reject_name(AU_CAL_REJ_SHARED_SM), "two blocks on one SM") == 0);
}

/* A hot family's pass: per cluster (consecutive blocks) its longest block's cycles over the
 * cluster's jobs, the median over clusters; a grid that is not whole clusters is rejected. */
static void test_dsmem_service_hot(void)
{
    long long cyc[6] = {900, 4000, 1000, 3000, 700, 8000};
    int smid[6] = {0, 1, 2, 3, 4, 5};
    double v = -1;
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 6, 2, 10, 2, &v), AU_CAL_REJ_NONE);
    CHECK_NEAR(v, 4000.0 / (2 * 2 * 10), 1e-12); /* clusters' maxima 4000, 3000, 8000: median 4000 */
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 6, 1, 10, 3, &v), AU_CAL_REJ_NONE);
    CHECK_NEAR(v, 6000.0 / (3 * 1 * 10), 1e-12); /* maxima 4000 and 8000: mean of the two */
    CHECK_EQ_INT(au_cal_dsmem_service(cyc, smid, 5, 2, 10, 2, &v), AU_CAL_REJ_NOT_RUN);
}

static void test_stats(void)
{
    au_sample s;
    double odd[] = {5, 1, 3, 100, 2};
    CHECK_EQ_INT(au_cal_stats(odd, 5, &s), AU_OK);
    CHECK_NEAR(s.service_cycles, 3, 0);
    CHECK_NEAR(s.min_cycles, 1, 0);
    CHECK_NEAR(s.max_cycles, 100, 0);
    CHECK_NEAR(s.mad_cycles, 2, 0); /* |dev| = 2,1,0,2,97 */
    double even[] = {4, 1, 2, 3};
    CHECK_EQ_INT(au_cal_stats(even, 4, &s), AU_OK);
    CHECK_NEAR(s.service_cycles, 2.5, 0);
    CHECK_NEAR(s.mad_cycles, 1.0, 0);
    double one[] = {7};
    CHECK_EQ_INT(au_cal_stats(one, 1, &s), AU_OK);
    CHECK(s.service_cycles == 7 && s.min_cycles == 7 && s.max_cycles == 7 && s.mad_cycles == 0);
    CHECK(au_cal_stats(one, 0, &s) == AU_E_INVAL);
}

static void test_slug(void)
{
    char b[64];
    au_cal_slug("NVIDIA H200", b, sizeof b);
    CHECK(strcmp(b, "nvidia-h200") == 0);
    au_cal_slug("NVIDIA H100 80GB HBM3", b, sizeof b);
    CHECK(strcmp(b, "nvidia-h100-80gb-hbm3") == 0);
    au_cal_slug("  --GH100 (PCIe)-- ", b, sizeof b);
    CHECK(strcmp(b, "gh100-pcie") == 0);
    au_cal_slug("???", b, sizeof b);
    CHECK(strcmp(b, "gpu") == 0);
    au_cal_slug("NVIDIA H200", b, 7);
    CHECK(strlen(b) <= 6);
}

static const au_cal_devinfo dev = {"NVIDIA H200", 9, 0, 132, 64, 32, "13.0", "580.159.04"};

/* A synthetic "measurement": S of a saturated unit, ~1 cycle per wavefront, 2 for CAS, 1/n at
 * low load; rep r adds r * noise. */
static double model_s(const au_cal_point *p, int r, double noise)
{
    const double base = ((p->n - p->c) * 1.0 + p->c * 2.0) * p->a / p->n;
    const double lat = 14.0 / p->n;
    return (base > lat ? base : lat) * (1.0 + r * noise);
}

static int make_table(const char *path, const char *fams, int cgrid, int quick, int maxw, double scale, int reps)
{
    unsigned mask;
    au_cal_plan p;
    au_table_meta m;
    int rc;
    au_cal_parse_families(fams, &mask);
    const au_cal_plan_opts o = {maxw, mask, quick, cgrid, 256, 0};
    if ((rc = au_cal_plan_build(&o, &p)))
        return rc;
    double *s = malloc(p.npts * (size_t)reps * sizeof *s);
    for (size_t i = 0; i < p.npts; ++i)
        for (int r = 0; r < reps; ++r)
            s[i * (size_t)reps + (size_t)r] = scale * model_s(&p.pts[i], r, 0.01);
    au_cal_devinfo d = dev;
    d.max_warps = maxw;
    au_cal_fill_meta(&m, &d, 0, 256, reps, 1980.0, "2026-11-22", "synthetic test table");
    size_t rows = 0;
    rc = au_cal_write_table(&m, &p, s, reps, path, &rows);
    if (rc == AU_OK && rows != p.npts)
        rc = -1;
    free(s);
    au_cal_plan_free(&p);
    return rc;
}

static void test_write_and_load(void)
{
    const char *path = scratch("cal-quick.csv");
    CHECK_EQ_INT(make_table(path, "all", AU_CAL_CGRID_AUTO, 1, 64, 1.0, 5), AU_OK);
    au_table *t = NULL;
    CHECK_EQ_INT(au_table_load(path, &t), AU_OK);
    if (!t) {
        fprintf(stderr, "load: %s\n", au_last_error());
        return;
    }
    const au_table_meta *m = au_table_get_meta(t);
    CHECK(strcmp(m->gpu_name, "NVIDIA H200") == 0);
    CHECK(m->cc_major == 9 && m->cc_minor == 0 && m->sm_count == 132 && m->max_warps_per_sm == 64);
    CHECK(strcmp(m->method, "steady") == 0);
    CHECK(m->jobs_per_warp == 256 && m->repetitions == 5);
    CHECK_NEAR(m->sm_clock_mhz, 1980.0, 1e-9);
    CHECK(strcmp(m->cuda_version, "13.0") == 0 && strcmp(m->driver_version, "580.159.04") == 0);
    CHECK(strcmp(m->status, "measured") == 0 && strcmp(m->tool_version, AU_VERSION_STRING) == 0);
    CHECK(strcmp(m->date, "2026-11-22") == 0 && strcmp(m->note, "synthetic test table") == 0);
    CHECK_EQ_INT(au_table_family_count(t), au_cal_nfamilies);
    /* median of r = 0..4 is r = 2; min r = 0; max r = 4; MAD = 1 step */
    au_sample s;
    CHECK_EQ_INT(au_table_lookup(t, "add", 64, 32, 0, &s), AU_OK);
    CHECK_NEAR(s.service_cycles, 32.0 * 1.02, 1e-3);
    CHECK_NEAR(s.min_cycles, 32.0, 1e-3);
    CHECK_NEAR(s.max_cycles, 32.0 * 1.04, 1e-3);
    CHECK_NEAR(s.mad_cycles, 32.0 * 0.01, 1e-3);
    CHECK_EQ_INT(au_table_lookup(t, "cas64", 32, 16, 32, &s), AU_OK);
    CHECK_NEAR(s.service_cycles, 32.0 * 1.02, 1e-3);
    /* the dsmem families: n up to 32, c = 0 rows only, and the table loads */
    CHECK_EQ_INT(au_table_lookup(t, "dsmem_remote_c16", 32, 32, 0, &s), AU_OK);
    CHECK_EQ_INT(au_table_lookup(t, "dsmem_remote_c16", 32, 32, 32, &s), AU_E_NOTFOUND);
    CHECK_EQ_INT(au_table_n_max(t, "dsmem_local"), 32);
    CHECK_EQ_INT(au_table_n_max(t, "add"), 64);
    au_table_free(t);

    /* burst metadata */
    au_table_meta bm;
    au_cal_fill_meta(&bm, &dev, 1, 1, 3, 0, NULL, NULL);
    CHECK(strcmp(bm.method, "burst") == 0 && bm.jobs_per_warp == 1 && bm.sm_clock_mhz == 0);
    CHECK(bm.date[0] == '\0' && bm.note[0] == '\0');
}

/* The rows and statistics of family fam in a and b are the same (b's values scaled by k). */
static int same_family(const au_table *a, const au_table *b, const char *fam, double k)
{
    int cells = 0;
    for (int n = 1; n <= 64; ++n)
        for (int x = 1; x <= 32; ++x)
            for (int c = 0; c <= n; ++c) {
                au_sample s, u;
                const int ra = au_table_lookup(a, fam, n, x, c, &s), rb = au_table_lookup(b, fam, n, x, c, &u);
                if (ra != rb)
                    return 0;
                if (ra != AU_OK)
                    continue;
                if (fabs(s.service_cycles * k - u.service_cycles) > 1e-3 * u.service_cycles)
                    return 0;
                ++cells;
            }
    return cells;
}

/* --merge: an existing table's other families kept, the measured ones replaced or added, its
 * metadata kept with the note extended; tables of another GPU or method refused. */
static void test_merge(void)
{
    const char *old_path = scratch("merge-old.csv"), *new_path = scratch("merge-new.csv"),
               *out = scratch("merge-out.csv");
    CHECK_EQ_INT(make_table(old_path, "add,cas,dsmem_local", AU_CAL_CGRID_AUTO, 1, 64, 1.0, 3), AU_OK);
    CHECK_EQ_INT(make_table(new_path, "add,dsmem_local,dsmem_remote", AU_CAL_CGRID_AUTO, 1, 64, 2.0, 3), AU_OK);
    au_table *old = NULL, *fresh = NULL, *merged = NULL;
    CHECK_EQ_INT(au_table_load(old_path, &old), AU_OK);
    CHECK_EQ_INT(au_table_load(new_path, &fresh), AU_OK);
    if (!old || !fresh)
        goto done;
    /* the plan and samples of a run of dsmem_local and dsmem_remote, at twice the old values */
    unsigned mask;
    au_cal_plan p;
    au_cal_parse_families("dsmem_local,dsmem_remote", &mask);
    const au_cal_plan_opts o = {64, mask, 1, AU_CAL_CGRID_AUTO, 2048, 1024};
    CHECK_EQ_INT(au_cal_plan_build(&o, &p), AU_OK);
    double *sm = malloc(p.npts * 3 * sizeof *sm);
    for (size_t i = 0; i < p.npts; ++i)
        for (int r = 0; r < 3; ++r)
            sm[i * 3 + (size_t)r] = 2.0 * model_s(&p.pts[i], r, 0.01);
    CHECK_EQ_INT(au_cal_merge_check(old, &dev, 0), AU_OK);
    size_t rows = 0;
    CHECK_EQ_INT(au_cal_merge_table(old, "merged 2026-11-25: dsmem_local dsmem_remote", NULL, &p, sm, 3, out, &rows),
                 AU_OK);
    CHECK_EQ_INT(au_table_load(out, &merged), AU_OK);
    if (merged) {
        CHECK_EQ_INT(au_table_family_count(merged), 4);
        const int add_cells = same_family(old, merged, "add", 1.0), cas_cells = same_family(old, merged, "cas", 1.0);
        CHECK(add_cells > 0 && cas_cells > 0);                        /* kept as they were */
        CHECK(same_family(fresh, merged, "dsmem_local", 1.0) == 36);  /* replaced: the new values */
        CHECK(same_family(fresh, merged, "dsmem_remote", 1.0) == 36); /* added */
        CHECK(same_family(old, merged, "dsmem_local", 2.0) == 36);
        CHECK_EQ_INT(rows, (size_t)add_cells + (size_t)cas_cells + 72);
        const au_table_meta *m = au_table_get_meta(merged), *mo = au_table_get_meta(old);
        CHECK(strcmp(m->gpu_name, mo->gpu_name) == 0 && strcmp(m->date, mo->date) == 0);
        CHECK(m->jobs_per_warp == mo->jobs_per_warp && m->repetitions == mo->repetitions);
        CHECK(strcmp(m->note, "synthetic test table; merged 2026-11-25: dsmem_local dsmem_remote") == 0);
    }
    /* the load latencies and MATCH cost measured now go into the merged header; a merge without
     * them keeps the table's */
    {
        const au_cal_latency lat = {301.9, 632.0, 0, 0, 2.0, 11.7};
        au_table *a = NULL, *b = NULL;
        CHECK_EQ_INT(au_cal_merge_table(old, "lat", &lat, &p, sm, 3, out, &rows), AU_OK);
        CHECK_EQ_INT(au_table_load(out, &a), AU_OK);
        if (a) {
            CHECK_NEAR(au_table_get_meta(a)->l2_hit_latency_cycles, 301.9, 1e-9);
            CHECK_NEAR(au_table_get_meta(a)->dram_latency_cycles, 632.0, 1e-9);
            CHECK_NEAR(au_table_get_meta(a)->match_any_cycles_per_value, 2.0, 1e-9);
            CHECK_NEAR(au_table_get_meta(a)->match_any_latency_cycles_per_value, 11.7, 1e-9);
            CHECK_EQ_INT(au_cal_merge_table(a, "keep", NULL, &p, sm, 3, out, &rows), AU_OK);
            CHECK_EQ_INT(au_table_load(out, &b), AU_OK);
            CHECK(b && au_table_get_meta(b)->dram_latency_cycles == 632.0);
            /* --latency --merge: no plan, every row of the table kept as it was */
            const au_cal_plan none = {NULL, 0};
            const au_cal_latency lat2 = {290.0, 0, 0, 0, 0, 0};
            size_t all = 0;
            au_table *c = NULL;
            CHECK_EQ_INT(au_cal_merge_table(a, NULL, &lat2, &none, NULL, 1, out, &all), AU_OK);
            CHECK_EQ_INT(au_table_load(out, &c), AU_OK);
            if (c) {
                CHECK_EQ_INT(all, rows);
                CHECK(same_family(a, c, "add", 1.0) > 0 && same_family(a, c, "dsmem_remote", 1.0) == 36);
                CHECK(au_table_get_meta(c)->l2_hit_latency_cycles == 290.0);
                CHECK(au_table_get_meta(c)->dram_latency_cycles == 632.0);
                CHECK(au_table_get_meta(c)->match_any_cycles_per_value == 2.0);
                CHECK(strcmp(au_table_get_meta(c)->note, au_table_get_meta(a)->note) == 0);
            }
            au_table_free(c);
        }
        au_table_free(a);
        au_table_free(b);
    }
    /* merging into the output file itself: the input is read before it is written */
    CHECK_EQ_INT(au_cal_merge_table(merged ? merged : old, "again", NULL, &p, sm, 3, out, &rows), AU_OK);
    /* a note too long for both: the old one is cut after a word, the new part kept whole */
    {
        au_table_meta m = *au_table_get_meta(old);
        for (size_t i = 0; i < sizeof m.note - 1; ++i)
            m.note[i] = i % 10 == 9 ? ' ' : 'x';
        m.note[sizeof m.note - 1] = '\0';
        au_table *t = NULL, *u = NULL;
        CHECK_EQ_INT(au_table_new(&m, &t), AU_OK);
        const au_sample s = {1, 1, 1, 0};
        au_table_add(t, "add", 1, 1, 0, &s);
        au_table_add(t, "add", 1, 1, 1, &s);
        CHECK_EQ_INT(au_table_finalize(t), AU_OK);
        CHECK_EQ_INT(au_cal_merge_table(t, "merged: dsmem_local", NULL, &p, sm, 3, out, &rows), AU_OK);
        CHECK_EQ_INT(au_table_load(out, &u), AU_OK);
        if (u) {
            const char *note = au_table_get_meta(u)->note;
            CHECK(strlen(note) < sizeof m.note && strlen(note) > sizeof m.note - 16);
            CHECK(strcmp(note + strlen(note) - 25, "x...; merged: dsmem_local") == 0);
            CHECK(strncmp(note, "xxxxxxxxx xxxxxxxxx", 19) == 0);
        }
        au_table_free(u);
        au_table_free(t);
    }
    /* rows of another GPU, compute capability, method or SM size do not go in */
    au_cal_devinfo other = dev;
    snprintf(other.name, sizeof other.name, "NVIDIA H100 80GB HBM3");
    CHECK_EQ_INT(au_cal_merge_check(old, &other, 0), AU_E_INVAL);
    CHECK(strstr(au_last_error(), "measure on that GPU") != NULL);
    other = dev;
    other.cc_major = 10;
    CHECK_EQ_INT(au_cal_merge_check(old, &other, 0), AU_E_INVAL);
    CHECK_EQ_INT(au_cal_merge_check(old, &dev, 1), AU_E_INVAL);
    CHECK(strstr(au_last_error(), "steady method") != NULL);
    other = dev;
    other.max_warps = 48;
    CHECK_EQ_INT(au_cal_merge_check(old, &other, 0), AU_E_INVAL);
    free(sm);
    au_cal_plan_free(&p);
done:
    au_table_free(merged);
    au_table_free(fresh);
    au_table_free(old);
}

static void test_compare(void)
{
    const char *a = scratch("cal-a.csv"), *b = scratch("cal-b.csv"), *c = scratch("cal-c.csv");
    CHECK_EQ_INT(make_table(a, "add,cas64", AU_CAL_CGRID_AUTO, 1, 64, 1.0, 3), AU_OK);
    CHECK_EQ_INT(make_table(b, "add,cas64", AU_CAL_CGRID_AUTO, 1, 64, 1.01, 3), AU_OK);
    CHECK_EQ_INT(make_table(c, "add,cas64", AU_CAL_CGRID_AUTO, 1, 64, 1.05, 3), AU_OK);
    FILE *out = fopen(scratch("cal-compare.txt"), "w+");
    CHECK(out != NULL);
    if (!out)
        return;
    CHECK_EQ_INT(au_cal_compare(a, b, out), AU_OK); /* ~1 % everywhere */
    CHECK_EQ_INT(au_cal_compare(a, c, out), 1);     /* ~4.9 %: over the 2 % limit */
    CHECK(au_cal_compare(a, scratch("no-such.csv"), out) == AU_E_IO);
    rewind(out);
    char line[256];
    int saw = 0;
    while (fgets(line, sizeof line, out))
        if (strncmp(line, "all,", 4) == 0) {
            double med = 0;
            sscanf(line, "all,%*d,%lf", &med);
            CHECK(saw != 0 || (med > 0.99 && med < 1.0)); /* 200 * 0.01 / 2.01 = 0.995 % */
            ++saw;
        }
    CHECK_EQ_INT(saw, 2);
    fclose(out);
}

static void test_thinning(void)
{
    /* S is linear in c in the synthetic model, so interpolating the sparse grid is exact */
    const char *full = scratch("cal-full.csv");
    CHECK_EQ_INT(make_table(full, "add,popc_inc", AU_CAL_CGRID_FULL, 0, 8, 1.0, 1), AU_OK);
    FILE *out = fopen(scratch("cal-thin.txt"), "w");
    CHECK(out != NULL);
    if (!out)
        return;
    CHECK_EQ_INT(au_cal_check_thinning(full, out), AU_OK);
    /* a table without any full c grid cannot be checked */
    const char *sparse = scratch("cal-sparse.csv");
    CHECK_EQ_INT(make_table(sparse, "add", AU_CAL_CGRID_ENDS, 0, 8, 1.0, 1), AU_OK);
    CHECK(au_cal_check_thinning(sparse, out) < 0);
    fclose(out);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    test_item_service();
    test_dsmem_service();
    test_dsmem_service_hot();
    test_stats();
    test_slug();
    test_write_and_load();
    test_merge();
    test_compare();
    test_thinning();
    return check_report("test_calibrate_results");
}
