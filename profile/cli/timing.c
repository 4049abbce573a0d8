/*
 * timing.c - atomutil-profile --timing: the phases' figures summed (the injection library's from
 * the counters files, the opcodes phase's from each file's listings) and printed.
 */
#include "timing.h"

#include "atomutil/util.h"

#include <stdio.h>

static const char *prog = "atomutil-profile";

void au_timing_add_opcodes(timing *tm, const au_opcodes_stats *op, double seconds)
{
    tm->opcodes_s += seconds;
    tm->opcodes_ran = 1;
    tm->op.cubins += op->cubins;
    tm->op.cache_hits += op->cache_hits;
    tm->op.cache_bad += op->cache_bad;
    tm->op.nvdisasm_runs += op->nvdisasm_runs;
    tm->op.cuobjdump_runs += op->cuobjdump_runs;
}

void au_timing_add_inject(timing *tm, const au_cf_sums *t)
{
    au_cf_sums *s = &tm->inject;
    if (!tm->have_inject++) {
        *s = *t;
        return;
    }
    s->setups += t->setups;
    s->setups_beside += t->setups_beside;
    s->setup_s += t->setup_s;
    s->launch_lines += t->launch_lines;
    s->launches += t->launches;
    s->callbacks_s += t->callbacks_s;
    s->module_loads_s += t->module_loads_s;
    s->replayed += t->replayed;
    s->replay_s += t->replay_s;
    if (!s->setup_bad[0])
        au_strlcpy(s->setup_bad, t->setup_bad, sizeof s->setup_bad);
    if (!s->launch_bad[0])
        au_strlcpy(s->launch_bad, t->launch_bad, sizeof s->launch_bad);
}

void au_timing_print(const timing *tm)
{
    const au_cf_sums *it = &tm->inject;
    if (tm->live)
        fprintf(stderr, "%s: timing: run %.3f s\n", prog, tm->run_s);
    else
        fprintf(stderr, "%s: timing: run n/a\n", prog);
    /* an implausible figure in the counters file: n/a, and where */
    if (tm->have_inject && it->setup_bad[0])
        fprintf(stderr, "%s: timing: setup n/a (%s)\n", prog, it->setup_bad);
    else if (tm->have_inject && it->setups)
        fprintf(stderr, "%s: timing: setup %.3f s (%d context%s%s)\n", prog, it->setup_s, it->setups,
                it->setups == 1 ? "" : "s",
                it->setups_beside == it->setups ? ", beside the program"
                : it->setups_beside             ? ", some beside the program"
                                                : "");
    else
        fprintf(stderr, "%s: timing: setup n/a\n", prog);
    if (tm->have_inject && it->launch_bad[0]) {
        fprintf(stderr, "%s: timing: launch-callbacks n/a (%s)\n", prog, it->launch_bad);
        fprintf(stderr, "%s: timing: module-loads n/a (as launch-callbacks)\n", prog);
    } else if (tm->have_inject && it->launch_lines) {
        fprintf(stderr, "%s: timing: launch-callbacks %.3f s (%lld launches measured)\n", prog, it->callbacks_s,
                it->launches);
        fprintf(stderr, "%s: timing: module-loads %.3f s\n", prog, it->module_loads_s);
    } else {
        fprintf(stderr, "%s: timing: launch-callbacks n/a\n", prog);
        fprintf(stderr, "%s: timing: module-loads n/a\n", prog);
    }
    if (tm->have_inject && it->replayed)
        fprintf(stderr, "%s: timing: replay %.3f s (%lld launch%s measured in several passes, their driver calls)\n",
                prog, it->replay_s, it->replayed, it->replayed == 1 ? "" : "es");
    fprintf(stderr, "%s: timing: report %.3f s\n", prog, tm->report_s);
    if (tm->opcodes_ran) {
        const au_opcodes_stats *op = &tm->op;
        fprintf(stderr, "%s: timing: opcodes %.3f s (%d cubins listed, %d listings from cache, %d nvdisasm runs", prog,
                tm->opcodes_s, op->cubins, op->cache_hits, op->nvdisasm_runs);
        if (op->cuobjdump_runs)
            fprintf(stderr, ", %d cuobjdump runs", op->cuobjdump_runs);
        fprintf(stderr, ")\n");
    } else {
        fprintf(stderr, "%s: timing: opcodes n/a\n", prog);
    }
    fprintf(stderr, "%s: timing: total %.3f s\n", prog, au_monotonic_s() - tm->start);
}
