/*
 * main.c - atomutil-calibrate: measures the service-time table S(family, n, a, c) of the shared
 * atomic unit on one GPU and writes it in table format v1; also checks tables (--compare,
 * --check-thinning) and single points (--point, for counter checks).  The only place that picks
 * an exit status: 0 ok, 1 failure, 2 usage, 3 no usable CUDA device.
 */
#include "cal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "atomutil-calibrate";

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail_status(int rc)
{
    fprintf(stderr, "%s: %s\n", prog, au_last_error());
    return rc == AU_CAL_E_NODEV ? AU_CAL_EXIT_NODEV : AU_CAL_EXIT_FAIL;
}

static const char *pattern_name(int p)
{
    return p == AU_CAL_PAT_WORD ? "word" : p == AU_CAL_PAT_DISTINCT ? "distinct" : "bank";
}

static const char *cgrid_name(int g)
{
    static const char *names[] = {"auto", "full", "sparse", "ends"};
    return g >= 0 && g < 4 ? names[g] : "?";
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
    fprintf(stderr, "\r[%.*s%*s] %3d%% %-12s %5.1f s", fill, "########################################",
            width - fill, "", pct, family, now_seconds() - b->t0);
    fflush(stderr);
}

static void list_families(void)
{
    printf("family,sass,width,pattern,a_max,wavefronts_per_pass,default_c_grid,operation\n");
    for (int i = 0; i < au_cal_nfamilies; ++i) {
        const au_cal_family *f = &au_cal_families[i];
        printf("%s,%s,%d,%s,%d,%d,%s,\"%s\"\n", f->name, f->sass, f->width, pattern_name(f->pattern),
               f->max_a, f->wf_per_way, cgrid_name(f->cgrid), f->what);
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
            fprintf(stderr, "%s: point n=%d is over the %d resident warps of an SM of %s\n", prog,
                    pts[i].n, dev.max_warps, dev.name);
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
        printf("%s,%d,%d,%d,%s,%s,%d,%d,%d,%ld,%ld,%s,%.4f,%d\n", au_cal_families[p->family].name, p->n,
               p->a, p->c, pattern_name(p->pattern), wf >= 0 ? "yes" : "no", p->lanes_op, p->lanes_cas,
               cfg->jobs, 2L * p->n * cfg->jobs, 2L * p->c * cfg->jobs, wfs, s[i], skew[i]);
    }
    status = AU_CAL_EXIT_OK;
done:
    au_cal_gpu_close(g);
    return status;
}

static int run_table(const au_cal_config *cfg)
{
    int rc, status = AU_CAL_EXIT_FAIL;
    au_cal_gpu *g = NULL;
    au_cal_devinfo dev;
    au_cal_plan plan = {0};
    double *samples = NULL;
    char path[512], slug[96], date[32], note[256], fams[160] = "";
    bar_state bs = {now_seconds(), -1};
    const double t0 = bs.t0;

    if ((rc = au_cal_gpu_open(cfg->device, &g, &dev))) {
        status = fail_status(rc);
        goto done;
    }
    const au_cal_plan_opts po = {dev.max_warps, cfg->families, cfg->quick, cfg->cgrid, cfg->jobs};
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
    rc = au_cal_gpu_measure(g, &plan, cfg->reps, cfg->jobs, samples, isatty(STDERR_FILENO) ? bar : NULL,
                            &bs);
    if (bs.last_pct >= 0)
        fputc('\n', stderr);
    if (rc) {
        status = fail_status(rc);
        goto done;
    }
    const double wall = now_seconds() - t0;

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
    for (int i = 0; i < au_cal_nfamilies; ++i)
        if (cfg->families & (1u << i)) {
            if (fams[0])
                strncat(fams, " ", sizeof fams - strlen(fams) - 1);
            strncat(fams, au_cal_families[i].name, sizeof fams - strlen(fams) - 1);
        }
    snprintf(note, sizeof note,
             "a = serialized passes per job (counter wavefronts, halved for the CAS class); c grid "
             "%s; %s; reps on distinct SMs; %.1f s wall",
             cfg->cgrid == AU_CAL_CGRID_AUTO ? "auto (per family: --list)"
                                             : cgrid_name(cfg->cgrid),
             cfg->quick ? "quick grid" : "full n and a grid", wall);
    au_table_meta meta;
    au_cal_fill_meta(&meta, &dev, cfg->burst, cfg->jobs, cfg->reps, au_cal_gpu_clock_mhz(g), date, note);
    size_t rows = 0;
    if ((rc = au_cal_write_table(&meta, &plan, samples, cfg->reps, path, &rows))) {
        status = fail_status(rc);
        goto done;
    }
    const long *redone = au_cal_gpu_redone(g);
    fprintf(stderr,
            "%s: %zu points x %d reps (%s) on %s in %.1f s wall (GPU %.1f s, SM clock %.0f MHz, "
            "%ld runs redone: %ld not run, %ld split, %ld skewed (worst %d cycles), %ld clock) -> %s\n",
            prog, rows, cfg->reps, fams, dev.name, now_seconds() - t0, au_cal_gpu_seconds(g),
            au_cal_gpu_clock_mhz(g), redone[1] + redone[2] + redone[3] + redone[4], redone[1],
            redone[2], redone[3], au_cal_gpu_worst_skew(g), redone[4], path);
    status = AU_CAL_EXIT_OK;
done:
    free(samples);
    au_cal_plan_free(&plan);
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
    case AU_CAL_MODE_TABLE: break;
    }
    return run_table(&cfg);
}
