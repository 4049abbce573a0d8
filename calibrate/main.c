/*
 * main.c - atomutil-calibrate: measures the service-time table S(family, n, a, c) of the shared
 * atomic unit on one GPU (the ATOMS families with runner.c, the distributed-shared-memory
 * families with dsmem.c) and writes it in table format v1, or merges the families measured into
 * an existing table (--merge); also checks tables (--compare, --check-thinning) and single
 * points (--point, for counter checks).  The only place that picks an exit status: 0 ok,
 * 1 failure, 2 usage, 3 no usable CUDA device.
 */
#include "cal.h"
#include "atomutil/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "atomutil-calibrate";

static int fail_status(int rc)
{
    fprintf(stderr, "%s: %s\n", prog, au_last_error());
    return rc == AU_CAL_E_NODEV ? AU_CAL_EXIT_NODEV : AU_CAL_EXIT_FAIL;
}

static const char *pattern_name(int p)
{
    return p == AU_CAL_PAT_WORD       ? "word"
           : p == AU_CAL_PAT_DISTINCT ? "distinct"
           : p == AU_CAL_PAT_SPREAD   ? "spread"
                                      : "bank";
}

static const char *cgrid_name(int g)
{
    static const char *names[] = {"auto", "full", "sparse", "ends", "zero"};
    return g >= 0 && g < 5 ? names[g] : "?";
}

/* Progress bar on stderr, redrawn in place; only installed when stderr is a terminal. */
typedef struct bar_state {
    double t0;
    int last_pct;
} bar_state;

static void bar(double fraction, const char *family, void *user)
{
    bar_state *b = user;
    const int pct = (int)(fraction * 100.0 + 0.5), width = 40, fill = (int)(fraction * width);
    if (pct == b->last_pct)
        return;
    b->last_pct = pct;
    fprintf(stderr, "\r[%.*s%*s] %3d%% %-12s %5.1f s", fill, "########################################", width - fill,
            "", pct, family, au_monotonic_s() - b->t0);
    fflush(stderr);
}

static void list_families(void)
{
    /* cluster_size 0: an ordinary launch (the ATOMS families) */
    printf("family,sass,width,pattern,a_max,wavefronts_per_pass,default_c_grid,cluster_size,operation\n");
    for (int i = 0; i < au_cal_nfamilies; ++i) {
        const au_cal_family *f = &au_cal_families[i];
        printf("%s,%s,%d,%s,%d,%d,%s,%d,\"%s\"\n", f->name, f->sass, f->width, pattern_name(f->pattern), f->max_a,
               f->wf_per_way, cgrid_name(f->cgrid), f->cluster, f->what);
    }
}

static int run_points(const au_cal_config *cfg)
{
    int rc, status = AU_CAL_EXIT_FAIL;
    au_cal_gpu *g = NULL;
    au_cal_devinfo dev;
    au_cal_point pts[AU_CAL_MAX_POINTS];
    double s[AU_CAL_MAX_POINTS];
    int skew[AU_CAL_MAX_POINTS];
    for (int i = 0; i < cfg->npoints; ++i) {
        const au_cal_pspec *q = &cfg->points[i];
        if ((rc = au_cal_make_point(q->family, q->n, q->a, q->c, cfg->jobs, cfg->pattern, &pts[i]))) {
            status = fail_status(rc);
            goto done;
        }
    }
    if ((rc = au_cal_gpu_open(cfg->device, &g, &dev))) {
        status = fail_status(rc);
        goto done;
    }
    for (int i = 0; i < cfg->npoints; ++i)
        if (pts[i].n > dev.max_warps) {
            fprintf(stderr, "%s: point n=%d is over the %d resident warps of an SM of %s\n", prog, pts[i].n,
                    dev.max_warps, dev.name);
            status = AU_CAL_EXIT_USAGE;
            goto done;
        }
    if ((rc = au_cal_gpu_measure_single(g, pts, (size_t)cfg->npoints, cfg->jobs, s, skew))) {
        status = fail_status(rc);
        goto done;
    }
    /* Each launch runs the point twice (warm-up and timed pass): the counts a profiler sees per
     * launch are twice one pass's.  launch_wavefronts is empty where not predicted. */
    printf("family,n,a,c,pattern,own_pattern,lanes_op,lanes_cas,jobs_per_warp,launch_atoms,"
           "launch_mix_cas_atoms,launch_wavefronts,service_cycles,block_skew_cycles\n");
    for (int i = 0; i < cfg->npoints; ++i) {
        const au_cal_point *p = &pts[i];
        const long wf = au_cal_point_wavefronts(p, cfg->jobs);
        char wfs[32] = "";
        if (wf >= 0)
            snprintf(wfs, sizeof wfs, "%ld", wf);
        printf("%s,%d,%d,%d,%s,%s,%d,%d,%d,%ld,%ld,%s,%.4f,%d\n", au_cal_families[p->family].name, p->n, p->a, p->c,
               pattern_name(p->pattern), wf >= 0 ? "yes" : "no", p->lanes_op, p->lanes_cas, cfg->jobs,
               2L * p->n * cfg->jobs, 2L * p->c * cfg->jobs, wfs, s[i], skew[i]);
    }
    status = AU_CAL_EXIT_OK;
done:
    au_cal_gpu_close(g);
    return status;
}

