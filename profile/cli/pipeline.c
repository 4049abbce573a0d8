/*
 * pipeline.c - one report (pipeline.h): the counters files or exports read, the launches selected
 * as a live run selects them, the table picked (by the GPU the first launch names, unless --table),
 * every launch evaluated, the jobs priced by their opcodes, the warnings said, the report written;
 * --compare's two reports made the same way.
 */
#include "pipeline.h"

#include "ncu_import.h"
#include "run.h"
#include "ncu_opcodes.h"
#include "opcodes.h"
#include "outname.h"
#include "selection.h"
#include "tables.h"

#include "atomutil/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "atomutil-profile";

static int exit_for(int status)
{
    switch (status) {
    case AU_E_PARSE: return EXIT_BADINPUT;
    case AU_E_NOTFOUND: return EXIT_NOTABLE;
    default: return EXIT_FAIL;
    }
}

/* The counters files or exports paths[0..n): each read once into rep and runs[n] (unless a live
 * run read its file already: read), each launch knowing its file; the launches of each file
 * selected (-k, --launch-skip, --launch-count count per file: per run, or rank).  EXIT_OK or an
 * exit status after one line on stderr: the first file's error, a bad -k, a later file's error. */
static int load_files(const char *const *paths, size_t n, const cli_options *o, au_report *rep, au_cf_run *runs,
                      int read)
{
    /* a live run measured only the selected launches: its counters file holds just them */
    long skip = o->live ? 0 : o->skip, count = o->live ? -1 : o->count, per_kernel = o->live ? -1 : o->per_kernel;
    int st;
    for (size_t f = 0; !read && f < n; ++f)
        au_cf_run_read(paths[f], (unsigned)f, rep, &runs[f]);
    for (size_t f = 0; f < n; ++f) {
        if ((st = runs[f].status) != AU_OK) {
            fprintf(stderr, "%s: %s\n", prog, runs[f].error);
            return st == AU_E_IO ? EXIT_FAIL : exit_for(st);
        }
        if (f == 0 && (st = au_selection_apply(rep, 0, o->regex, skip, count, per_kernel)) != 0)
            return st == -1 ? EXIT_USAGE : EXIT_FAIL;
    }
    if (n > 1) { /* the files in the report, and its source: their names */
        if (au_report_set_files(rep, paths, n) != AU_OK) {
            fprintf(stderr, "%s: out of memory\n", prog);
            return EXIT_FAIL;
        }
        size_t used = 0;
        for (size_t f = 0; f < n && used < sizeof rep->source; ++f)
            used += (size_t)snprintf(rep->source + used, sizeof rep->source - used, "%s%s", f ? ", " : "", paths[f]);
    }
    if (rep->count == 0) {
        const char *check = o->regex || skip || count >= 0 || per_kernel >= 0
                                ? " (check -k / --launch-skip / --launch-count / --launches-per-kernel)"
                                : "";
        if (n == 1)
            fprintf(stderr, "%s: %s: no kernel launch selected%s\n", prog, paths[0], check);
        else
            fprintf(stderr, "%s: no kernel launch selected in the %zu files%s\n", prog, n, check);
        return EXIT_NOLAUNCH;
    }
    return EXIT_OK;
}

/* A --family the table lacks: the line lists the families the table has (its own names, so a
 * table of a newer calibrator lists its new ones). */
static void no_family(const char *table_path, const au_table *t, const char *family)
{
    char names[2048] = "";
    size_t used = 0, n = au_table_family_count(t);
    for (size_t i = 0; i < n && used < sizeof names; ++i)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", au_table_family_name(t, i));
    fprintf(stderr, "%s: table %s has no family '%s' (its families: %s)\n", prog, table_path, family, names);
}

/* The table of the report: --table, else the installed one for the GPU that the first launch
 * naming its GPU ran on (*picked: malloc'ed; *tflags: AU_F_TABLE_OTHER_GPU where only the compute
 * capability fits), loaded (the one prefetched during a live run where it is that file).
 * EXIT_OK, or an exit status after its line. */
