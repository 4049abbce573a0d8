/*
 * run.c - au_cf_run_read (run.h): a counters file or export read once and passed over once; each
 * line goes to the Nsight Compute CSV reader (ncu_import.c: the rows) and is classified
 * (counters_file.c: the injection library's lines), so that a live run's relay, the report, the
 * opcodes and --timing need no second read.  An Nsight Compute report is read as the raw page that
 * ncu writes of it (ncu_report.c).
 */
#include "run.h"

#include "ncu_import.h"
#include "ncu_opcodes.h"
#include "ncu_report.h"

#include "atomutil/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest counters file or export read (the CSV reader's limit). */
#define RUN_MAX_BYTES ((size_t)1 << 30)

/* Sums of the timing lines beyond these are not plausible (about 3 years of seconds; a million
 * launches a second for 30 years): such a line, typed or damaged, would only make the phase's
 * figure meaningless (or overflow it), so the phase says n/a and why (docs/cli.md, "Timing"). */
#define TIMING_MAX_S        1e8
#define TIMING_MAX_LAUNCHES 1000000000000000LL

/* The pass's state. */
typedef struct {
    const char *name;
    au_cf_run *run;
    au_ncu_reader *ncu; /* NULL once the rows are done with (an error, or not text) */
    int ncu_status;
} run_state;

/* Adds v seconds to *sum: 1 done, 0 not a number of seconds (the line is not a timing line), -1 a
 * number whose sum is implausible (why says so). */
static int add_seconds(double v, double *sum, const char *path, long line, char *why, size_t wsize)
{
    if (!(v >= 0))
        return 0;
    if (v > TIMING_MAX_S - *sum) {
        snprintf(why, wsize, "%s:%ld: %.15g s brings the sum over %.0f s: not plausible", path, line, v, TIMING_MAX_S);
        return -1;
    }
    *sum += v;
    return 1;
}

/* A setup record's figures added to the sums. */
static void timing_setup(const au_cf_timing *tr, au_cf_sums *t, const char *path, long lineno)
{
    long long ctx, beside = 0;
    if (!tr->have[AU_CF_F_SETUP_s] || !au_cf_timing_count(tr, AU_CF_F_SETUP_context, &ctx) ||
        (tr->have[AU_CF_F_SETUP_beside] && (!au_cf_timing_count(tr, AU_CF_F_SETUP_beside, &beside) || beside > 1)))
        return; /* not a setup line as the library writes it */
    if (!t->setup_bad[0] &&
        add_seconds(tr->v[AU_CF_F_SETUP_s], &t->setup_s, path, lineno, t->setup_bad, sizeof t->setup_bad) > 0) {
        t->setups++;
        t->setups_beside += beside == 1;
    }
}

/* A launches record's figures added to the sums. */
static void timing_launches(const au_cf_timing *tr, au_cf_sums *t, const char *path, long lineno)
{
    long long n;
    if (!au_cf_timing_count(tr, AU_CF_F_LAUNCHES_measured, &n) || !tr->have[AU_CF_F_LAUNCHES_callbacks_s] ||
        !tr->have[AU_CF_F_LAUNCHES_module_loads_s] || t->launch_bad[0])
        return;
    double cb = t->callbacks_s, ml = t->module_loads_s;
    int ok = add_seconds(tr->v[AU_CF_F_LAUNCHES_callbacks_s], &cb, path, lineno, t->launch_bad, sizeof t->launch_bad);
    if (ok > 0)
        ok =
            add_seconds(tr->v[AU_CF_F_LAUNCHES_module_loads_s], &ml, path, lineno, t->launch_bad, sizeof t->launch_bad);
    if (ok > 0 && n > TIMING_MAX_LAUNCHES - t->launches) {
        snprintf(t->launch_bad, sizeof t->launch_bad, "%s:%ld: %lld launches bring the sum over %lld: not plausible",
                 path, lineno, n, TIMING_MAX_LAUNCHES);
        ok = -1;
    }
    if (ok > 0) {
        t->launch_lines++;
        t->launches += n;
        t->callbacks_s = cb;
        t->module_loads_s = ml;
    }
}