/* The load latencies on the device au_cal_gpu_open selected, with a note on stderr for one it
 * could not measure. */
static int measure_latency(int device, au_cal_latency *lat)
{
    char why[160];
    const int rc = au_cal_load_latency(device, lat, why, sizeof why);
    if (rc == AU_OK && why[0])
        fprintf(stderr, "%s: note: %s\n", prog, why);
    return rc;
}

/* --latency: the load latencies as CSV on stdout, or with --merge FILE, FILE with them in its
 * header to -o (rows unchanged). */
static int run_latency(const au_cal_config *cfg)
{
    int rc, status = AU_CAL_EXIT_FAIL;
    au_cal_gpu *g = NULL;
    au_cal_devinfo dev;
    au_table *existing = NULL;
    au_cal_latency lat;
    const double t0 = au_monotonic_s();
    if ((cfg->merge && (rc = au_table_load(cfg->merge, &existing))) || (rc = au_cal_gpu_open(cfg->device, &g, &dev)) ||
        (existing &&
         (rc = au_cal_merge_check(existing, &dev, !strcmp(au_table_get_meta(existing)->method, "burst")))) ||
        (rc = measure_latency(cfg->device, &lat))) {
        status = fail_status(rc);
        goto done;
    }
    if (existing) {
        const au_cal_plan none = {NULL, 0};
        size_t rows = 0;
        if ((rc = au_cal_merge_table(existing, NULL, &lat, &none, NULL, 1, cfg->output, &rows))) {
            status = fail_status(rc);
            goto done;
        }
    } else {
        printf("gpu,l2_hit_latency_cycles,dram_latency_cycles,l2_buffer_bytes,dram_buffer_bytes,"
               "match_any_cycles_per_value,match_any_latency_cycles_per_value\n");
        printf("\"%s\",%.1f,%.1f,%ld,%ld,%.2f,%.2f\n", dev.name, lat.l2_hit_cycles, lat.dram_cycles, lat.l2_bytes,
               lat.dram_bytes, lat.match_cycles_per_value, lat.match_latency_per_value);
    }
    fprintf(stderr,
            "%s: load latency on %s: L2 hit %.1f, DRAM %.1f SM cycles (buffers %ld and %ld MiB); MATCH.ANY %.2f "
            "cycles per value (latency %.2f) in %.1f s%s%s\n",
            prog, dev.name, lat.l2_hit_cycles, lat.dram_cycles, lat.l2_bytes >> 20, lat.dram_bytes >> 20,
            lat.match_cycles_per_value, lat.match_latency_per_value, au_monotonic_s() - t0, existing ? " -> " : "",
            existing ? cfg->output : "");
    status = AU_CAL_EXIT_OK;
done:
    au_table_free(existing);
    au_cal_gpu_close(g);
    return status;
}

