/*
 * fuzz_ncu.c - libFuzzer target for the Nsight Compute CSV reader (au_ncu_import_buffer,
 * profile/import/ncu_import.c), which also reads atomutil's own counters files.  Every input must
 * either import or be refused with one printable line naming the input; what imports then goes
 * through the rest of atomutil-profile's path: evaluation against a fixed table and the three
 * renderers, so that counters the reader lets through cannot crash the model or the report.
 * The same input also goes to the reader of a report's executions per opcode (ncu_opcodes.c) and
 * to that of its source page (ncu_source.c).
 * The table is tests/data/golden-table.csv (FUZZ_TABLE, or $ATOMUTIL_FUZZ_TABLE), loaded once.
 */
#include "fuzz_common.h"

#include "atomutil/model.h"
#include "ncu_import.h"
#include "ncu_opcodes.h"
#include "ncu_source.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_TABLE
#define FUZZ_TABLE "tests/data/golden-table.csv"
#endif

static au_table *table;
static FILE *devnull;

static void release(void)
{
    au_table_free(table);
    table = NULL;
    if (devnull)
        fclose(devnull);
    devnull = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("ATOMUTIL_FUZZ_TABLE");
    if (!path || !*path)
        path = FUZZ_TABLE;
    if (au_table_load(path, &table) != AU_OK) {
        fprintf(stderr, "fuzz_ncu: %s\n", au_last_error());
        abort();
    }
    devnull = fopen("/dev/null", "w");
    atexit(release);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    au_report r;
    au_report_init(&r);
    int rc = au_ncu_import_buffer("fuzz.csv", (const char *)data, size, &r);
    if (rc == AU_OK) {
        fuzz_check(r.count > 0, "an import without launches succeeded");
        /* what the reader lets through is a count: finite and >= 0 (after unit scaling too) */
        for (size_t i = 0; i < r.count; ++i) {
            const au_counters *c = &r.launches[i].ctr;
            const double v[] = {c->jobs, c->cas_jobs, c->wavefronts, c->active_cycles, c->warps};
            const unsigned bit[] = {AU_C_JOBS, AU_C_CAS, AU_C_WAVEFRONTS, AU_C_ACTIVE_CYCLES, AU_C_WARPS};
            for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
                if (c->have & bit[k])
                    fuzz_check(isfinite(v[k]) && v[k] >= 0, "a counter is not a finite count");
            fuzz_check(isfinite(r.launches[i].duration_ns), "duration is not finite");
        }
        au_thresholds thr = AU_THRESHOLDS_DEFAULT;
        fuzz_check(au_report_eval(&r, table, "add", &thr) == AU_OK, "evaluation of an import failed");
        for (size_t i = 0; i < r.count; ++i) {
            const au_launch *l = &r.launches[i];
            fuzz_check(l->kernel != NULL, "launch without a kernel name");
            if (l->res.verdict != AU_VERDICT_UNKNOWN)
                fuzz_check(l->res.util == l->res.util, "U is NaN for a launch with a verdict");
            /* counters that cannot be right give no figure; the others a U within physical range */
            if (l->res.flags & AU_F_UNUSABLE)
                fuzz_check(l->res.util == 0 && l->res.busy == 0 && l->res.verdict == AU_VERDICT_UNKNOWN,
                           "a launch without usable counters has figures");
            else
                fuzz_check(!(l->res.util > AU_U_IMPLAUSIBLE), "U above the physical range has a verdict");
        }
        if (devnull)
            for (int f = AU_FMT_TABLE; f <= AU_FMT_JSON; ++f)
                fuzz_check(au_report_render(&r, (au_format)f, devnull) == AU_OK, "rendering failed");
    } else if (rc == AU_E_PARSE) {
        fuzz_check_message(au_last_error(), "fuzz.csv");
    } else {
        fuzz_check(rc < 0, "failure with a positive status");
    }
    au_report_free(&r);
    /* the same bytes as the page of a report's executions per opcode (ncu_opcodes.c): read or
     * refused with one line; what it keeps is an ATOM opcode and a finite count */
    au_ncu_opcodes ops;
    rc = au_ncu_opcodes_parse("fuzz.csv", (const char *)data, size, &ops);
    if (rc == AU_OK) {
        for (size_t i = 0; i < ops.n; ++i)
            for (size_t k = 0; k < ops.rows[i].n; ++k) {
                const au_ncu_opcount *o = &ops.rows[i].ops[k];
                fuzz_check(strncmp(o->opcode, "ATOM", 4) == 0 && memchr(o->opcode, 0, sizeof o->opcode),
                           "a kept opcode is not an atomic's");
                fuzz_check(isfinite(o->executed) && o->executed >= 0, "an opcode's count is not a finite count");
            }
        au_ncu_opcodes_free(&ops);
    } else if (rc == AU_E_PARSE) {
        fuzz_check_message(au_last_error(), "fuzz.csv");
    } else {
        fuzz_check(rc < 0, "failure with a positive status");
    }
    /* ... and as a report's source page (ncu_source.c): read or refused with one line; a page's
     * entries are a finite count, or -1 where its loops could not all be read */
    au_ncu_source src;
    rc = au_ncu_source_parse("fuzz.csv", (const char *)data, size, &src);
    if (rc == AU_OK) {
        for (size_t i = 0; i < src.n; ++i) {
            fuzz_check(src.pages[i].kernel != NULL, "a page without a kernel name");
            fuzz_check(src.pages[i].entries == -1 || (isfinite(src.pages[i].entries) && src.pages[i].entries >= 0),
                       "a page's entries are not a count");
        }
        au_ncu_source_free(&src);
    } else if (rc == AU_E_PARSE) {
        fuzz_check_message(au_last_error(), "fuzz.csv");
    } else {
        fuzz_check(rc < 0, "failure with a positive status");
    }
    return 0;
}