/* A replay record's figures added to the sums (implausible ones left out). */
static void timing_replay(const au_cf_timing *tr, au_cf_sums *t)
{
    long long n;
    double v = tr->v[AU_CF_F_REPLAY_call_s];
    if (!au_cf_timing_count(tr, AU_CF_F_REPLAY_launches, &n) || !tr->have[AU_CF_F_REPLAY_call_s] || !(v >= 0) ||
        v > TIMING_MAX_S || n > TIMING_MAX_LAUNCHES)
        return;
    t->replayed += n;
    t->replay_s += v;
}

/* A timing line (its fields read by name: cf_timing.def): setup, launches and replay records into
 * the sums; a modules record with not_kept > 0 and a filter text gives -k's module filter (the
 * injection library's, cubins.c). */
static void timing_line(const au_cf_line *l, run_state *st)
{
    au_cf_timing tr;
    long long not_kept;
    if (au_cf_timing_parse(l->text, &tr) != 0)
        return;
    if (tr.rec == AU_CF_REC_SETUP)
        timing_setup(&tr, &st->run->timing, st->name, l->lineno);
    else if (tr.rec == AU_CF_REC_LAUNCHES)
        timing_launches(&tr, &st->run->timing, st->name, l->lineno);
    else if (tr.rec == AU_CF_REC_REPLAY)
        timing_replay(&tr, &st->run->timing);
    else if (tr.rec == AU_CF_REC_MODULES && tr.text[0] &&
             au_cf_timing_count(&tr, AU_CF_F_MODULES_not_kept, &not_kept) && not_kept > 0)
        au_strlcpy(st->run->filter, tr.text, sizeof st->run->filter);
}

/* A "code:" line, "<crc> <mangled> <demangled>": the kernel added unless already there.  AU_OK
 * (a line not of that form is passed over), or AU_E_NOMEM. */
static int code_line(const au_cf_line *l, au_cf_run *run)
{
    char *p = l->text, *end;
    unsigned long crc = strtoul(p, &end, 10);
    char *mangled = end;
    while (*mangled == ' ')
        ++mangled;
    char *sp = strchr(mangled, ' ');
    if (end == p || !sp || !sp[1])
        return AU_OK;
    *sp = '\0';
    for (size_t k = 0; k < run->ncode; ++k)
        if (strcmp(run->code[k].demangled, sp + 1) == 0)
            return AU_OK;
    if (au_grow(&run->code, &run->code_cap, run->ncode, sizeof *run->code, 16) != 0)
        return AU_E_NOMEM;
    au_cf_code *c = &run->code[run->ncode];
    c->demangled = strdup(sp + 1);
    c->mangled = strdup(mangled);
    c->crc = (uint32_t)crc;
    if (!c->demangled || !c->mangled) {
        free(c->demangled);
        free(c->mangled);
        return AU_E_NOMEM;
    }
    run->ncode++;
    return AU_OK;
}

/* A "graph:" line, "<launch id> <mangled>...": added.  AU_OK or AU_E_NOMEM. */
static int graph_line(const au_cf_line *l, au_cf_run *run)
{
    char *end;
    long long pid = strtoll(l->line + strlen(AU_CF_TAG), &end, 10);
    long long id = strtoll(l->text, &end, 10);
    if (end == l->text)
        return AU_OK;
    if (au_grow(&run->graphs, &run->graphs_cap, run->ngraphs, sizeof *run->graphs, 8) != 0)
        return AU_E_NOMEM;
    au_cf_graph *g = &run->graphs[run->ngraphs++];
    *g = (au_cf_graph){pid, id, NULL, 0};
    size_t cap = 0;
    for (char *tok = strtok(end, " "); tok; tok = strtok(NULL, " ")) {
        char *m = strdup(tok);
        if (!m || au_grow(&g->mangled, &cap, g->n, sizeof *g->mangled, 8) != 0) {
            free(m);
            return AU_E_NOMEM;
        }
        g->mangled[g->n++] = m;
    }
    return AU_OK;
}

/* A line a live run relays: kept unless its text was said before.  AU_OK or AU_E_NOMEM. */
static int diag_line(const au_cf_line *l, int relay, au_cf_run *run)
{
    for (size_t i = 0; i < run->ndiags; ++i)
        if (strcmp(run->diags[i].level, l->level) == 0)
            return AU_OK;
    if (au_grow(&run->diags, &run->diags_cap, run->ndiags, sizeof *run->diags, 8) != 0)
        return AU_E_NOMEM;
    char *level = strdup(l->level);
    if (!level)
        return AU_E_NOMEM;
    run->diags[run->ndiags++] = (au_cf_diag){l->kind, relay, level, level + (l->text - l->level)};
    return AU_OK;
}