static int choose_table(const char *const *paths, const cli_options *o, const au_report *rep, char **picked,
                        unsigned *tflags, au_table **table)
{
    const char *table_path = o->table_path;
    if (!table_path) {
        const au_launch *ref = &rep->launches[0];
        for (size_t i = 0; i < rep->count; ++i)
            if (rep->launches[i].device[0] && rep->launches[i].cc_major) {
                ref = &rep->launches[i];
                break;
            }
        if (!ref->cc_major) {
            fprintf(stderr, "%s: %s has no CC column to pick a table by; pass --table FILE\n", prog, paths[ref->file]);
            return EXIT_NOTABLE;
        }
        if (au_pick_table(ref->device, ref->cc_major, ref->cc_minor, picked, tflags) != AU_OK) {
            fprintf(stderr, "%s: %s\n", prog, au_last_error());
            return EXIT_NOTABLE;
        }
        table_path = *picked;
    }
    int st = AU_OK;
    if ((*table = au_live_files_prefetched(table_path)) == NULL)
        st = au_ncu_table_error(table_path, au_table_load(table_path, table));
    if (st != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        return st == AU_E_IO ? EXIT_NOTABLE : exit_for(st);
    }
    if (!au_table_has_family(*table, o->family)) {
        no_family(table_path, *table, o->family);
        return EXIT_NOTABLE;
    }
    return EXIT_OK;
}

/* EXIT_OK when a launch of rep has a U; else EXIT_NOLAUNCH after one line (no warnings before
 * it): the metrics missing (for Nsight Compute's raw page, the ncu options that collect them), or
 * why the first launch could not be evaluated. */
static int check_usable(const char *const *paths, size_t n, const au_report *rep, const au_cf_run *runs)
{
    for (size_t i = 0; i < rep->count; ++i)
        if (!(rep->launches[i].res.flags & AU_F_UNUSABLE))
            return EXIT_OK;
    char files[32];
    snprintf(files, sizeof files, "%zu files", n);
    const char *where = n > 1 ? files : paths[0]; /* a path in full, however long */
    const au_launch *l = &rep->launches[0];
    if ((l->res.flags & AU_F_MISSING) && l->missing_names[0])
        fprintf(stderr, "%s: %s: no launch has all required metrics (%s)%s%s%s\n", prog, where, l->missing_names,
                runs[l->file].ncu_raw ? ": add --metrics " : "", runs[l->file].ncu_raw ? l->missing_names : "",
                runs[l->file].ncu_raw ? " to the ncu command that made it (none of ncu's sets holds them all), or "
                                        "collect every metric atomutil reads with ncu --section AtomicUnit "
                                        "(docs/nsight-compute.md)"
                                      : "");
    else
        fprintf(stderr, "%s: %s: no launch could be evaluated (launch %lld%s%s: %s)\n", prog, where, l->id,
                n > 1 ? " of " : "", n > 1 ? paths[l->file] : "", l->res.why);
    return EXIT_NOLAUNCH;
}

/* The table's warnings: provisional, another architecture's than a launch's, another GPU's. */
static void warn_table(const au_report *rep, const au_table *table, const char *table_path, unsigned tflags)
{
    const au_table_meta *m = au_table_get_meta(table);
    /* the table's own words, cleaned for the terminal */
    char note[sizeof m->note * 3], gpu[sizeof m->gpu_name * 3];
    au_text_fit(m->note, note, sizeof note, 0, 0);
    au_text_fit(m->gpu_name, gpu, sizeof gpu, 0, 0);
    if (strcmp(m->status, "provisional") == 0)
        fprintf(stderr, "%s: warning: table %s is provisional (%s)\n", prog, table_path, note);
    for (size_t i = 0; i < rep->count; ++i)
        if (rep->launches[i].res.flags & AU_F_TABLE_OTHER_ARCH) {
            fprintf(stderr,
                    "%s: warning: table %s was measured on compute capability %d.%d, launch %lld ran on "
                    "%d.%d: another architecture's service times (flag table_other_arch)\n",
                    prog, table_path, m->cc_major, m->cc_minor, rep->launches[i].id, rep->launches[i].cc_major,
                    rep->launches[i].cc_minor);
            break;
        }
    if (tflags & AU_F_TABLE_OTHER_GPU)
        fprintf(stderr,
                "%s: warning: no table for this GPU's name; using %s (%s, same compute "
                "capability)\n",
                prog, table_path, gpu);
}

/* One file's kernel code in the report, from its attach (before the evaluation) to its warnings
 * (after it). */
