/*
 * render_table.c - the human report: a header, one row per launch, then notes on processes, U
 * ranges, DSMEM and opcode classes.  Figures are cut to their columns, never recomputed.
 */
#include "internal.h"
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *human_num(double v, char *buf, size_t size)
{
    if (v >= 1e12) /* at most 8 characters up to DBL_MAX: the column stays in place */
        snprintf(buf, size, "%.1e", v);
    else if (v >= 1e9)
        snprintf(buf, size, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, size, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, size, "%.1fk", v / 1e3);
    else
        snprintf(buf, size, "%.0f", v);
    return buf;
}

/* v with prec decimals in at most width characters: fewer decimals where it is too wide, then the
 * exponent form (1e+15), so that a huge figure never shifts the table's columns. */
static const char *fit_num(double v, int prec, int width, char *buf, size_t size)
{
    for (int p = prec; p >= 0; --p)
        if (snprintf(buf, size, "%.*f", p, v) <= width)
            return buf;
    for (int p = 2; p > 0; --p)
        if (snprintf(buf, size, "%.*e", p, v) <= width)
            return buf;
    snprintf(buf, size, "%.0e", v);
    return buf;
}

/* A launch's id in the sections after the table: "  12", or with several files its file's number
 * first, "  2:12" (launch ids count per file and process). */
static void put_id(FILE *out, const au_report *r, const au_launch *l)
{
    char id[48];
    if (r->nfiles > 1)
        snprintf(id, sizeof id, "%u:%lld", l->file + 1, l->id);
    else
        snprintf(id, sizeof id, "%lld", l->id);
    fprintf(out, "%4s", id);
}

/* Opcode section of the human report: once per kernel, its classes, U by classes and by the
 * single family, and its shared-atomic instructions grouped by opcode and source line. */
static void render_opcodes_human(const au_report *r, const au_summary *s, au_names *nm, FILE *out)
{
    int any = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_opsplit *o = l->ops;
        if (!o)
            continue;
        int first = 1;
        /* a launch of the same full name has the same short name: none before its kernel's first */
        for (size_t j = s->k[s->of_launch[i]].first; j < i && first; ++j)
            first = !(r->launches[j].ops && r->launches[j].kernel && l->kernel &&
                      strcmp(r->launches[j].kernel, l->kernel) == 0);
        if (!first)
            continue;
        if (!any)
            fprintf(out, "\nOpcode classes (shared atomics of each kernel's code; jobs split by the CAS counter; "
                         "first launch of each kernel shown):\n");
        any = 1;
        char fl[256];
        au_flags_string(o->flags, fl, sizeof fl);
        /* no class: no jobs to price, or jobs but no ATOMS of the kernel in its listing (priced by family) */
        char none[96] = "no shared-atomic jobs";
        if (l->res.jobs > 0)
            snprintf(none, sizeof none, "no ATOMS in its listing: priced as '%s'", r->family);
        put_id(out, r, l);
        fputs("  ", out);
        au_names_put(nm, s->of_launch[i], 1, out);
        fprintf(out, " %s\n", o->classes[0] ? o->classes : none);
        if (o->nodes) { /* a CUDA graph launch: one row for its kernel nodes (docs/live-profiling.md) */
            fputs("      kernel nodes: ", out);
            au_fput_text(out, o->nodes, AU_TEXT_PLAIN);
            fputc('\n', out);
        }
        if (l->res.flags & AU_F_OPCODES)
            fprintf(out, "      U %.1f %% by opcode classes, %.1f %% priced as '%s'%s%s\n", l->res.util * 100,
                    o->by_family.util * 100, r->family, fl[0] ? "  " : "", fl);
        else if (fl[0])
            fprintf(out, "      %s\n", fl);
        /* instructions: count per (opcode, source) */
        for (size_t k = 0; k < o->ninstr; ++k) {
            const au_instr *x = &o->instr[k];
            int seen = 0;
            for (size_t m = 0; m < k && !seen; ++m)
                seen = strcmp(o->instr[m].opcode, x->opcode) == 0 && strcmp(o->instr[m].source, x->source) == 0;
            if (seen)
                continue;
            size_t cnt = 0;
            for (size_t m = k; m < o->ninstr; ++m)
                cnt += strcmp(o->instr[m].opcode, x->opcode) == 0 && strcmp(o->instr[m].source, x->source) == 0;
            char src[sizeof x->source * 3];
            if (!x->function[0]) /* counts per opcode (an Nsight Compute report's), not a listing */
                fprintf(out, "              %-22s %-11s executions counted per opcode\n", x->opcode, x->family);
            else
                fprintf(out, "        %3zu x %-22s %-11s first at pc 0x%04x  %s\n", cnt, x->opcode, x->family, x->pc,
                        au_text_fit(x->source, src, sizeof src, 0, 0));
        }
        if (o->ninstr == 0)
            fprintf(out, "        no ATOMS instruction in the kernel's code\n");
    }
}