/* Progress of one runner drawn as its share [base, base + span) of the whole bar. */
typedef struct bar_part {
    bar_state *bar;
    double base, span;
} bar_part;

static void bar_scaled(double fraction, const char *family, void *user)
{
    const bar_part *b = user;
    bar(b->base + b->span * fraction, family, b->bar);
}

/* Leaves out of *families the dsmem families this GPU cannot run, each with a note on stderr;
 * without clusters at all that is an error when the user named a dsmem family.  info gets what
 * the probe found. */
static int pick_dsmem(const au_cal_config *cfg, unsigned *families, au_cal_dsmem_info *info)
{
    const unsigned dm = au_cal_dsmem_mask();
    int rc;
    memset(info, 0, sizeof *info);
    if (!(*families & dm))
        return AU_OK;
    if ((rc = au_cal_dsmem_probe(cfg->device, *families & dm, info)))
        return rc;
    for (int f = au_cal_natoms; f < au_cal_nfamilies; ++f) {
        const unsigned bit = 1u << f;
        if (!(*families & bit))
            continue;
        if (!info->supported && (cfg->named & bit))
            return au_set_error(AU_E_INVAL, "family %s: %s", au_cal_families[f].name, info->why);
        if (info->supported && info->clusters[f] < 1)
            fprintf(stderr,
                    "%s: note: %s left out: this GPU cannot run clusters of %d blocks "
                    "with one block per SM\n",
                    prog, au_cal_families[f].name, au_cal_families[f].cluster);
        if (!info->supported || info->clusters[f] < 1)
            *families &= ~bit;
    }
    if (!info->supported)
        fprintf(stderr, "%s: note: dsmem families left out: %s\n", prog, info->why);
    if (!*families)
        return au_set_error(AU_E_NOTFOUND, "no family left to measure");
    return AU_OK;
}

/* "add cas dsmem_local" of the families in mask. */
static void family_names(unsigned mask, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < au_cal_nfamilies; ++i)
        if (mask & (1u << i)) {
            if (out[0])
                strncat(out, " ", size - strlen(out) - 1);
            strncat(out, au_cal_families[i].name, size - strlen(out) - 1);
        }
}

/* ", SM clock ..., runs redone ..." of the ATOMS runner, for the summary line. */
static void atoms_summary(au_cal_gpu *g, char *buf, size_t size)
{
    const long *redone = au_cal_gpu_redone(g);
    snprintf(buf, size,
             ", SM clock %.0f MHz, %ld runs redone: %ld not run, "
             "%ld split, %ld skewed (worst %d cycles), %ld clock",
             au_cal_gpu_clock_mhz(g), redone[1] + redone[2] + redone[3] + redone[4], redone[1], redone[2], redone[3],
             au_cal_gpu_worst_skew(g), redone[4]);
}

/* The dsmem runner's summary line: launches, clusters x blocks per family. */
static void dsmem_summary(const au_cal_config *cfg, const au_cal_dsmem_info *dsm, size_t npts, unsigned families)
{
    char cl[256] = "";
    for (int f = au_cal_natoms; f < au_cal_nfamilies; ++f)
        if (families & (1u << f))
            snprintf(cl + strlen(cl), sizeof cl - strlen(cl), "%s%s %dx%d", cl[0] ? ", " : "", au_cal_families[f].name,
                     dsm->clusters[f], au_cal_families[f].cluster);
    fprintf(stderr,
            "%s: dsmem: %zu points, %d jobs per warp, %ld launches (%ld redone), GPU %.1f s; "
            "clusters x blocks: %s\n",
            prog, npts, cfg->dsmem_jobs, dsm->launches, dsm->redone, dsm->gpu_seconds, cl);
}