typedef struct {
    int used; /* the file has launches in the report: first, count */
    size_t first, count;
    const char *path; /* the counters file or export */
    size_t ncode;     /* the kernels whose code it names ("code:" lines) */
    char dir[4200];   /* where its kernels' code is */
    int no_dir;       /* there is none */
    int attached;     /* au_opcodes_attach ran: status, error, ops, stats, seconds */
    int status;
    char error[1024];
    au_opcodes *ops;
    au_opcodes_stats stats;
    double seconds;
    int from_ncu;        /* the code is the executions per opcode of an Nsight Compute report */
    au_opcodes_ncu *ncu; /* (au_opcodes_ncu_attach ran: status, error, seconds) */
    size_t ncu_attached; /* its launches given code */
    char ncu_note[1200]; /* why its source counters gave its CAS loops no entries (a warning) */
} file_code;

/* The kernels' code of the counters file `counters`: BASE.cubins/ of BASE.counters.csv (as a live
 * run with -o BASE left them), else counters.cubins/. */
static void cubin_dir_of(const char *counters, char *dir, size_t size)
{
    size_t bl = strlen(counters), sl = strlen(".counters.csv");
    if (bl > sl && strcmp(counters + bl - sl, ".counters.csv") == 0)
        bl -= sl;
    snprintf(dir, size, "%.*s.cubins", (int)bl, counters);
}

/* Before the evaluation: each file's launches given their kernels' code (next to the file: a live
 * run's f->cubin_dir, else FILE.cubins/ of FILE.counters.csv), file by file up to the first whose
 * lack of code is an error (said after the evaluation, report_code).  Nothing on stderr. */
static void attach_code(const cli_options *o, const run_files *f, au_report *rep, const au_table *table, file_code *fc)
{
    unsigned flags = (o->quiet ? AU_OPCODES_QUIET : 0u) | (o->no_cache ? AU_OPCODES_NO_CACHE : 0u);
    for (size_t i = 0, next; i < rep->count; i = next) {
        unsigned file = rep->launches[i].file; /* a file's launches are one run of the report's */
        for (next = i; next < rep->count && rep->launches[next].file == file; ++next)
            ;
        file_code *c = &fc[file];
        c->used = 1;
        c->first = i;
        c->count = next - i;
        c->path = f->files[file];
        c->ncode = f->runs[file].ncode;
        au_report view = *rep; /* its launches only; owns nothing */
        view.launches = rep->launches + i;
        view.count = next - i;
        if (!o->live && f->runs[file].ncu_opcodes) { /* a report made with --set full, or its raw page */
            double t = au_monotonic_s();
            c->status = au_opcodes_ncu_attach(&c->ncu, &view, f->files[file], f->runs[file].ncu_report,
                                              &c->ncu_attached, c->ncu_note, sizeof c->ncu_note);
            c->seconds = au_monotonic_s() - t;
            c->from_ncu = 1;
            if (c->status != AU_OK) {
                au_strlcpy(c->error, au_last_error(), sizeof c->error);
                if (o->opcodes > 0)
                    return;
            }
            continue;
        }
        if (o->live)
            au_strlcpy(c->dir, f->cubin_dir, sizeof c->dir);
        else
            cubin_dir_of(f->files[file], c->dir, sizeof c->dir);
        /* by default, a run or file without kernel code (an ncu export, code not captured) is
         * priced as --family without a word; --opcodes makes that an error */
        if (!au_opcodes_have_code(c->dir)) {
            c->no_dir = 1;
            if (o->opcodes > 0)
                return;
            continue;
        }
        double t = au_monotonic_s();
        c->status =
            au_opcodes_attach(&c->ops, &view, table, o->busy, f->files[file], &f->runs[file], c->dir, flags, &c->stats);
        c->seconds = au_monotonic_s() - t;
        c->attached = 1;
        if (c->status != AU_OK) {
            au_strlcpy(c->error, au_last_error(), sizeof c->error);
            if (o->opcodes > 0 || c->status != AU_E_NOTFOUND)
                return;
        }
    }
}

/* --opcodes on an --import whose file has no kernel code: what is missing and what to do.  The
 * folder is named only where the file names code that a live run kept there. */
static void say_no_code(const file_code *c)
{
    if (c->ncode == 0)
        fprintf(stderr,
                "%s: --opcodes: %s names no kernel code (an Nsight Compute export has none, a report made with "
                "--set full has its executions per opcode): profile the program live (%s --opcodes -- PROGRAM), "
                "or leave out --opcodes to price its jobs as --family\n",
                prog, c->path, prog);
    else
        fprintf(stderr,
                "%s: --opcodes: %s names kernel code, but %s/ is missing (a live run with -o BASE keeps it "
                "beside BASE.counters.csv): put it back, or leave out --opcodes to price its jobs as --family\n",
                prog, c->path, c->dir);
}