/* 1 when launch i is its process's first (a process: a pid in one file). */
static int first_of_process(const au_report *r, size_t i)
{
    for (size_t k = 0; k < i; ++k)
        if (r->launches[k].pid == r->launches[i].pid && r->launches[k].file == r->launches[i].file)
            return 0;
    return 1;
}

/* A program that started CUDA processes of its own (multiprocessing, one process per GPU): one
 * line per process, since launch ids count per process. */
static void render_processes(const au_report *r, const au_summary *s, au_names *nm, FILE *out)
{
    size_t nproc = 0;
    for (size_t i = 0; i < r->count; ++i)
        nproc += first_of_process(r, i);
    if (nproc < 2)
        return;
    fprintf(out, "\n%zu processes (launch ids count per process):\n", nproc);
    for (size_t i = 0; i < r->count; ++i) {
        if (!first_of_process(r, i))
            continue;
        size_t n = 0;
        const au_launch *top = NULL;
        char devs[256] = "";
        for (size_t k = i; k < r->count; ++k) {
            const au_launch *l = &r->launches[k];
            if (l->pid != r->launches[i].pid || l->file != r->launches[i].file)
                continue;
            ++n;
            if (!(l->res.flags & AU_F_UNUSABLE) && (!top || l->res.util > top->res.util))
                top = l;
            if (l->device[0] && !strstr(devs, l->device) && strlen(devs) + strlen(l->device) + 3 < sizeof devs) {
                if (devs[0])
                    strcat(devs, ", ");
                strcat(devs, l->device);
            }
        }
        char dv[sizeof devs * 3];
        if (r->nfiles > 1)
            fprintf(out, "  file %u,", r->launches[i].file + 1);
        fputs(r->nfiles > 1 ? " " : "  ", out);
        fprintf(out, "pid %lld: %zu launches on %s; largest U %.1f %% (launch %lld, ", r->launches[i].pid, n,
                devs[0] ? au_text_fit(devs, dv, sizeof dv, 0, 0) : "an unknown device", top ? top->res.util * 100 : 0.0,
                top ? top->id : -1LL);
        if (top)
            au_names_put(nm, s->of_launch[top - r->launches], 0, out);
        else
            fputc('-', out);
        fputs(")\n", out);
    }
}

/* "table:  PATH (GPU, cc, how S was measured)", the parenthesis on a line of its own where the path
 * would make the line wider than the narrow tables. */
static void render_table_line(const au_report *r, const au_table_meta *m, FILE *out)
{
    char gpu[sizeof m->gpu_name * 3], what[sizeof gpu + 160];
    const char *path = au_table_path(r->table)[0] ? au_table_path(r->table) : "<memory>";
    int steady = strcmp(m->method, "steady") == 0, burst = strcmp(m->method, "burst") == 0;
    snprintf(what, sizeof what, "(%s, cc %d.%d; S measured %s%s)", au_text_fit(m->gpu_name, gpu, sizeof gpu, 0, 0),
             m->cc_major, m->cc_minor,
             steady  ? "at steady load"
             : burst ? "in bursts, as the source paper"
                     : m->method,
             strcmp(m->status, "provisional") == 0 ? ", provisional: NOT a full calibration" : "");
    fputs("table:  ", out);
    au_fput_text(out, path, AU_TEXT_PLAIN);
    int own_line = !r->wide && 8 + au_text_width(path) + 1 + au_text_width(what) > AU_REPORT_COLUMNS;
    fprintf(out, "%s%s\n", own_line ? "\n        " : " ", what);
}

