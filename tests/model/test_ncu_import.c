/*
 * test_ncu_import.c - the Nsight Compute CSV importer on small in-memory exports: thousands
 * separators, scaled units, "n/a", application output between rows, several processes, and
 * launches missing metrics; a raw page (--page raw) thousands of columns wide.
 */
#include "atomutil/model.h"
#include "check.h"
#include "ncu_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR                                                                                            \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","     \
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\"," \
    "\"Metric Value\"\n"
#define ROW(id, pid, k, m, u, v)                                                                         \
    "\"" id "\",\"" pid "\",\"app\",\"127.0.0.1\",\"" k "\",\"1\",\"7\",\"(128, 1, 1)\",\"(66, 1, 1)\"," \
    "\"0\",\"9.0\",\"Command line profiler metrics\",\"" m "\",\"" u "\",\"" v "\"\n"

/* A row with its block and grid as given. */
#define ROWD(block, grid)                                                                         \
    "\"0\",\"1\",\"app\",\"h\",\"k\",\"1\",\"7\",\"" block "\",\"" grid "\",\"0\",\"9.0\",\"s\"," \
    "\"sm__cycles_active.avg\",\"cycle\",\"1\"\n"

/* Grid and block are numbers, read once; a value that is not "(X, Y, Z)" refuses the export with
 * its line, as a malformed number does. */
static void test_dims(void)
{
    static const char good[] = HDR ROWD("(128, 2, 1)", "(4294967295,65535,0)");
    au_report r;
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("dims.csv", good, strlen(good), &r), AU_OK);
    if (r.count == 1) {
        const au_launch *l = &r.launches[0];
        CHECK_EQ_INT(l->dims, AU_DIMS_GRID | AU_DIMS_BLOCK);
        CHECK(l->block[0] == 128 && l->block[1] == 2 && l->block[2] == 1);
        CHECK(l->grid[0] == 4294967295u && l->grid[1] == 65535 && l->grid[2] == 0);
    }
    au_report_free(&r);
    static const char *const bad[][2] = {
        {"(128, 1)", "(1, 1, 1)"},
        {"(128, 1, 1)", "528"},
        {"(128, 1, 1)", "(-1, 1, 1)"},
        {"(128, 1, 1)", "(5e2, 1, 1)"},
        {"(128, 1, 1)", "(4294967296, 1, 1)"},
        {"(128, 1, 1) x", "(1, 1, 1)"},
        {"", "(1, 1, 1)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[1024], want[128];
        snprintf(text, sizeof text,
                 "%s\"0\",\"1\",\"app\",\"h\",\"k\",\"1\",\"7\",\"%s\",\"%s\",\"0\",\"9.0\",\"s\","
                 "\"sm__cycles_active.avg\",\"cycle\",\"1\"\n",
                 HDR, bad[i][0], bad[i][1]);
        int block_bad = strcmp(bad[i][1], "(1, 1, 1)") == 0;
        snprintf(want, sizeof want, "bad.csv:2: %s '%s' is not (X, Y, Z) of whole numbers",
                 block_bad ? "Block Size" : "Grid Size", block_bad ? bad[i][0] : bad[i][1]);
        au_report_init(&r);
        CHECK_EQ_INT(au_ncu_import_buffer("bad.csv", text, strlen(text), &r), AU_E_PARSE);
        CHECK(strcmp(au_last_error(), want) == 0);
        if (strcmp(au_last_error(), want) != 0)
            fprintf(stderr, "  got '%s'\n  want '%s'\n", au_last_error(), want);
        au_report_free(&r);
    }
}

/* Appends the fields of a raw page's line: the 11 columns before the metrics (id[0..11), cycled
 * when shorter), nfill filler metric columns (fill, with %d for their number), the named ones. */
static void raw_line(char **buf, size_t *len, const char *const *id, int nid, const char *fill, int nfill,
                     const char *const *named, int nnamed)
{
    size_t need = *len + 64 * (size_t)(11 + nfill + nnamed) + 2;
    char *b = realloc(*buf, need);
    if (!b)
        return;
    size_t o = *len;
    for (int i = 0; i < 11 + nfill + nnamed; ++i) {
        char f[64];
        if (i < 11)
            snprintf(f, sizeof f, "%s", id[i % nid]);
        else if (i < 11 + nfill)
            snprintf(f, sizeof f, fill, i);
        else
            snprintf(f, sizeof f, "%s", named[i - 11 - nfill]);
        o += (size_t)snprintf(b + o, need - o, "%s\"%s\"", i ? "," : "", f);
    }
    o += (size_t)snprintf(b + o, need - o, "\n");
    *buf = b;
    *len = o;
}

/* The raw page: thousands of columns, each metric's unit from the units line, the rest of the
 * columns not looked at; a header wider than the reader's limit is refused with its line. */