/* One line: to the CSV reader (while it reads), then by its kind.  Nonzero stops the pass (out of
 * memory). */
static int run_line(const au_cf_line *l, void *ud)
{
    run_state *st = ud;
    au_cf_run *run = st->run;
    if (st->ncu && (st->ncu_status = au_ncu_line(st->ncu, l->line, l->len)) != AU_OK) {
        au_strlcpy(run->error, au_last_error(), sizeof run->error);
        au_ncu_end(st->ncu, st->ncu_status); /* the rows are done with; the other lines go on */
        st->ncu = NULL;
    }
    int rc = AU_OK, relay = au_cf_line_relay(l);
    if (l->kind == AU_CF_ROW)
        run->rows++;
    else if (l->kind == AU_CF_TIMING)
        timing_line(l, st);
    else if (l->kind == AU_CF_CODE)
        rc = code_line(l, run);
    else if (l->kind == AU_CF_GRAPH)
        rc = graph_line(l, run);
    if (rc == AU_OK && relay)
        rc = diag_line(l, relay, run);
    if (rc != AU_OK) {
        run->status = au_set_error(AU_E_NOMEM, "out of memory");
        au_strlcpy(run->error, au_last_error(), sizeof run->error);
    }
    return rc != AU_OK;
}

/* A report's CSV error names the line of ncu's output, not of the report: says so. */
static void note_report_line(au_cf_run *run)
{
    size_t n = strlen(run->error);
    snprintf(run->error + n, sizeof run->error - n, " (a line of ncu --import's --page raw CSV of the report)");
}

int au_cf_run_read(const char *path, unsigned file, au_report *rep, au_cf_run *run)
{
    memset(run, 0, sizeof *run);
    char *buf;
    size_t len, first = rep->count;
    run_state st = {path, run, NULL, AU_OK};
    au_ncu_reader *ncu = NULL;
    run->ncu_report = au_ncu_is_report(path);
    int rc = run->ncu_report ? au_ncu_report_csv(path, RUN_MAX_BYTES, &buf, &len)
                             : au_read_file(path, RUN_MAX_BYTES, &buf, &len);
    int text = rc == AU_OK; /* the error after this is the CSV's */
    if (rc == AU_OK && (rc = au_ncu_begin(path, rep, &ncu)) == AU_OK)
        rc = au_ncu_check(path, buf, len);
    if (rc == AU_OK)
        st.ncu = ncu;
    else /* not read, or not text: what its lines say is still read where it was */
        au_strlcpy(run->error, au_last_error(), sizeof run->error), au_ncu_end(ncu, rc);
    int opcodes = 0;
    if (buf) {
        opcodes = rc == AU_OK && strstr(buf, "\"" AU_NCU_OPCODE_METRIC "\"") != NULL; /* in the header only */
        au_cf_each_line(buf, run_line, &st);
        free(buf);
    }
    if (st.ncu) {
        run->ncu_raw = au_ncu_raw(st.ncu);
        run->ncu_opcodes = run->ncu_raw && opcodes;
        st.ncu_status = au_ncu_end(st.ncu, st.ncu_status);
        if (st.ncu_status != AU_OK && run->status == AU_OK)
            au_strlcpy(run->error, au_last_error(), sizeof run->error);
    }
    if (rc == AU_OK)
        rc = st.ncu_status;
    if (run->status != AU_OK) /* out of memory: its message is run->error */
        rc = run->status;
    if (rc == AU_E_PARSE && text && run->ncu_report)
        note_report_line(run);
    run->rows -= run->rows > 0; /* the header */
    for (size_t i = first; i < rep->count; ++i)
        rep->launches[i].file = file;
    return run->status = rc;
}

void au_cf_run_free(au_cf_run *run)
{
    for (size_t k = 0; k < run->ncode; ++k) {
        free(run->code[k].demangled);
        free(run->code[k].mangled);
    }
    free(run->code);
    for (size_t i = 0; i < run->ngraphs; ++i) {
        for (size_t k = 0; k < run->graphs[i].n; ++k)
            free(run->graphs[i].mangled[k]);
        free(run->graphs[i].mangled);
    }
    free(run->graphs);
    for (size_t i = 0; i < run->ndiags; ++i)
        free(run->diags[i].level);
    free(run->diags);
    memset(run, 0, sizeof *run);
}