/* The lines above the table: source, table, how jobs are priced, verdict thresholds. */
static void render_table_head(const au_report *r, FILE *out)
{
    const au_table_meta *m = r->table ? au_table_get_meta(r->table) : NULL;
    fprintf(out, "atomutil %s: shared-atomic unit utilization per kernel launch\n", AU_VERSION_STRING);
    if (r->nfiles > 1) {
        fprintf(out, "source: %zu files\n", r->nfiles);
        for (size_t f = 0; f < r->nfiles; ++f) {
            fprintf(out, "  file %zu: ", f + 1);
            au_fput_text(out, r->files[f], AU_TEXT_PLAIN);
            fputc('\n', out);
        }
    } else {
        fputs("source: ", out);
        au_fput_text(out, r->source, AU_TEXT_PLAIN);
        fputc('\n', out);
    }
    size_t by_opcodes = 0;
    for (size_t i = 0; i < r->count; ++i)
        by_opcodes += (r->launches[i].res.flags & AU_F_OPCODES) != 0;
    if (m) {
        render_table_line(r, m, out);
        for (size_t i = 0; i < r->count; ++i)
            if (r->launches[i].res.flags & AU_F_TABLE_OTHER_ARCH) {
                fprintf(out,
                        "        WARNING: measured on another architecture than launch %lld's (cc %d.%d): its "
                        "service times may not hold (flag table_other_arch)\n",
                        r->launches[i].id, r->launches[i].cc_major, r->launches[i].cc_minor);
                break;
            }
    }
    if (by_opcodes == r->count)
        fprintf(out, "jobs:   priced by the opcodes of each kernel's code (flag opcodes)\n");
    else if (by_opcodes)
        fprintf(out,
                "jobs:   priced by the opcodes of each kernel's code (flag opcodes), the other launches' "
                "non-CAS jobs as family '%s'\n",
                r->family);
    else
        fprintf(out,
                "jobs:   non-CAS jobs priced as the table's family '%s' (--family), not by the opcodes of the "
                "kernels' code\n",
                r->family);
    fprintf(out, "busy:   %s\n",
            r->busy == AU_BUSY_QUEUE
                ? "each job costs S(N), the table's service time at the estimated queue length N (--busy queue)"
                : "each job costs S(n_max), the service time at the table's largest queue length (--busy "
                  "saturated):\n        the unit's cost at saturation, so the queue length N does not change U");
    fprintf(out, "verdict: atomic-bound U >= %.0f %%, significant U >= %.0f %%\n\n", r->thr.bound * 100,
            r->thr.significant * 100);
}

/* --wide: one table row per launch with every column. */
static void render_rows_wide(const au_report *r, const au_summary *s, au_names *nm, FILE *out)
{
    int w = (int)nm->width;
    if (r->nfiles > 1)
        fputs("file  ", out);
    fprintf(out, "%4s  %-*s %-14s %-12s %9s %8s %6s %6s %6s %7s %8s %8s %6s %6s  %-12s %s\n", "id", w, "kernel", "grid",
            "block", "time", "J/SM", "a", "N", "c", "S", "B", "T", "U%", "Umax%", "verdict", "flags");
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        char g[48], b[48], t[24], j[16], bb[16], tt[16], fl[256];
        au_flags_string(x->flags, fl, sizeof fl);
        au_dims_text(l->grid, l->dims & AU_DIMS_GRID, 1, g, sizeof g);
        au_dims_text(l->block, l->dims & AU_DIMS_BLOCK, 1, b, sizeof b);
        au_duration_text(l->duration_ns, t, sizeof t);
        if (r->nfiles > 1)
            fprintf(out, "%4u  ", l->file + 1);
        fprintf(out, "%4lld  ", l->id);
        au_names_put(nm, s->of_launch[i], 1, out);
        if (x->flags & AU_F_UNUSABLE) {
            int names = (x->flags & AU_F_MISSING) && l->missing_names[0];
            fprintf(out, " %-14s %-12s %9s %8s %6s %6s %6s %7s %8s %8s %6s %6s  %-12s %s%s\n", g, b, t, "-", "-", "-",
                    "-", "-", "-", "-", "-", "-", au_verdict_name(x->verdict), names ? "missing: " : "",
                    names ? l->missing_names : fl);
            continue;
        }
        char um[16] = "-", fa[16], fn[16], fc[16], fs[16], fu[16];
        if (x->util_busiest > 0)
            fit_num(x->util_busiest * 100, 1, 6, um, sizeof um);
        fprintf(out, " %-14s %-12s %9s %8s %6s %6s %6s %7s %8s %8s %6s %6s  %-12s %s\n", g, b, t,
                human_num(x->jobs, j, sizeof j), fit_num(x->a, 2, 6, fa, sizeof fa),
                fit_num(x->queue_len, 1, 6, fn, sizeof fn), fit_num(x->cas_queued, 2, 6, fc, sizeof fc),
                fit_num(x->service, 2, 7, fs, sizeof fs), human_num(x->busy, bb, sizeof bb),
                human_num(x->active, tt, sizeof tt), fit_num(x->util * 100, 1, 6, fu, sizeof fu), um,
                au_verdict_name(x->verdict), fl);
    }
    au_names_notes(nm, 0, out);
    fprintf(out, "\ntime: GPU time; J/SM: shared-atomic warp-instructions per SM; a: serialized passes per job; "
                 "N: queue length;\nc: CAS jobs among N; S: service cycles per job; B = J*S busy cycles; T: active "
                 "cycles per SM; U = B/T (the mean SM).\nUmax: the most utilized SM's U, at least (the larger of U "
                 "and B times the busiest SM's share of atomic wavefronts over the longest SM active "
                 "time).\n");
}

