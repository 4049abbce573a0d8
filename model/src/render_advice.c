/*
 * render_advice.c - the human report's "what would help" block (docs/advisor.md): for each kernel
 * with atomic-bound or significant launches, why its jobs take the passes they take and what each
 * cure would buy; then the kernels whose cure would save the most GPU time.
 */
#include "internal.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Cures shown per kernel, by time saved. */
#define AU_ADVICE_SHOWN 4
/* Kernels named in the closing lines. */
#define AU_ADVICE_FIRST 3
/* Cures whose times differ by less than this share of the kernel's time read as one. */
#define AU_CURE_SAME    0.01

/* Why a class's jobs take the passes they take, in words. */
static const char *why_of(const char *family)
{
    switch (au_family_kind_of(family)) {
    case AU_KIND_CAS_LOOP: return "CAS-loop attempts: a lane that loses its word's race retries, each try a job";
    case AU_KIND_CAS: return "CAS: lanes of a warp in one bank serialize, two wavefronts a pass";
    case AU_KIND_PLAIN:
        return strcmp(family, "popc_inc") == 0
                   ? "unused results: distinct words of one bank serialize, same-word lanes fold"
                   : "lanes of a warp in one bank serialize, on one word or not";
    default: return "generic or cluster atomics: the cures below do not price them";
    }
}

static int wants_advice(const au_kernel_stat *k)
{
    return k->best >= 0 && (k->verdicts[AU_VERDICT_BOUND] || k->verdicts[AU_VERDICT_SIGNIFICANT]);
}

/* The kernel's cures, the most saving first, into order[]; their number. */
static int cures_by_saving(const au_kernel_stat *k, int *order)
{
    int n = 0;
    for (int c = 0; c < AU_CURE_COUNT; ++c) {
        if (!(k->cure_ns[c] < k->time_ns * 0.995))
            continue;
        int i = n++; /* by time; of equal times the earlier, simpler cure first */
        for (; i > 0 && k->cure_ns[order[i - 1]] > k->cure_ns[c]; --i)
            order[i] = order[i - 1];
        order[i] = c;
    }
    return n;
}

/* Cures b and c of kernel k leave the same time and range (one line for both). */
static int same_cure_line(const au_kernel_stat *k, int c, int b)
{
    double tol = AU_CURE_SAME * k->time_ns;
    return fabs(k->cure_ns[b] - k->cure_ns[c]) <= tol && fabs(k->cure_lo_ns[b] - k->cure_lo_ns[c]) <= tol &&
           fabs(k->cure_hi_ns[b] - k->cure_hi_ns[c]) <= tol;
}