static void test_raw_wide(void)
{
    static const char *const ids[] = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                      "Stream", "Block Size", "Grid Size",    "Device",    "CC"};
    static const char *const names[] = {"smsp__inst_executed_op_shared_atom.sum",
                                        "smsp__inst_executed_op_shared_atom_dot_cas.sum",
                                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
                                        "sm__cycles_active.avg",
                                        "sm__warps_active.avg.per_cycle_active",
                                        "sm__cycles_active.max",
                                        "gpu__time_duration.sum",
                                        "device__attribute_display_name"};
    static const char *const units[] = {"Kinst", "inst", "", "Kcycle", "warp", "%", "usecond", ""};
    static const char *const values[] = {"1.5", "0", "48,000", "1.2345", "12.25", "50", "2.5", "NVIDIA H100"};
    static const char *const none[] = {""};
    static const char *const launch[] = {"7",           "11",         "app", "h",  "void k1(int *)", "1", "7",
                                         "(128, 1, 1)", "(66, 1, 1)", "0",   "9.0"};
    char *text = NULL;
    size_t len = 0;
    raw_line(&text, &len, ids, 11, "x__filler_%d.sum", 5000, names, 8);
    raw_line(&text, &len, none, 1, "", 5000, units, 8);
    raw_line(&text, &len, launch, 11, "%d", 5000, values, 8);
    au_report r;
    au_report_init(&r);
    CHECK(text != NULL);
    CHECK_EQ_INT(au_ncu_import_buffer("wide.csv", text ? text : "", len, &r), AU_OK);
    CHECK_EQ_INT(r.count, 1);
    if (r.count == 1) {
        const au_launch *l = &r.launches[0];
        CHECK_EQ_INT(l->id, 7);
        CHECK_EQ_INT(l->pid, 11);
        CHECK(strcmp(l->device, "NVIDIA H100") == 0);
        CHECK_EQ_INT(l->ctr.have, AU_C_REQUIRED);
        CHECK_EQ_INT(l->ctr.wrong_unit, AU_C_ACTIVE_MAX);
        CHECK_NEAR(l->ctr.jobs, 1500, 0);
        CHECK_NEAR(l->ctr.wavefronts, 48000, 0);
        CHECK_NEAR(l->ctr.active_cycles, 1234.5, 1e-9);
        CHECK_NEAR(l->duration_ns, 2500, 1e-9);
    }
    au_report_free(&r);
    free(text);
    text = NULL;
    len = 0;
    raw_line(&text, &len, ids, 11, "x__filler_%d.sum", 65536 - 11 - 7, names, 8);
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("huge.csv", text ? text : "", len, &r), AU_E_PARSE);
    CHECK(strcmp(au_last_error(), "huge.csv:1: header has more than 65536 columns") == 0);
    au_report_free(&r);
    free(text);
}

static const char export_text[] =
    "==PROF== Connected to process 11 (/tmp/app)\n"
    "some \"app\" output, with commas\n" HDR ROW("0", "11", "void k1(int *)", "smsp__inst_executed_op_shared_atom.sum",
                                                 "Kinst", "1.5")
        ROW("0", "11", "void k1(int *)", "smsp__inst_executed_op_shared_atom_dot_cas.sum", "inst",
            "0") "app output between rows\n" ROW("0", "11", "void k1(int *)",
                                                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "", "48,000")
            ROW("0", "11", "void k1(int *)", "sm__cycles_active.avg", "cycle", "1,234.5")
                ROW("0", "11", "void k1(int *)", "sm__warps_active.avg.per_cycle_active", "warp", "12.25")
                    ROW("0", "11", "void k1(int *)", "gpu__time_duration.sum", "usecond", "2.5")
                        ROW("0", "11", "void k1(int *)", "device__attribute_display_name", "", "NVIDIA H100 80GB HBM3")
                            ROW("0", "11", "void k1(int *)", "device__attribute_multiprocessor_count", "SM", "132")
                                ROW("0", "11", "void k1(int *)", "some__other_metric.sum", "whatever", "x")
    /* same ID in another process is another launch; missing counters, one n/a */
    ROW("0", "12", "void k2()", "smsp__inst_executed_op_shared_atom.sum", "inst", "10")
        ROW("0", "12", "void k2()", "smsp__inst_executed_op_shared_atom_dot_cas.sum", "",
            "n/a") "==PROF== Disconnected from process 11\n";