/* After the evaluation: file by file, the opcodes phase counted for --timing and the warnings said
 * (au_opcodes_report), or the error of a file without its code.  The exit status. */
static int report_code(const cli_options *o, const au_report *rep, const file_code *fc, size_t nfiles, timing *tm)
{
    for (size_t file = 0; file < nfiles; ++file) {
        const file_code *c = &fc[file];
        if (c->from_ncu) {
            au_timing_add_opcodes(tm, &c->stats, c->seconds);
            if (c->status != AU_OK && o->opcodes > 0) {
                fprintf(stderr, "%s: %s\n", prog, c->error);
                return EXIT_FAIL;
            }
            if (c->status != AU_OK && !o->quiet)
                fprintf(stderr, "%s: warning: %s (its jobs are priced as --family)\n", prog, c->error);
            if (c->status == AU_OK && c->ncu_note[0] && !o->quiet)
                fprintf(stderr, "%s: warning: %s\n", prog, c->ncu_note);
            if (c->status == AU_OK && !c->ncu_attached && o->opcodes > 0) {
                fprintf(stderr, "%s: --opcodes: %s has no launch with executions per opcode (%s)\n", prog, c->path,
                        AU_NCU_OPCODE_METRIC);
                return EXIT_FAIL;
            }
            continue;
        }
        if (o->opcodes > 0 && !o->live && c->used && (c->no_dir || c->ncode == 0)) {
            say_no_code(c);
            return EXIT_FAIL;
        }
        if (c->no_dir && o->opcodes > 0) {
            fprintf(stderr, "%s: %s: no kernel code (made by a live run of atomutil-profile -o BASE)\n", prog, c->dir);
            return EXIT_FAIL;
        }
        if (!c->attached)
            continue;
        au_timing_add_opcodes(tm, &c->stats, c->seconds);
        if (c->status != AU_OK && (o->opcodes > 0 || c->status != AU_E_NOTFOUND)) {
            fprintf(stderr, "%s: %s\n", prog, c->error);
            return EXIT_FAIL;
        }
        au_report view = *rep; /* evaluated: its family set */
        view.launches = rep->launches + c->first;
        view.count = c->count;
        au_opcodes_report(c->ops, &view);
    }
    return EXIT_OK;
}

/* Every launch evaluated, once (au_report_eval: by its kernel's code where attached).  With
 * ATOMUTIL_TEST_TRACE=1 the evaluations are counted on stderr (tests/cli: cli.evals.*).  The exit
 * status. */
static int evaluate(const cli_options *o, au_report *rep, const au_table *table)
{
    rep->busy = o->busy;
    int st = au_report_eval(rep, table, o->family, &o->thr);
    if (st != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        return exit_for(st);
    }
    if (o->trace) {
        size_t evals = 0, by_code = 0;
        unsigned most = 0;
        for (size_t i = 0; i < rep->count; ++i) {
            const au_launch *l = &rep->launches[i];
            evals += l->evals;
            most = l->evals > most ? l->evals : most;
            by_code += (l->res.flags & AU_F_OPCODES) != 0;
        }
        fprintf(stderr, "%s: test: %zu launches, %zu evaluations, at most %u of a launch, %zu priced by opcodes\n",
                prog, rep->count, evals, most, by_code);
    }
    return EXIT_OK;
}

/* Loads the counters files or exports paths[0..n) (load_files), picks the table (unless given),
 * attaches the kernels' code where fc (f's files, NULL: none), evaluates, checks that a launch has
 * a U and says the table's warnings.  Returns EXIT_OK or an exit status after one line on stderr;
 * *attach_s: the seconds of the attach. */