/* A grid or block as the narrow table shows it: its trailing dimensions of 1 left out ("528",
 * "32x32"), cut with '~' to width. */
static const char *dims_short(const unsigned d[3], int known, size_t width, char *buf, size_t size)
{
    char t[48];
    if (!known)
        t[0] = '\0';
    else if (d[2] != 1)
        snprintf(t, sizeof t, "%ux%ux%u", d[0], d[1], d[2]);
    else if (d[1] != 1)
        snprintf(t, sizeof t, "%ux%u", d[0], d[1]);
    else
        snprintf(t, sizeof t, "%u", d[0]);
    return au_text_fit(t, buf, size, width, 0);
}

/* The flags of a narrow row in at most room columns: the names that fit, then "+N" for the N that
 * did not (the legend names every flag of the table; --wide, CSV and JSON list them all). */
static void put_flags(au_flags flags, size_t room, FILE *out)
{
    size_t used = 0, left = 0;
    for (unsigned bit = 0; au_flag_name(bit); ++bit)
        left += (flags >> bit) & 1u;
    for (unsigned bit = 0; au_flag_name(bit) && left; ++bit) {
        if (!((flags >> bit) & 1u))
            continue;
        size_t n = strlen(au_flag_name(bit)) + (used ? 1 : 0);
        size_t more = left > 1 ? 3 : 0; /* room for ",+N" after it unless it is the last */
        if (used + n + more > room)
            break;
        fprintf(out, "%s%s", used ? "," : "", au_flag_name(bit));
        used += n;
        --left;
    }
    if (left)
        fprintf(out, "%s+%zu", used ? "," : "", left);
}

/* The narrow table's launches of verdict unknown, and why (--wide has it in the row): the first
 * UNKNOWN_SHOWN of them. */
#define UNKNOWN_SHOWN 20
static void render_unknown(const au_report *r, FILE *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        if (!(l->res.flags & AU_F_UNUSABLE))
            continue;
        if (n++ == UNKNOWN_SHOWN) {
            size_t rest = 1;
            while (++i < r->count)
                rest += (r->launches[i].res.flags & AU_F_UNUSABLE) != 0;
            fprintf(out, "  and %zu more (--wide or the CSV says why for each)\n", rest);
            break;
        }
        if (n == 1)
            fputs("\nVerdict unknown, no U:\n", out);
        put_id(out, r, l);
        char why[sizeof l->missing_names + sizeof l->res.why + 16];
        if ((l->res.flags & AU_F_MISSING) && l->missing_names[0])
            snprintf(why, sizeof why, "missing: %s", l->missing_names);
        else
            snprintf(why, sizeof why, "%s", l->res.why);
        fputs("  ", out);
        au_put_wrapped(why, 6, 6, AU_REPORT_COLUMNS, out);
        fputc('\n', out);
    }
}

/* The narrow row's fixed part is this wide, the kernel column and the file column left out. */
#define NARROW_FIXED (4 + 2 + 1 + 9 + 1 + 9 + 1 + 9 + 1 + 6 + 1 + 6 + 1 + 6 + 2 + 12 + 1)