static int run_table(const au_cal_config *cfg)
{
    int rc, status = AU_CAL_EXIT_FAIL;
    au_cal_gpu *g = NULL;
    au_cal_devinfo dev;
    au_cal_dsmem_info dsm;
    au_cal_plan plan = {0};
    au_table *existing = NULL;
    double *samples = NULL;
    char path[512], slug[96], date[32], note[256], fams[512];
    bar_state bs = {au_monotonic_s(), -1};
    const double t0 = bs.t0;
    unsigned families = cfg->families;

    /* the table to merge into is read first and checked against the GPU before any measurement */
    if ((cfg->merge && (rc = au_table_load(cfg->merge, &existing))) || (rc = au_cal_gpu_open(cfg->device, &g, &dev)) ||
        (existing && (rc = au_cal_merge_check(existing, &dev, cfg->burst))) ||
        (rc = pick_dsmem(cfg, &families, &dsm))) {
        status = fail_status(rc);
        goto done;
    }
    if (cfg->add_implied)
        fprintf(stderr,
                "%s: note: family add is measured too: every table needs it (to add "
                "families to an existing table: --merge FILE)\n",
                prog);
    const au_cal_plan_opts po = {dev.max_warps, families, cfg->quick, cfg->cgrid, cfg->jobs, cfg->dsmem_jobs};
    if ((rc = au_cal_plan_build(&po, &plan))) {
        status = fail_status(rc);
        goto done;
    }
    samples = malloc(plan.npts * (size_t)cfg->reps * sizeof *samples);
    if (!samples) {
        au_set_error(AU_E_NOMEM, "out of memory");
        status = fail_status(AU_E_NOMEM);
        goto done;
    }
    /* the ATOMS points (all SMs share their work lists), then the dsmem points (one launch each);
     * each runner draws its share of the bar, by predicted time */
    const size_t na = au_cal_plan_atoms(&plan);
    const au_cal_plan atoms = {plan.pts, na}, dsmem = {plan.pts + na, plan.npts - na};
    double ta = 0, td = 0;
    for (size_t i = 0; i < na; ++i)
        ta += 2.0 * plan.pts[i].est_cycles * cfg->reps / dev.sm_count;
    for (size_t i = na; i < plan.npts; ++i)
        td += plan.pts[i].est_cycles * (cfg->reps + 1);
    bar_part pa = {&bs, 0, ta / (ta + td)}, pd = {&bs, ta / (ta + td), td / (ta + td)};
    const au_cal_progress_fn prog_fn = isatty(STDERR_FILENO) ? bar_scaled : NULL;
    rc = atoms.npts ? au_cal_gpu_measure(g, &atoms, cfg->reps, cfg->jobs, samples, prog_fn, &pa) : AU_OK;
    if (rc == AU_OK && dsmem.npts)
        rc = au_cal_dsmem_measure(&dsm, &dsmem, cfg->reps, cfg->dsmem_jobs, samples + na * (size_t)cfg->reps, prog_fn,
                                  &pd);
    if (bs.last_pct >= 0)
        fputc('\n', stderr);
    /* the latencies and MATCH cost are a header's extra: a failure costs them, not the measured table */
    au_cal_latency lat = {0, 0, 0, 0, 0, 0};
    if (rc == AU_OK && measure_latency(cfg->device, &lat) != AU_OK) {
        fprintf(stderr, "%s: note: load latencies and MATCH cost not measured: %s\n", prog, au_last_error());
        memset(&lat, 0, sizeof lat);
    }
    if (rc) {
        status = fail_status(rc);
        goto done;
    }
    const double wall = au_monotonic_s() - t0;

    au_cal_slug(dev.name, slug, sizeof slug);
    if (cfg->output)
        au_strlcpy(path, cfg->output, sizeof path);
    else
        snprintf(path, sizeof path, "atomutil-%s%s%s.csv", slug, cfg->burst ? "-burst" : "",
                 cfg->quick ? "-quick" : "");
    const time_t tnow = time(NULL);
    struct tm tm;
    gmtime_r(&tnow, &tm);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    family_names(families, fams, sizeof fams);
    char dnote[96] = "";
    if (dsmem.npts)
        snprintf(dnote, sizeof dnote, "; dsmem: K %d, one block per SM, a = lanes per word", cfg->dsmem_jobs);
    size_t rows = 0;
    if (existing) {
        /* cut at the table's note size (au_table_meta.note), marked, should the families be many */
        if (snprintf(note, sizeof note, "merged %s (atomutil %s): %s (%s grid, %d reps%s)", date, AU_VERSION_STRING,
                     fams, cfg->quick ? "quick" : "full", cfg->reps, dnote) >= (int)sizeof note)
            au_strlcpy(note + sizeof note - 4, "...", 4);
        rc = au_cal_merge_table(existing, note, &lat, &plan, samples, cfg->reps, path, &rows);
    } else {
        snprintf(note, sizeof note,
                 "a = serialized passes per job (counter wavefronts, halved for the CAS class); c grid "
                 "%s; %s; reps on distinct SMs; %.1f s wall%s",
                 cfg->cgrid == AU_CAL_CGRID_AUTO ? "auto (per family: --list)" : cgrid_name(cfg->cgrid),
                 cfg->quick ? "quick grid" : "full n and a grid", wall, dnote);
        au_table_meta meta;
        au_cal_fill_meta(&meta, &dev, cfg->burst, cfg->jobs, cfg->reps, au_cal_gpu_clock_mhz(g), date, note);
        au_cal_set_latency(&meta, &lat);
        rc = au_cal_write_table(&meta, &plan, samples, cfg->reps, path, &rows);
    }
    if (rc) {
        status = fail_status(rc);
        goto done;
    }
    char atoms_line[256] = ""; /* what the ATOMS runner saw, when it ran */
    if (na)
        atoms_summary(g, atoms_line, sizeof atoms_line);
    fprintf(stderr, "%s: %zu points x %d reps (%s) on %s in %.1f s wall (GPU %.1f s%s) -> %s%s\n", prog, plan.npts,
            cfg->reps, fams, dev.name, au_monotonic_s() - t0, au_cal_gpu_seconds(g) + dsm.gpu_seconds, atoms_line, path,
            existing ? " (merged)" : "");
    if (dsmem.npts)
        dsmem_summary(cfg, &dsm, dsmem.npts, families);
    fprintf(stderr,
            "%s: load latency: L2 hit %.1f, DRAM %.1f SM cycles; MATCH.ANY %.2f cycles per value (0: not measured)\n",
            prog, lat.l2_hit_cycles, lat.dram_cycles, lat.match_cycles_per_value);
    if (existing)
        fprintf(stderr, "%s: %zu rows: %s's other families and the %zu measured now\n", prog, rows, cfg->merge,
                plan.npts);
    status = AU_CAL_EXIT_OK;
done:
    free(samples);
    au_cal_plan_free(&plan);
    au_table_free(existing);
    au_cal_gpu_close(g);
    return status;
}

