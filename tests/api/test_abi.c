/*
 * test_abi.c - libatomutil.so's C ABI (profile/api/abi.h) as a caller sees it: versions, tables
 * loaded and found, one launch of the recorded export evaluated (the figures atomutil-profile gives
 * for it), a counters file read, and every bad argument answered with a status and one line, never
 * a crash.  Run under valgrind and the sanitizers with the other C tests.
 *   test_abi SOURCE_DIR
 */
#define _GNU_SOURCE /* setenv */
#include "abi.h"

#include "../model/check.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

static char table_path[4096], export_path[4096];

/* The recorded export's launch 2 (hist_asread_add on an H200): U 97.5463 %, atomic-bound. */
static const char *const names[] = {
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_shared_atom_dot_cas.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "sm__cycles_active.avg",
    "sm__warps_active.avg.per_cycle_active",
    "device__attribute_multiprocessor_count",
    "gpu__time_duration.sum",
    "some__metric_atomutil_does_not_read.sum",
};
static const double values[] = {524288, 0, 16780182, 130431.23, 30.54, 132, 68288, 7};
#define NVALUES (sizeof values / sizeof values[0])

/* 1 when the text holds needle; says what it holds otherwise. */
static int has(const char *text, const char *needle)
{
    if (text && strstr(text, needle))
        return 1;
    fprintf(stderr, "text lacks [%s]: %.300s\n", needle, text ? text : "(null)");
    return 0;
}

static void test_versions_and_tables(const char *src)
{
    CHECK_EQ_INT(au_abi_version(), AU_ABI_VERSION);
    CHECK(strcmp(au_abi_atomutil_version(), "0.1.0") == 0);
    au_abi_table *t = NULL;
    char *err = NULL, *json = NULL;
    CHECK_EQ_INT(au_abi_table_load(table_path, &t, &err), AU_ABI_OK);
    CHECK(t && !err);
    CHECK_EQ_INT(au_abi_table_info(t, &json, &err), AU_ABI_OK);
    CHECK(has(json, "\"gpu_name\": \"NVIDIA H200\"") && has(json, "\"other_gpu\": false") && has(json, "\"add\""));
    au_abi_free(json);
    au_abi_table_free(t);
    /* an export where a table goes: said so */
    t = NULL;
    CHECK_EQ_INT(au_abi_table_load(export_path, &t, &err), AU_ABI_E_PARSE);
    CHECK(!t && has(err, "not a service-time table"));
    au_abi_free(err);
    CHECK_EQ_INT(au_abi_table_load(NULL, &t, &err), AU_ABI_E_INVAL);
    CHECK(has(err, "no path"));
    au_abi_free(err);
    /* found as atomutil-profile finds it, here in $ATOMUTIL_TABLES_DIR */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tables", src);
    setenv("ATOMUTIL_TABLES_DIR", dir, 1);
    CHECK_EQ_INT(au_abi_table_find("NVIDIA H200", 9, 0, &t, &err), AU_ABI_OK);
    CHECK_EQ_INT(au_abi_table_info(t, &json, &err), AU_ABI_OK);
    CHECK(has(json, "nvidia-h200.csv"));
    au_abi_free(json);
    au_abi_table_free(t);
    CHECK_EQ_INT(au_abi_table_find("NVIDIA A100", 8, 0, &t, &err), AU_ABI_E_NOTFOUND);
    CHECK(!t && has(err, "no service-time table for NVIDIA A100 (compute capability 8.0)"));
    au_abi_free(err);
    CHECK_EQ_INT(au_abi_table_find("NVIDIA H200", 0, 0, &t, &err), AU_ABI_E_INVAL);
    au_abi_free(err);
    au_abi_table_free(NULL);
    au_abi_free(NULL);
}

static void test_evaluate(const au_abi_table *t)
{
    char *json = NULL, *err = NULL;
    CHECK_EQ_INT(au_abi_evaluate(t, names, values, NVALUES, "NVIDIA H200", 9, 0, "hist_asread_add(\"x\")", NULL, NULL,
                                 0, 0, &json, &err),
                 AU_ABI_OK);
    CHECK(has(json, "\"abi\": 1") && has(json, "\"util_pct\": 97.5463") && has(json, "\"verdict\": \"atomic-bound\""));
    CHECK(has(json, "\"kernel\": \"hist_asread_add(\\\"x\\\")\"") && has(json, "\"sm_count\": 132"));
    CHECK(has(json, "\"why\": [\"\"]"));
    au_abi_free(json);
    /* the queue mode and thresholds of one's own */
    CHECK_EQ_INT(
        au_abi_evaluate(t, names, values, NVALUES, "NVIDIA H200", 9, 0, NULL, "add", "queue", 0.99, 0.98, &json, &err),
        AU_ABI_OK);
    CHECK(has(json, "\"busy_mode\": \"queue\"") && has(json, "\"atomic_bound\": 99"));
    au_abi_free(json);
    /* three required metrics missing: no U, and why */
    CHECK_EQ_INT(au_abi_evaluate(t, names, values, 2, NULL, 0, 0, NULL, NULL, NULL, 0, 0, &json, &err), AU_ABI_OK);
    CHECK(has(json, "\"verdict\": \"unknown\"") && has(json, "\"why\": [\"l1tex__data_pipe_lsu_wavefronts"));
    au_abi_free(json);
}