/* One table row per launch with the key columns, in AU_REPORT_COLUMNS. */
static void render_rows_narrow(const au_report *r, const au_summary *s, au_names *nm, FILE *out)
{
    int w = (int)nm->width;
    size_t used = NARROW_FIXED + nm->width + (r->nfiles > 1 ? 6 : 0);
    size_t room = used + 10 < AU_REPORT_COLUMNS ? AU_REPORT_COLUMNS - used : 10;
    if (r->nfiles > 1)
        fputs("file  ", out);
    fprintf(out, "%4s  %-*s %-9s %-9s %9s %6s %6s %6s  %-12s %s\n", "id", w, "kernel", "grid", "block", "time", "a",
            "U%", "Umax%", "verdict", "flags");
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        char g[48], b[48], t[24], fa[16] = "-", fu[16] = "-", um[16] = "-";
        dims_short(l->grid, l->dims & AU_DIMS_GRID, 9, g, sizeof g);
        dims_short(l->block, l->dims & AU_DIMS_BLOCK, 9, b, sizeof b);
        au_duration_text(l->duration_ns, t, sizeof t);
        if (!(x->flags & AU_F_UNUSABLE)) {
            fit_num(x->a, 2, 6, fa, sizeof fa);
            fit_num(x->util * 100, 1, 6, fu, sizeof fu);
            if (x->util_busiest > 0)
                fit_num(x->util_busiest * 100, 1, 6, um, sizeof um);
        }
        if (r->nfiles > 1)
            fprintf(out, "%4u  ", l->file + 1);
        fprintf(out, "%4lld  ", l->id);
        au_names_put(nm, s->of_launch[i], 1, out);
        fprintf(out, " %-9s %-9s %9s %6s %6s %6s  ", g, b, t, fa, fu, um);
        if (x->flags) {
            fprintf(out, "%-12s ", au_verdict_name(x->verdict));
            put_flags(x->flags, room, out);
        } else {
            fputs(au_verdict_name(x->verdict), out);
        }
        fputc('\n', out);
    }
    render_unknown(r, out);
    au_names_notes(nm, AU_REPORT_COLUMNS, out);
}

/* The narrow table's legend: every word of its head and columns, each flag it shows, what --wide
 * adds; lines within AU_REPORT_COLUMNS. */
static void render_legend_narrow(const au_report *r, FILE *out)
{
    au_flags flags = 0;
    int no_max = 0;
    for (size_t i = 0; i < r->count; ++i) {
        flags |= r->launches[i].res.flags;
        no_max |= !(r->launches[i].res.flags & AU_F_UNUSABLE) && !(r->launches[i].res.util_busiest > 0);
    }
    fprintf(out,
            "\ntime: GPU time; a: serialized passes per shared-atomic job (1: no lane waits for another; 32: a warp's "
            "lanes\none by one); U: busy / active cycles of the SM's shared atomic unit, the mean SM's; Umax: the most "
            "utilized\nSM's U, at least; verdict: atomic-bound at U >= %.0f %%, significant at U >= %.0f %%, else "
            "not-limiting; uncertain:\nU's range spans two verdicts; unknown: no U (the list below the table says "
            "why).\n",
            r->thr.bound * 100, r->thr.significant * 100);
    if (no_max)
        fputs("Umax -: not known: the counters lack the two .max rollups it needs (exports made before "
              "--print-ncu-metrics\nlisted them; docs/per-sm.md), or the launch ran no shared atomics.\n",
              out);
    const char *lead = "flags:";
    for (unsigned bit = 0; au_flag_name(bit); ++bit) {
        if (!((flags >> bit) & 1u))
            continue;
        char line[1024], *q = line;
        snprintf(line, sizeof line, "%s %s: %s", lead, au_flag_name(bit), au_flag_meaning(bit));
        lead = "      ";
        for (const char *p = line; *p; ++p) /* the docs' Markdown backquotes */
            if (*p != '`')
                *q++ = *p;
        *q = '\0';
        au_put_wrapped(line, 0, 7, AU_REPORT_COLUMNS, out);
        fputc('\n', out);
    }
    fputs("--wide adds the model's terms per launch (J/SM, N, c, S, B, T) and full grids; --csv and --json hold every "
          "figure.\n",
          out);
}

/* U ranges: CAS loops whose loads share the load counters with other shared-memory traffic, generic
 * atomics of unknown passes, ... (AU_F_RANGE); the header names the generic atomics' flag only
 * where a launch has it */