static void render_kernel(const au_kernel_stat *k, FILE *out)
{
    char name[160], t[24], lo[24], hi[24], save[24];
    au_kernel_fit(k->name, name, sizeof name, 60, 0);
    double a = k->jobs > 0 ? k->wavefronts / (k->jobs + k->cas_jobs) : 0;
    fprintf(out, "  %s: %zu launch%s, %s, U %.1f %%, a = %.1f passes per job\n", name, k->launches,
            k->launches == 1 ? "" : "es", au_duration_text(k->time_ns, t, sizeof t), k->util * 100, a);
    double busy = 0;
    for (size_t c = 0; c < k->nclass; ++c)
        busy += k->cls[c].busy;
    int loops = 0;
    double attempts = 0;
    for (size_t c = 0; c < k->nclass; ++c) {
        int loop = au_family_kind_of(k->cls[c].family) == AU_KIND_CAS_LOOP;
        attempts += loop ? k->cls[c].jobs : 0;
        if (c >= 3)
            continue;
        fprintf(out, "    %-12s %3.0f %% of the busy time: %s\n", k->cls[c].family,
                busy > 0 ? 100 * k->cls[c].busy / busy : 0, why_of(k->cls[c].family));
        loops |= loop;
    }
    /* docs/advisor.md, "What the counters cannot tell" and "CAS loops with their entries" */
    if (loops && k->entry_launches == k->evaluated && k->loop_entries > 0) {
        fprintf(out, "    CAS loops: %.1f attempts per entry (entries: the report's source counters)\n",
                attempts / k->loop_entries);
        /* "CAS loops with their entries": what a pass cure leaves of each entry */
        if (k->entry_load_cycles > 0)
            fprintf(out, "    CAS loops: each entry waits about %.0f cycles for its loads, which a cure leaves\n",
                    k->entry_load_cycles / k->loop_entries);
        else if (k->entry_loads_unpriced & AU_ENTRY_NO_LATENCY)
            fputs("    CAS loops: the table has no load latencies (atomutil-calibrate --latency --merge), so the\n"
                  "      entries' loads are not priced and the times read too much of the saving\n",
                  out);
        else if (k->entry_loads_unpriced & AU_ENTRY_NO_COUNTERS)
            fputs("    CAS loops: no L2 or DRAM counter, so the entries' loads are not priced and the times read\n"
                  "      too much of the saving\n",
                  out);
    } else if (loops)
        fputs("    CAS loops: no counter gives their entries, so the pass cures are not priced for them; an Nsight\n"
              "      Compute report with its source counters gives them (ncu --set full --section AtomicUnit, then\n"
              "      atomutil-profile --import REPORT.ncu-rep: docs/nsight-compute.md)\n",
              out);
    /* docs/advisor.md, "Kernel time": where the loads come from sets what a cure leaves of the rest */
    if (k->l2_launches == k->evaluated && k->l2_launches > 0) {
        double v = au_l2_loads_per_job(k->l2_hit_sectors, k->l2_jobs);
        if (v >= 0.05)
            fprintf(out, "    loads: %.1f per job hit in L2 and wait behind the unit; a cure shortens that wait too\n",
                    v);
        else
            fputs("    loads: none per job hit in L2; a cure leaves the rest of the kernel as it is\n", out);
    }
    int order[AU_CURE_COUNT], n = cures_by_saving(k, order), lines = 0, done[AU_CURE_COUNT] = {0};
    for (int i = 0; i < n && lines < AU_ADVICE_SHOWN; ++i) {
        int c = order[i];
        if (done[i])
            continue;
        /* the cures that leave the same time, with the same range, share one line */
        char names[128];
        size_t used = (size_t)snprintf(names, sizeof names, "%s", au_cure_name(c));
        for (int j = i + 1; j < n; ++j)
            if (!done[j] && same_cure_line(k, c, order[j])) {
                done[j] = 1;
                if (used < sizeof names)
                    used += (size_t)snprintf(names + used, sizeof names - used, ", %s", au_cure_name(order[j]));
            }
        double db = k->busy > 0 ? 100 * (k->cure_busy[c] - k->busy) / k->busy : 0;
        au_duration_text(k->cure_ns[c], t, sizeof t);
        au_duration_text(k->cure_lo_ns[c], lo, sizeof lo);
        au_duration_text(k->cure_hi_ns[c], hi, sizeof hi);
        au_duration_text(k->time_ns - k->cure_ns[c], save, sizeof save);
        char line[256];
        int w = snprintf(line, sizeof line, "    busy %4.0f %%, time %s (%s..%s), saves %s:", db, t, lo, hi, save);
        if (w > 0 && (size_t)w + 1 + strlen(names) <= AU_REPORT_COLUMNS)
            fprintf(out, "%s %s\n", line, names);
        else
            fprintf(out, "%s\n      %s\n", line, names);
        lines++;
    }
    /* docs/advisor.md, "Warp aggregation's own work": a cure that would lose time is not among the
     * lines above, but a user who asks whether to aggregate gets the answer */
    if (k->cure_busy[AU_CURE_AGGREGATE] < k->busy * 0.995 && k->cure_ns[AU_CURE_AGGREGATE] > k->time_ns * 1.005) {
        au_duration_text(k->cure_ns[AU_CURE_AGGREGATE], t, sizeof t);
        au_duration_text(k->cure_lo_ns[AU_CURE_AGGREGATE], lo, sizeof lo);
        au_duration_text(k->cure_hi_ns[AU_CURE_AGGREGATE], hi, sizeof hi);
        double d[3];
        au_aggregate_words(a, d);
        fprintf(out,
                "    aggregate: its __match_any_sync costs more than it saves: time %s (%s..%s)\n"
                "      at about %.0f distinct words a warp (%.0f to 32: the counters cannot tell)\n",
                t, lo, hi, d[0], d[1]);
    }
    if (k->match_unpriced && k->cure_ns[AU_CURE_AGGREGATE] < k->time_ns * 0.995)
        fputs("    aggregate: the table has no MATCH cost (atomutil-calibrate --latency --merge), so its\n"
              "      __match_any_sync is not priced and the time reads too much of the saving\n",
              out);
}

void au_render_advice(const au_report *r, const au_summary *s, FILE *out)
{
    (void)r;
    size_t shown = 0;
    for (size_t j = 0; j < s->n; ++j) {
        if (!wants_advice(&s->k[j]))
            continue;
        if (!shown++)
            fprintf(out, "\nwhat would help (kernels with atomic-bound or significant launches; docs/advisor.md): "
                         "the unit's busy\ntime after each cure, the kernel time it leaves (range: U's error, a "
                         "launch's time from run to run,\nwhat the counters cannot tell of the cure), what that "
                         "saves:\n");
        render_kernel(&s->k[j], out);
    }
    /* the kernels whose cure saves the most, the most first */
    size_t first[AU_ADVICE_FIRST], n = 0;
    for (; n < AU_ADVICE_FIRST; ++n) {
        size_t pick = s->n;
        for (size_t j = 0; j < s->n; ++j) {
            int taken = 0;
            for (size_t i = 0; i < n; ++i)
                taken |= first[i] == j;
            if (!taken && wants_advice(&s->k[j]) && s->k[j].save_ns > 0 &&
                (pick == s->n || s->k[j].save_ns > s->k[pick].save_ns))
                pick = j;
        }
        if (pick == s->n)
            break;
        first[n] = pick;
    }
    if (n)
        fprintf(out,
                "\nfix first (the GPU time a cure could save at most, its share of the measured time, the cure):\n");
    for (size_t i = 0; i < n; ++i) {
        const au_kernel_stat *k = &s->k[first[i]];
        char name[160], save[24];
        au_kernel_fit(k->name, name, sizeof name, 60, 0);
        fprintf(out, "  %zu. %s  %s  %.1f %%  %s\n", i + 1, name, au_duration_text(k->save_ns, save, sizeof save),
                s->time_ns > 0 ? 100 * k->save_ns / s->time_ns : 0, au_cure_name(k->best));
    }
}