int main(void)
{
    test_dims();
    test_raw_wide();
    au_report r;
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("mem.csv", export_text, strlen(export_text), &r), AU_OK);
    CHECK_EQ_INT(r.count, 2);
    if (r.count == 2) {
        const au_launch *a = &r.launches[0], *b = &r.launches[1];
        CHECK_EQ_INT(a->pid, 11);
        CHECK(strcmp(a->kernel, "void k1(int *)") == 0);
        CHECK(strcmp(a->device, "NVIDIA H100 80GB HBM3") == 0);
        CHECK_EQ_INT(a->sm_count, 132);
        CHECK_NEAR(a->ctr.jobs, 1500, 0);
        CHECK_NEAR(a->ctr.wavefronts, 48000, 0);
        CHECK_NEAR(a->ctr.active_cycles, 1234.5, 0);
        CHECK_NEAR(a->ctr.warps, 12.25, 0);
        CHECK_NEAR(a->duration_ns, 2500, 1e-9);
        CHECK_EQ_INT(a->ctr.have, AU_C_REQUIRED);
        CHECK(a->missing_names[0] == '\0');
        CHECK_EQ_INT(b->pid, 12);
        CHECK_EQ_INT(b->ctr.have, AU_C_JOBS);
        CHECK(strstr(b->missing_names, "smsp__inst_executed_op_shared_atom_dot_cas.sum") != NULL);
        CHECK(strstr(b->missing_names, "sm__cycles_active.avg") != NULL);
        CHECK(strstr(b->missing_names, "smsp__inst_executed_op_shared_atom.sum") == NULL);
    }
    au_report_free(&r);

    /* errors name the line */
    static const char dup[] = HDR ROW("0", "1", "k", "sm__cycles_active.avg", "cycle", "1")
        ROW("0", "1", "k", "sm__cycles_active.avg", "cycle", "2");
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("dup.csv", dup, strlen(dup), &r), AU_E_PARSE);
    CHECK(strncmp(au_last_error(), "dup.csv:3: duplicate row", 24) == 0);
    au_report_free(&r);
    static const char unit[] = "x\n" HDR ROW("0", "1", "k", "sm__cycles_active.avg", "furlong", "1");
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("unit.csv", unit, strlen(unit), &r), AU_E_PARSE);
    CHECK(strncmp(au_last_error(), "unit.csv:3: unknown unit", 24) == 0);
    au_report_free(&r);

    /* a row indented by blanks is a row: read, not skipped as program output */
    static const char indented[] =
        HDR ROW("0", "1", "k", "smsp__inst_executed_op_shared_atom.sum", "inst",
                "64") " " ROW("0", "1", "k", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "",
                              "2,048") "\t  " ROW("0", "1", "k", "sm__cycles_active.avg", "cycle",
                                                  "100") "   indented program output is still skipped\n";
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("indented.csv", indented, strlen(indented), &r), AU_OK);
    CHECK_EQ_INT(r.count, 1);
    if (r.count == 1) {
        CHECK_EQ_INT(r.launches[0].ctr.have, AU_C_JOBS | AU_C_WAVEFRONTS | AU_C_ACTIVE_CYCLES);
        CHECK_NEAR(r.launches[0].ctr.wavefronts, 2048, 0);
        CHECK_NEAR(r.launches[0].ctr.active_cycles, 100, 0);
    }
    au_report_free(&r);
    /* an indented row that does not parse is reported, with its line */
    static const char indented_bad[] = HDR "  \"0\",\"1\",\"k\"\n";
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("ib.csv", indented_bad, strlen(indented_bad), &r), AU_E_PARSE);
    CHECK(strncmp(au_last_error(), "ib.csv:2: expected 15 fields", 28) == 0);
    au_report_free(&r);

    /* units of another kind: not stored, marked in wrong_unit, not listed as missing; scaled and
     * ratio units of the metric's own kind are read */
    static const char units[] = HDR ROW("0", "1", "k", "smsp__inst_executed_op_shared_atom.sum", "Kinst", "2")
        ROW("0", "1", "k", "smsp__inst_executed_op_shared_atom_dot_cas.sum", "cycle", "0")
            ROW("0", "1", "k", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "%", "50")
                ROW("0", "1", "k", "sm__cycles_active.avg", "Mcycle", "1.5")
                    ROW("0", "1", "k", "sm__warps_active.avg.per_cycle_active", "warp/cycle", "12")
                        ROW("0", "1", "k", "sm__cycles_active.max", "inst", "7")
                            ROW("0", "1", "k", "gpu__time_duration.sum", "ms", "1");
    au_report_init(&r);
    CHECK_EQ_INT(au_ncu_import_buffer("units.csv", units, strlen(units), &r), AU_OK);
    if (r.count == 1) {
        const au_launch *l = &r.launches[0];
        CHECK_EQ_INT(l->ctr.have, AU_C_JOBS | AU_C_ACTIVE_CYCLES | AU_C_WARPS);
        CHECK_EQ_INT(l->ctr.wrong_unit, AU_C_CAS | AU_C_WAVEFRONTS | AU_C_ACTIVE_MAX);
        CHECK_NEAR(l->ctr.jobs, 2000, 0);
        CHECK_NEAR(l->ctr.active_cycles, 1.5e6, 0);
        CHECK_NEAR(l->ctr.warps, 12, 0);
        CHECK(l->ctr.cas_jobs == 0 && l->ctr.wavefronts == 0 && l->ctr.active_max == 0);
        CHECK(l->missing_names[0] == '\0');
        CHECK_NEAR(l->duration_ns, 1e6, 0);
    }
    au_report_free(&r);
    return check_report("test_ncu_import");
}