static void render_ranges(const au_report *r, FILE *out)
{
    int ranges = 0, generic = 0;
    for (size_t i = 0; i < r->count; ++i)
        generic |= (r->launches[i].res.flags & AU_F_UNPRICED_WAVEFRONTS) != 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_result *x = &r->launches[i].res;
        if (!(x->flags & AU_F_RANGE))
            continue;
        if (!ranges++) {
            fputs("\nUncertain U (", out);
            if (generic)
                fputs("flag unpriced_wavefronts: wavefronts of generic atomics, whose instructions no counter "
                      "counts,\ncost one cycle each for instructions of several passes, up to the generic family's "
                      "single-pass\ncost for instructions of one (U takes the latter while it fits in the active "
                      "cycles);\n",
                      out);
            fputs("flag loop_loads_estimated: the loads of CAS-loop attempts share the "
                  "load counters with other\nshared loads and stores; flag dsmem_local_estimated: "
                  "launches with clusters are measured with counters\nthat do not count the passes of "
                  "local shared atomics; flag dsmem_row_range: remote atomics with lanes on one word\n"
                  "cost up to twice as much when other warps' words share its 128-byte row, which no counter\n"
                  "shows; flag dsmem_mixed: atomics share the DSMEM path with loads and stores, their share\n"
                  "of its cycles is estimated from their sectors; flag generic_space_unknown: a launch without\n"
                  "clusters measured with the cluster set (its kernel ran no atomics before) made generic\n"
                  "atomics, to global memory or to its own shared memory; U is the estimate, the range bounds it):\n",
                  out);
        }
        put_id(out, r, &r->launches[i]);
        fprintf(out, "  U %.1f %%, between %.1f and %.1f %%", x->util * 100, x->util_lo * 100, x->util_hi * 100);
        if (x->verdict == AU_VERDICT_UNCERTAIN) { /* the range spans two verdicts: name them */
            au_verdict lo, hi;
            au_range_verdicts(x, &r->thr, &lo, &hi);
            fprintf(out, ": verdict uncertain, %s to %s", au_verdict_name(lo), au_verdict_name(hi));
        }
        fputc('\n', out);
    }
}

/* Launches with clusters: U of the local unit and of the DSMEM path, and DSMEM traffic without
 * atomics (library kernels with clusters): seen, not priced. */
/* The launches measured by kernel replay (flag replayed) and what their calls cost. */
static void render_replay(const au_report *r, FILE *out)
{
    size_t n = 0;
    double max_passes = 0, kernel_ns = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        if (!(l->res.flags & AU_F_REPLAYED))
            continue;
        n++;
        max_passes = l->ctr.passes > max_passes ? l->ctr.passes : max_passes;
        kernel_ns += l->duration_ns > 0 ? l->duration_ns : 0;
    }
    if (!n)
        return;
    fprintf(out,
            "\n%zu launch%s measured in up to %.0f passes by kernel replay (flag replayed): the kernel ran once "
            "per pass,\nits memory saved and restored between",
            n, n == 1 ? "" : "es", max_passes);
    if (r->replayed > 0)
        fprintf(out, "; the replayed calls took %.3f s in all, their kernels %.3f ms per pass", r->replay_s,
                kernel_ns / 1e6);
    fputs("\n", out);
}

static void render_dsmem(const au_report *r, FILE *out)
{
    int dsmem = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        if (!(x->flags & (AU_F_DSMEM | AU_F_DSMEM_UNCALIBRATED)))
            continue;
        if (!dsmem++)
            fprintf(out, "\nDistributed shared memory (cluster) atomics: U of the local unit (this SM's "
                         "shared atomics) and of the\nDSMEM path (requests to other SMs of the cluster); "
                         "U is the larger,\nor a hot receiver's (docs/model.md, \"DSMEM\"):\n");
        put_id(out, r, l);
        if (x->flags & AU_F_DSMEM_UNCALIBRATED)
            fprintf(out,
                    "  cluster %g: %.0f generic atomics, not priced: the table has no dsmem "
                    "families (atomutil-calibrate --families dsmem_local,dsmem_remote)\n",
                    (l->ctr.have & AU_C_CLUSTER) ? l->ctr.cluster_size : 0, l->ctr.generic_jobs);
        else
            fprintf(out, "  cluster %g: generic atomics %.0f, local U %.1f %%, DSMEM path U %.1f %%%s\n",
                    (l->ctr.have & AU_C_CLUSTER) ? l->ctr.cluster_size : 0, l->ctr.generic_jobs, x->util_local * 100,
                    x->util_remote * 100,
                    (x->flags & AU_F_DSMEM_OTHER_TRAFFIC) ? " (its atomics' share of the DSMEM traffic)" : "");
        if ((x->flags & AU_F_DSMEM_HOT) && x->util_hot > 0)
            fprintf(out,
                    "            hot receiver: one SM per cluster serves its cluster's jobs, U %.1f %% (U is it)\n",
                    x->util_hot * 100);
        else if (x->flags & AU_F_DSMEM_HOT)
            fprintf(out,
                    "            hot receiver: one SM per cluster serves its cluster's jobs; not priced: the table "
                    "has no dsmem_hot family of this cluster size\n");
    }
    size_t other = 0;
    for (size_t i = 0; i < r->count; ++i)
        other += (r->launches[i].res.flags & (AU_F_DSMEM_OTHER_TRAFFIC | AU_F_DSMEM)) == AU_F_DSMEM_OTHER_TRAFFIC;
    if (other)
        fprintf(out,
                "\n%zu launch%s sent loads or stores, not atomics, to other SMs' shared memory (flag "
                "dsmem_other_traffic): not in U\n",
                other, other == 1 ? "" : "es");
}