static int load_and_eval(const char *const *paths, size_t n, const cli_options *o, au_report *rep, au_cf_run *runs,
                         int read, au_table **table, const run_files *f, file_code *fc, double *attach_s)
{
    char *picked = NULL;
    unsigned tflags = 0;
    int rc = load_files(paths, n, o, rep, runs, read);
    if (rc == EXIT_OK)
        rc = choose_table(paths, o, rep, &picked, &tflags, table);
    if (rc == EXIT_OK && fc) {
        double t = au_monotonic_s();
        attach_code(o, f, rep, *table, fc);
        *attach_s = au_monotonic_s() - t;
    }
    if (rc == EXIT_OK)
        rc = evaluate(o, rep, *table);
    if (rc == EXIT_OK)
        rc = check_usable(paths, n, rep, runs);
    if (rc == EXIT_OK && !o->quiet)
        warn_table(rep, *table, picked ? picked : o->table_path, tflags);
    free(picked);
    return rc;
}

/* One warning line per launch whose counters are missing or cannot be right (verdict unknown,
 * docs/counters.md), the first WARN_UNUSABLE_MAX of them, then one line for the rest. */
#define WARN_UNUSABLE_MAX 10
static void warn_unusable(const au_report *rep)
{
    size_t shown = 0;
    for (size_t i = 0; i < rep->count; ++i) {
        const au_launch *l = &rep->launches[i];
        if (!(l->res.flags & AU_F_UNUSABLE))
            continue;
        if (shown++ == WARN_UNUSABLE_MAX) {
            size_t rest = 1;
            while (++i < rep->count)
                rest += (rep->launches[i].res.flags & AU_F_UNUSABLE) != 0;
            fprintf(stderr, "%s: warning: %zu more launch%s with verdict unknown (see the report's flags)\n", prog,
                    rest, rest == 1 ? "" : "es");
            return;
        }
        char kshort[64], kn[200], fl[256];
        au_kernel_short(l->kernel, kshort, sizeof kshort, 40);
        au_text_fit(kshort, kn, sizeof kn, 0, 0); /* one printable line, whatever the name holds */
        fprintf(stderr, "%s: warning: launch %lld%s%s (%s): verdict unknown, %s: %s\n", prog, l->id,
                rep->nfiles > 1 ? " of " : "", rep->nfiles > 1 ? rep->files[l->file] : "", kn,
                au_flags_string(l->res.flags & AU_F_UNUSABLE, fl, sizeof fl), l->res.why);
    }
}

/* Opens BASE.<ext of fmt> (or stdout without a base). */
static FILE *open_output(const char *base, au_format fmt, int quiet)
{
    if (!base)
        return stdout;
    size_t pl = strlen(base) + 6;
    char *path = malloc(pl);
    if (!path) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return NULL;
    }
    snprintf(path, pl, "%s.%s", base, au_options_ext(fmt));
    FILE *out = fopen(path, "w");
    if (!out)
        fprintf(stderr, "%s: %s: cannot create: %s\n", prog, path, strerror(errno));
    else if (!quiet)
        fprintf(stderr, "%s: report written to %s\n", prog, path);
    free(path);
    return out;
}

static int close_output(FILE *out, int rc)
{
    if (out && fflush(out) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "%s: writing the report failed: %s\n", prog, strerror(errno));
        rc = EXIT_FAIL;
    }
    if (out && out != stdout && fclose(out) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "%s: closing the report failed: %s\n", prog, strerror(errno));
        rc = EXIT_FAIL;
    }
    return rc;
}

/* The report to stdout or -o's file (BASE: a live run's, else with %p the process of the report's
 * first launch).  The exit status. */
static int write_report(const cli_options *o, const run_files *f, const au_report *rep, timing *tm)
{
    char base[4096];
    if (o->out_base && !o->live) {
        int st = au_outname_base(o->out_base, rep->launches[0].pid, base, sizeof base);
        if (st >= 0)
            return st;
    } else if (o->out_base) {
        au_strlcpy(base, f->base, sizeof base);
    }
    double t = au_monotonic_s();
    int rc = EXIT_OK;
    FILE *out = open_output(o->out_base ? base : NULL, o->fmt, o->quiet);
    if (!out)
        rc = EXIT_FAIL;
    else if (au_report_render(rep, o->fmt, out) != AU_OK)
        rc = EXIT_FAIL;
    rc = close_output(out, rc);
    tm->report_s += au_monotonic_s() - t;
    return rc;
}