int main(int argc, char **argv)
{
    au_cal_config cfg;
    char err[256];
    int rc;
    if (au_cal_parse_args(argc, argv, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", prog, err, prog);
        return AU_CAL_EXIT_USAGE;
    }
    switch (cfg.mode) {
    case AU_CAL_MODE_HELP: fputs(au_cal_usage(), stdout); return AU_CAL_EXIT_OK;
    case AU_CAL_MODE_VERSION: printf("%s %s\n", prog, AU_VERSION_STRING); return AU_CAL_EXIT_OK;
    case AU_CAL_MODE_LIST: list_families(); return AU_CAL_EXIT_OK;
    case AU_CAL_MODE_COMPARE:
        rc = au_cal_compare(cfg.file_a, cfg.file_b, stdout);
        return rc < 0 ? fail_status(rc) : rc ? AU_CAL_EXIT_FAIL : AU_CAL_EXIT_OK;
    case AU_CAL_MODE_THIN:
        rc = au_cal_check_thinning(cfg.file_a, stdout);
        return rc < 0 ? fail_status(rc) : rc ? AU_CAL_EXIT_FAIL : AU_CAL_EXIT_OK;
    case AU_CAL_MODE_POINTS: return run_points(&cfg);
    case AU_CAL_MODE_LATENCY: return run_latency(&cfg);
    case AU_CAL_MODE_TABLE: break;
    }
    return run_table(&cfg);
}