/* The kernels' name cells of a human table, by the report's --name-width. */
static int names_of(const au_report *r, const au_summary *s, au_names *nm)
{
    const char **full = malloc((s->n ? s->n : 1) * sizeof *full);
    if (!full)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t j = 0; j < s->n; ++j)
        full[j] = s->k[j].name;
    int rc = au_names_init(nm, full, s->n, r->name_width);
    if (rc != AU_OK)
        free(full);
    return rc;
}

static void names_free(au_names *nm)
{
    free((void *)nm->full);
    au_names_free(nm);
}

/* The summary's figures of kernel k as text. */
typedef struct {
    char t[24], mean[24], share[16], save[24], u[16], range[48];
} kernel_cells;

static void kernel_cells_of(const au_kernel_stat *k, const au_summary *s, kernel_cells *c)
{
    char lo[16], hi[16];
    strcpy(c->t, "-"), strcpy(c->mean, "-"), strcpy(c->share, "-"), strcpy(c->u, "-"), strcpy(c->range, "-");
    strcpy(c->save, "-");
    if (k->best >= 0 && k->save_ns > 0)
        au_duration_text(k->save_ns, c->save, sizeof c->save);
    if (k->timed) {
        au_duration_text(k->time_ns, c->t, sizeof c->t);
        au_duration_text(k->time_ns / (double)k->timed, c->mean, sizeof c->mean);
    }
    if (k->timed && s->time_ns > 0)
        fit_num(100 * k->time_ns / s->time_ns, 1, 6, c->share, sizeof c->share);
    if (k->evaluated) {
        fit_num(k->util * 100, 1, 6, c->u, sizeof c->u);
        snprintf(c->range, sizeof c->range, "%s..%s", fit_num(k->util_min * 100, 1, 6, lo, sizeof lo),
                 fit_num(k->util_max * 100, 1, 6, hi, sizeof hi));
    }
}

/* One row per kernel of s, by GPU time, then the share of the time in atomic-bound and significant
 * launches; names by their kernel in all (the report's, which s may be one file's part of).  Narrow:
 * no mean time, no most common verdict, the classes cut to the columns left. */
static void render_summary_rows(const au_report *r, const au_summary *s, const au_summary *all, au_names *nm, FILE *out)
{
    int w = (int)nm->width;
    size_t used = nm->width + 9 + 11 + 7 + 11 + 7 + 2 + 13 + 2 + 12 + 2;
    size_t room = used + 12 < AU_REPORT_COLUMNS ? AU_REPORT_COLUMNS - used : 12;
    if (r->wide)
        fprintf(out, "%-*s %8s %10s %10s %6s %10s %6s  %-13s  %-12s  %-12s  %s\n", w, "kernel", "launches", "time",
                "mean", "time%", "could save", "U%", "U% range", "worst", "most common", "classes");
    else
        fprintf(out, "%-*s %8s %10s %6s %10s %6s  %-13s  %-12s  %s\n", w, "kernel", "launches", "time", "time%",
                "could save", "U%", "U% range", "worst", "classes");
    for (size_t j = 0; j < s->n; ++j) {
        const au_kernel_stat *k = &s->k[j];
        kernel_cells c;
        kernel_cells_of(k, s, &c);
        au_names_put(nm, all->of_launch[k->first], 1, out);
        if (r->wide) {
            fprintf(out, " %8zu %10s %10s %6s %10s %6s  %-13s  %-12s  %-12s  %s\n", k->launches, c.t, c.mean, c.share,
                    c.save, c.u, c.range, au_verdict_name(k->worst), au_verdict_name(k->common),
                    k->classes[0] ? k->classes : "-");
            continue;
        }
        char cl[sizeof k->classes * 3];
        au_text_fit(k->classes[0] ? k->classes : "-", cl, sizeof cl, room, 0);
        fprintf(out, " %8zu %10s %6s %10s %6s  %-13s  %-12s  %s\n", k->launches, c.t, c.share, c.save, c.u, c.range,
                au_verdict_name(k->worst), cl);
    }
    if (s->time_ns > 0)
        fprintf(out, "\n%.1f %% of the measured GPU time is in atomic-bound kernels, %.1f %% in significant\n",
                100 * s->time_bound_ns / s->time_ns, 100 * s->time_significant_ns / s->time_ns);
    else
        fprintf(out, "\nno launch has a GPU time (gpu__time_duration.sum): no shares of it\n");
}