/* Each bad argument: its status, one line, nothing written to *json. */
static void test_evaluate_bad(const au_abi_table *t)
{
    static const struct {
        size_t at;
        double v;
        const char *busy, *family;
        double bound, significant;
        int status;
        const char *says;
    } bad[] = {
        {0, -1, NULL, NULL, 0, 0, AU_ABI_E_INVAL, "is not a finite number"},
        {3, NAN, NULL, NULL, 0, 0, AU_ABI_E_INVAL, "sm__cycles_active.avg: nan"},
        {0, 1, "fast", NULL, 0, 0, AU_ABI_E_INVAL, "busy mode 'fast'"},
        {0, 1, NULL, "no_such", 0, 0, AU_ABI_E_NOTFOUND, "has no family 'no_such' (its families: add"},
        {0, 1, NULL, NULL, 0.3, 0.5, AU_ABI_E_INVAL, "must not exceed bound"},
        {5, 0.5, NULL, NULL, 0, 0, AU_ABI_E_PARSE, "SM count 0.5 is not a positive integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        double v[NVALUES];
        memcpy(v, values, sizeof v);
        v[bad[i].at] = bad[i].v;
        char *json = NULL, *err = NULL;
        int st = au_abi_evaluate(t, names, v, NVALUES, NULL, 9, 0, NULL, bad[i].family, bad[i].busy, bad[i].bound,
                                 bad[i].significant, &json, &err);
        CHECK_EQ_INT(st, bad[i].status);
        CHECK(!json && has(err, bad[i].says) && !strchr(err, '\n'));
        au_abi_free(err);
    }
    char *json = NULL, *err = NULL;
    CHECK_EQ_INT(au_abi_evaluate(NULL, names, values, NVALUES, NULL, 0, 0, NULL, NULL, NULL, 0, 0, &json, &err),
                 AU_ABI_E_INVAL);
    au_abi_free(err);
    const char *null_name[] = {NULL};
    CHECK_EQ_INT(au_abi_evaluate(t, null_name, values, 1, NULL, 0, 0, NULL, NULL, NULL, 0, 0, &json, &err),
                 AU_ABI_E_INVAL);
    au_abi_free(err);
}

static void test_read(const au_abi_table *t, const char *src)
{
    char *json = NULL, *err = NULL;
    CHECK_EQ_INT(au_abi_read(export_path, NULL, NULL, NULL, 0, 0, -1, &json, &err), AU_ABI_OK);
    CHECK(has(json, "\"launch_id\": 15,") && has(json, "nvidia-h200.csv") && has(json, "\"util_pct\": 97.5463"));
    au_abi_free(json);
    CHECK_EQ_INT(au_abi_read(export_path, t, "cast_spin", NULL, 0, 0, -1, &json, &err), AU_ABI_OK);
    CHECK(has(json, "\"family\": \"cast_spin\""));
    au_abi_free(json);
    /* an export has no kernel code: required, it is an error */
    CHECK_EQ_INT(au_abi_read(export_path, t, NULL, NULL, 0, 0, 1, &json, &err), AU_ABI_E_NOTFOUND);
    CHECK(!json && has(err, "no kernel code"));
    au_abi_free(err);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/no-such-file.csv", src);
    CHECK_EQ_INT(au_abi_read(path, t, NULL, NULL, 0, 0, -1, &json, &err), AU_ABI_E_IO);
    CHECK(!json && has(err, "no-such-file.csv"));
    au_abi_free(err);
    CHECK_EQ_INT(au_abi_read(table_path, t, NULL, NULL, 0, 0, -1, &json, &err), AU_ABI_E_PARSE);
    CHECK(!json && err);
    au_abi_free(err);
    CHECK_EQ_INT(au_abi_metrics(&json, &err), AU_ABI_OK);
    CHECK(has(json, "{\"name\": \"smsp__inst_executed_op_shared_atom.sum\", \"required\": true, \"sets\": "
                    "[\"standard\", \"cluster\", \"generic\", \"dsmem\"], \"ncu\": true, \"unit\": \"inst\""));
    CHECK(has(json, "{\"name\": \"profiler__replayer_passes\", \"required\": false, \"sets\": [\"standard\", "
                    "\"cluster\", \"generic\", \"dsmem\"], \"ncu\": false"));
    au_abi_free(json);
}

/* A program whose locale writes numbers with a decimal comma: the library still reads and writes
 * '.' (where such a locale is installed). */
static void test_locale(const au_abi_table *t)
{
    static const char *const comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8"};
    const char *set = NULL;
    for (size_t i = 0; !set && i < sizeof comma / sizeof comma[0]; ++i)
        set = setlocale(LC_NUMERIC, comma[i]);
    if (!set) {
        fprintf(stderr, "test_abi: no decimal-comma locale installed: the locale check left out\n");
        return;
    }
    char *json = NULL, *err = NULL;
    CHECK_EQ_INT(au_abi_evaluate(t, names, values, NVALUES, NULL, 9, 0, NULL, NULL, NULL, 0, 0, &json, &err),
                 AU_ABI_OK);
    CHECK(has(json, "\"util_pct\": 97.5463"));
    au_abi_free(json);
    setlocale(LC_NUMERIC, "C");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_abi SOURCE_DIR\n");
        return 2;
    }
    snprintf(table_path, sizeof table_path, "%s/tables/nvidia-h200.csv", argv[1]);
    snprintf(export_path, sizeof export_path, "%s/examples/data/histogram-h200.ncu.csv", argv[1]);
    test_versions_and_tables(argv[1]);
    au_abi_table *t = NULL;
    char *err = NULL;
    if (au_abi_table_load(table_path, &t, &err) != AU_ABI_OK) {
        fprintf(stderr, "test_abi: %s\n", err);
        au_abi_free(err);
        return 1;
    }
    test_evaluate(t);
    test_evaluate_bad(t);
    test_read(t, argv[1]);
    test_locale(t);
    au_abi_table_free(t);
    return check_report("test_abi");
}