int au_pipeline_report(const cli_options *o, run_files *f, timing *tm)
{
    au_report *rep = &f->rep;
    au_table *table = NULL;
    rep->view = o->view;
    rep->name_width = o->name_width;
    rep->wide = o->wide;
    int read = f->runs != NULL; /* a live run's file: read already */
    if (!read)
        f->runs = calloc(f->nfiles ? f->nfiles : 1, sizeof *f->runs);
    file_code *fc = o->opcodes ? calloc(f->nfiles ? f->nfiles : 1, sizeof *fc) : NULL;
    if (!f->runs || (o->opcodes && !fc)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        free(fc);
        return EXIT_FAIL;
    }
    double t = au_monotonic_s(), attach_s = 0;
    int rc = load_and_eval(f->files, f->nfiles, o, rep, f->runs, read, &table, f, fc, &attach_s);
    tm->report_s += au_monotonic_s() - t - attach_s;
    if (rc == EXIT_OK && fc)
        rc = report_code(o, rep, fc, f->nfiles, tm);
    if (rc == EXIT_OK && !o->quiet)
        warn_unusable(rep); /* after the opcodes' warnings */
    for (size_t i = 0; rc == EXIT_OK && i < f->nfiles; ++i) {
        rep->replayed += f->runs[i].timing.replayed;
        rep->replay_s += f->runs[i].timing.replay_s;
    }
    if (rc == EXIT_OK)
        rc = write_report(o, f, rep, tm);
    /* the injection library's figures, read with each file */
    for (size_t i = 0; o->timing_on && i < f->nfiles; ++i)
        au_timing_add_inject(tm, &f->runs[i].timing);
    for (size_t i = 0; fc && i < f->nfiles; ++i) {
        au_opcodes_free(fc[i].ops);
        au_opcodes_ncu_free(fc[i].ncu);
    }
    free(fc);
    au_table_free(table);
    return rc;
}

int au_pipeline_compare(const cli_options *o)
{
    au_report ra, rb;
    au_table *ta = NULL, *tb = NULL;
    au_report_init(&ra);
    au_report_init(&rb);
    ra.name_width = rb.name_width = o->name_width;
    ra.wide = rb.wide = o->wide;
    au_cf_run run[2];
    memset(run, 0, sizeof run);
    /* each file priced by its kernels' code as --import prices it (file_code per side) */
    file_code fc[2];
    memset(fc, 0, sizeof fc);
    run_files fs[2];
    memset(fs, 0, sizeof fs);
    timing tm;
    memset(&tm, 0, sizeof tm);
    double attach_s;
    au_report *rep[2] = {&ra, &rb};
    au_table **tab[2] = {&ta, &tb};
    int rc = EXIT_OK;
    for (int s = 0; s < 2 && rc == EXIT_OK; ++s) {
        fs[s].files = &o->args[s];
        fs[s].nfiles = 1;
        fs[s].runs = &run[s];
        rc =
            load_and_eval(&o->args[s], 1, o, rep[s], &run[s], 0, tab[s], &fs[s], o->opcodes ? &fc[s] : NULL, &attach_s);
        if (rc == EXIT_OK && o->opcodes)
            rc = report_code(o, rep[s], &fc[s], 1, &tm);
        if (rc == EXIT_OK && !o->quiet)
            warn_unusable(rep[s]);
    }
    char base[4096]; /* with %p, the process of A's first launch */
    if (rc == EXIT_OK && o->out_base) {
        int st = au_outname_base(o->out_base, ra.launches[0].pid, base, sizeof base);
        rc = st >= 0 ? st : rc;
    }
    if (rc == EXIT_OK) {
        FILE *out = open_output(o->out_base ? base : NULL, o->fmt, o->quiet);
        if (!out)
            rc = EXIT_FAIL;
        else {
            int st = o->npairs ? au_compare_pairs_render(&ra, &rb, o->pairs, o->npairs, o->fmt, out)
                               : au_compare_render(&ra, &rb, o->fmt, out);
            if (st == AU_E_NOTFOUND) /* a --pair naming a kernel the report lacks */
                fprintf(stderr, "%s: %s\n", prog, au_last_error());
            rc = st == AU_OK ? rc : st == AU_E_NOTFOUND ? EXIT_USAGE : EXIT_FAIL;
        }
        rc = close_output(out, rc);
    }
    for (int s = 0; s < 2; ++s) {
        au_opcodes_free(fc[s].ops);
        au_opcodes_ncu_free(fc[s].ncu);
        au_cf_run_free(&run[s]);
    }
    au_report_free(&ra);
    au_report_free(&rb);
    au_table_free(ta);
    au_table_free(tb);
    return rc;
}