/* The summary: with several files one block per file, then all of them together (all: the
 * report's kernels by time).  AU_OK or AU_E_NOMEM. */
static int render_summary(const au_report *r, const au_summary *all, au_names *nm, FILE *out)
{
    const char *hint = r->view == AU_VIEW_AUTO ? " (--per-launch lists every launch)" : "";
    for (size_t f = 0; f < r->nfiles && r->nfiles > 1; ++f) {
        au_summary s;
        int rc = au_summary_make_file(r, f, &s);
        if (rc == AU_OK)
            rc = au_summary_sort_by_time(&s);
        if (rc != AU_OK) {
            au_summary_free(&s);
            return rc;
        }
        fprintf(out, "file %zu, ", f + 1);
        au_fput_text(out, r->files[f], AU_TEXT_PLAIN);
        fprintf(out, ": %zu launch%s of %zu kernel%s, one row per kernel by GPU time\n\n", s.launches,
                s.launches == 1 ? "" : "es", s.n, s.n == 1 ? "" : "s");
        render_summary_rows(r, &s, all, nm, out);
        fputc('\n', out);
        au_summary_free(&s);
    }
    if (r->nfiles > 1)
        fprintf(out, "all %zu files: ", r->nfiles);
    fprintf(out, "%zu launch%s of %zu kernel%s, one row per kernel by GPU time%s\n\n", all->launches,
            all->launches == 1 ? "" : "es", all->n, all->n == 1 ? "" : "s", hint);
    render_summary_rows(r, all, all, nm, out);
    au_names_notes(nm, r->wide ? 0 : AU_REPORT_COLUMNS, out);
    if (r->wide)
        fprintf(out,
                "\ntime: summed GPU time, mean: per launch, time%%: share of the measured GPU time; U: busy over "
                "active cycles of the\nkernel's evaluated launches, U%% range: the smallest and largest launch's U; "
                "worst, most common: the\nlaunches' verdicts; classes: the table families its jobs were priced "
                "as.\n");
    else
        fprintf(out,
                "\ntime: summed GPU time; time%%: share of the measured GPU time; U: busy over active cycles of the "
                "kernel's evaluated\nlaunches; U%% range: the smallest and largest launch's U; worst: the worst "
                "launch's verdict (atomic-bound at\nU >= %.0f %%, significant at U >= %.0f %%, else "
                "not-limiting); classes: the table families its jobs were priced as, by share.\n"
                "--wide adds the mean time per launch and the most common verdict.\n",
                r->thr.bound * 100, r->thr.significant * 100);
    fprintf(
        out,
        "could save: the most GPU time the kernel's best cure of its shared atomics would save (docs/advisor.md).\n");
    au_render_advice(r, all, out);
    return AU_OK;
}

/* Every launch with the sections about them, or (summary) one row per kernel. */
int au_render_table(const au_report *r, const au_summary *s, int summary, FILE *out)
{
    au_names nm;
    int rc = names_of(r, s, &nm);
    if (rc != AU_OK)
        return rc;
    render_table_head(r, out);
    if (summary) {
        rc = render_summary(r, s, &nm, out);
    } else {
        if (r->wide) {
            render_rows_wide(r, s, &nm, out);
        } else {
            render_rows_narrow(r, s, &nm, out);
            render_legend_narrow(r, out);
        }
        render_processes(r, s, &nm, out);
        render_ranges(r, out);
        render_dsmem(r, out);
        render_replay(r, out);
        render_opcodes_human(r, s, &nm, out);
        au_render_advice(r, s, out);
    }
    names_free(&nm);
    return rc;
}
