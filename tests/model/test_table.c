/*
 * test_table.c - table format v1: loading, metadata, exact lookup, saving and reloading, the
 * builder's grid validation, and the table search rule.  Expected values are the literal numbers
 * of tests/data/golden-table.csv.
 */
#include "atomutil/model.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *data_dir;

static char *data_path(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", data_dir, name);
    return buf;
}

static void test_load_golden(void)
{
    au_table *t = NULL;
    CHECK_EQ_INT(au_table_load(data_path("golden-table.csv"), &t), AU_OK);
    if (!t)
        return;
    const au_table_meta *m = au_table_get_meta(t);
    CHECK(strcmp(m->gpu_name, "NVIDIA H200") == 0);
    CHECK_EQ_INT(m->cc_major, 9);
    CHECK_EQ_INT(m->cc_minor, 0);
    CHECK_EQ_INT(m->sm_count, 132);
    CHECK_EQ_INT(m->max_warps_per_sm, 64);
    CHECK(strcmp(m->method, "steady") == 0);
    CHECK(strcmp(m->status, "provisional") == 0);
    CHECK(m->l2_hit_latency_cycles == 0 && m->dram_latency_cycles == 0); /* not measured: absent */
    CHECK_EQ_INT(au_table_family_count(t), 1);
    CHECK(strcmp(au_table_family_name(t, 0), "add") == 0);
    CHECK(au_table_has_family(t, "add"));
    CHECK(!au_table_has_family(t, "cas"));
    au_sample s;
    CHECK_EQ_INT(au_table_lookup(t, "add", 16, 32, 16, &s), AU_OK);
    CHECK_NEAR(s.service_cycles, 64, 0);
    CHECK_EQ_INT(au_table_lookup(t, "add", 16, 32, 8, &s), AU_E_NOTFOUND);
    CHECK_EQ_INT(au_table_lookup(t, "cas", 16, 32, 16, &s), AU_E_NOTFOUND);
    au_table_free(t);
}

/* Quote-free data lines are split without libcsv (table.c, split_plain): the same fields, spaces
 * and tabs trimmed, as libcsv gives for the same line with its fields quoted; the same errors. */
static char *golden_variant(int quote, const char *pad, const char *extra_line)
{
    FILE *f = fopen(data_path("golden-table.csv"), "rb");
    size_t cap = 8192, len = 0;
    char *out = malloc(cap), line[512];
    if (!f || !out) {
        if (f)
            fclose(f);
        free(out);
        return NULL;
    }
    int data = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        if (data) { /* each field padded, quoted or not */
            char buf[1024] = "";
            for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"))
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s%s%s%s%s", buf[0] ? "," : "", pad,
                         quote ? "\"" : "", tok, quote ? "\"" : "", pad);
            strcat(buf, "\n");
            p = buf;
            len += (size_t)snprintf(out + len, cap - len, "%s", p);
            continue;
        }
        data = strncmp(line, "family,", 7) == 0;
        len += (size_t)snprintf(out + len, cap - len, "%s", p);
    }
    fclose(f);
    if (extra_line)
        snprintf(out + len, cap - len, "%s", extra_line);
    return out;
}

static void test_plain_lines(void)
{
    static const char *const pads[] = {"", " ", "\t ", " \t"};
    for (int i = 0; i < 4; ++i) {
        au_sample s[2] = {{0}};
        for (int q = 0; q < 2; ++q) {
            char *text = golden_variant(q, pads[i], NULL);
            au_table *t = NULL;
            CHECK(text != NULL);
            if (!text)
                return;
            CHECK_EQ_INT(au_table_parse("padded.csv", text, strlen(text), &t), AU_OK);
            CHECK(t && au_table_lookup(t, "add", 16, 32, 16, &s[q]) == AU_OK);
            au_table_free(t);
            free(text);
        }
        CHECK_NEAR(s[0].service_cycles, 64, 0);
        CHECK_NEAR(s[1].service_cycles, s[0].service_cycles, 0);
    }
    static const char *const bad[] = {"add,2,1,0,1,1,1,0,9\n", "add,2,1,0,1,1,1\n", "add,2,1,0,1,1,1,0,\n",
                                      "add,2,1,0,1,1,1x,0\n"};
    for (int i = 0; i < 4; ++i) {
        char err[2][512];
        for (int q = 0; q < 2; ++q) {
            char extra[128];
            snprintf(extra, sizeof extra, "%s", bad[i]);
            if (q) { /* the same fields, the first quoted: libcsv's path */
                snprintf(extra, sizeof extra, "\"add\"%s", bad[i] + 3);
            }
            char *text = golden_variant(0, "", extra);
            au_table *t = NULL;
            CHECK(text != NULL);
            if (!text)
                return;
            CHECK_EQ_INT(au_table_parse("bad.csv", text, strlen(text), &t), AU_E_PARSE);
            snprintf(err[q], sizeof err[q], "%s", au_last_error());
            au_table_free(t);
            free(text);
        }
        CHECK(strstr(err[0], "bad.csv:24:") != NULL);
        CHECK(strcmp(err[0], err[1]) == 0);
    }
}

static au_table_meta test_meta(const char *name, int major)
{
    au_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "%s", name);
    m.cc_major = major;
    m.cc_minor = 0;
    m.sm_count = 4;
    m.max_warps_per_sm = 8;
    snprintf(m.method, sizeof m.method, "steady");
    m.jobs_per_warp = 256;
    m.repetitions = 5;
    snprintf(m.note, sizeof m.note, "unit test, \"quoted\" text");
    m.l2_hit_latency_cycles = 301.9;
    m.dram_latency_cycles = 632.0;
    return m;
}

/* A full small grid n = 1..8 step, a in {1, 4}, c in {0, n/2, n}: S = a * (1 + 7/n) * (1 + c/n). */
static au_table *build_table(const char *name, int major, int drop_pair)
{
    au_table_meta m = test_meta(name, major);
    au_table *t = NULL;
    if (au_table_new(&m, &t) != AU_OK)
        return NULL;
    static const int ns[] = {1, 2, 4, 8}, as[] = {1, 4};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) {
            if (drop_pair && ns[i] == 4 && as[j] == 4)
                continue;
            int cs[3] = {0, ns[i] / 2, ns[i]};
            for (int k = 0; k < 3; ++k) {
                if (k == 1 && (cs[1] == 0 || cs[1] == ns[i]))
                    continue;
                double v = as[j] * (1 + 7.0 / ns[i]) * (1 + (double)cs[k] / ns[i]);
                au_sample s = {v, v * 0.99, v * 1.02, v * 0.001};
                if (au_table_add(t, "add", ns[i], as[j], cs[k], &s) != AU_OK) {
                    au_table_free(t);
                    return NULL;
                }
            }
        }
    return t;
}

static void test_build_save_reload(const char *tmpdir)
{
    au_table *t = build_table("Test GPU", 9, 0);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(au_table_finalize(t), AU_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/roundtrip.csv", tmpdir);
    CHECK_EQ_INT(au_table_save(t, path), AU_OK);
    au_table *u = NULL;
    CHECK_EQ_INT(au_table_load(path, &u), AU_OK);
    if (u) {
        const au_table_meta *m = au_table_get_meta(u);
        CHECK(strcmp(m->gpu_name, "Test GPU") == 0);
        CHECK_EQ_INT(m->jobs_per_warp, 256);
        CHECK_EQ_INT(m->repetitions, 5);
        CHECK(strcmp(m->status, "measured") == 0);
        CHECK(strcmp(m->note, "unit test, \"quoted\" text") == 0);
        CHECK_NEAR(m->l2_hit_latency_cycles, 301.9, 1e-9);
        CHECK_NEAR(m->dram_latency_cycles, 632.0, 1e-9);
        au_sample s;
        CHECK_EQ_INT(au_table_lookup(u, "add", 2, 4, 1, &s), AU_OK);
        CHECK_NEAR(s.service_cycles, 4 * 4.5 * 1.5, 1e-4);
        CHECK_NEAR(s.min_cycles, 4 * 4.5 * 1.5 * 0.99, 1e-4);
        CHECK_NEAR(s.max_cycles, 4 * 4.5 * 1.5 * 1.02, 1e-4);
        /* a point written and read back interpolates like the original */
        double s1, s2;
        CHECK_EQ_INT(au_table_interp(t, "add", 3.3, 2.2, 1.1, &s1, NULL), AU_OK);
        CHECK_EQ_INT(au_table_interp(u, "add", 3.3, 2.2, 1.1, &s2, NULL), AU_OK);
        CHECK_NEAR(s1, s2, 1e-3);
        au_table_free(u);
    }
    au_table_free(t);
    unlink(path);
}

static void test_builder_validation(void)
{
    au_table *t = build_table("Test GPU", 9, 1);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(au_table_finalize(t), AU_E_PARSE);
        CHECK(strstr(au_last_error(), "n=4 a=4 missing") != NULL);
        au_table_free(t);
    }
    t = build_table("Test GPU", 9, 0);
    if (t) {
        au_sample s = {1, 1, 1, 0};
        CHECK_EQ_INT(au_table_add(t, "add", 2, 1, 0, &s), AU_OK);
        CHECK_EQ_INT(au_table_finalize(t), AU_E_PARSE);
        CHECK(strstr(au_last_error(), "duplicate row add,2,1,0") != NULL);
        CHECK_EQ_INT(au_table_add(t, "Add", 2, 1, 0, &s), AU_E_PARSE);
        CHECK_EQ_INT(au_table_add(t, "add", 9, 1, 0, &s), AU_E_PARSE); /* n > max_warps_per_sm */
        CHECK_EQ_INT(au_table_add(t, "add", 2, 33, 0, &s), AU_E_PARSE);
        CHECK_EQ_INT(au_table_add(t, "add", 2, 1, 3, &s), AU_E_PARSE);
        au_sample bad = {1, 2, 3, 0}; /* min > median */
        CHECK_EQ_INT(au_table_add(t, "add", 2, 1, 1, &bad), AU_E_PARSE);
        /* beyond a million cycles per job no value is a measurement: service, its spread, mad */
        au_sample huge = {1.7e308, 1, 1.7e308, 0};
        CHECK_EQ_INT(au_table_add(t, "add", 2, 1, 1, &huge), AU_E_PARSE);
        CHECK(strstr(au_last_error(), "service_cycles 1.7e+308 above 1000000 cycles per job") != NULL);
        au_sample wide = {2, 1, 2e6, 0}, mad = {2, 1, 3, 1e6 + 1}, top = {1e6, 1e6, 1e6, 1e6};
        CHECK_EQ_INT(au_table_add(t, "add", 2, 1, 1, &wide), AU_E_PARSE);
        CHECK(strstr(au_last_error(), "max_cycles 2e+06 above") != NULL);
        CHECK_EQ_INT(au_table_add(t, "add", 2, 1, 1, &mad), AU_E_PARSE);
        CHECK(strstr(au_last_error(), "mad_cycles 1e+06 above") != NULL);
        CHECK_EQ_INT(au_table_add(t, "bound", 2, 1, 1, &top), AU_OK); /* the bound itself is a value */
        au_table_free(t);
    }
    /* a table without the required family 'add' */
    au_table_meta m = test_meta("Test GPU", 9);
    if (au_table_new(&m, &t) == AU_OK) {
        au_sample s = {1, 1, 1, 0};
        au_table_add(t, "cas", 1, 1, 0, &s);
        au_table_add(t, "cas", 1, 1, 1, &s);
        CHECK_EQ_INT(au_table_finalize(t), AU_E_PARSE);
        CHECK(strstr(au_last_error(), "'add'") != NULL);
        au_table_free(t);
    }
}

/* Distributed-shared-memory families hold c = 0 rows only: such a family loads without c = n
 * rows, and any c > 0 row of it is refused with a message that says the rule.  The other rules
 * (every n x a pair) still hold. */
static void test_dsmem_grid(void)
{
    CHECK(au_family_is_dsmem("dsmem_local") && au_family_is_dsmem("dsmem_remote_c16"));
    CHECK(au_family_is_dsmem("dsmem"));
    CHECK(!au_family_is_dsmem("add") && !au_family_is_dsmem("dsme") && !au_family_is_dsmem(NULL));
    static const int ns[] = {1, 2, 4}, as[] = {1, 32};
    for (int fault = 0; fault < 3; ++fault) {
        au_table *t = build_table("Test GPU", 9, 0);
        CHECK(t != NULL);
        if (!t)
            return;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j) {
                if (fault == 2 && ns[i] == 2 && as[j] == 32)
                    continue; /* a missing (n, a) pair */
                const double v = as[j] * (2.0 + 12.0 / ns[i]);
                const au_sample s = {v, v, v, 0};
                CHECK_EQ_INT(au_table_add(t, "dsmem_remote", ns[i], as[j], 0, &s), AU_OK);
            }
        if (fault == 1) { /* a c = n row, as an ATOMS family would have */
            const au_sample s = {5, 5, 5, 0};
            CHECK_EQ_INT(au_table_add(t, "dsmem_remote", 4, 1, 4, &s), AU_OK);
        }
        const int rc = au_table_finalize(t);
        if (fault == 0) {
            CHECK_EQ_INT(rc, AU_OK);
            au_sample s;
            CHECK_EQ_INT(au_table_lookup(t, "dsmem_remote", 4, 32, 0, &s), AU_OK);
            CHECK_NEAR(s.service_cycles, 32 * 5.0, 1e-9);
            CHECK_EQ_INT(au_table_lookup(t, "dsmem_remote", 4, 32, 4, &s), AU_E_NOTFOUND);
            double v = 0;
            au_flags fl = 0;
            CHECK_EQ_INT(au_table_interp(t, "dsmem_remote", 3, 1, 0, &v, &fl), AU_OK);
            CHECK_NEAR(v, (2 * 8.0 + 4 * 5.0) / 2 / 3, 1e-9); /* linear in n * S */
            CHECK_EQ_INT(fl, 0);
            /* written and read back: still valid */
            char buf[4096];
            FILE *f = fmemopen(buf, sizeof buf, "w");
            CHECK(f != NULL);
            if (f) {
                CHECK_EQ_INT(au_table_write(t, f), AU_OK);
                const long len = ftell(f);
                fclose(f);
                au_table *u = NULL;
                CHECK_EQ_INT(au_table_parse("dsmem.csv", buf, (size_t)len, &u), AU_OK);
                CHECK(u && au_table_has_family(u, "dsmem_remote"));
                au_table_free(u);
                /* a c > 0 row in a file: refused, naming its line and the rule */
                const char extra[] = "dsmem_remote,2,1,1,9.0,9.0,9.0,0.0\n";
                CHECK((size_t)len + sizeof extra < sizeof buf);
                memcpy(buf + len, extra, sizeof extra);
                CHECK_EQ_INT(au_table_parse("dsmem.csv", buf, (size_t)len + sizeof extra - 1, &u), AU_E_PARSE);
                CHECK(strstr(au_last_error(), "dsmem.csv:") != NULL);
                CHECK(strstr(au_last_error(), "row n=2 a=1 c=1: dsmem families hold only c=0 rows") != NULL);
            }
        } else if (fault == 1) {
            CHECK_EQ_INT(rc, AU_E_PARSE);
            CHECK(strstr(au_last_error(), "family dsmem_remote: row n=4 a=1 c=4: dsmem families hold "
                                          "only c=0 rows") != NULL);
        } else {
            CHECK_EQ_INT(rc, AU_E_PARSE);
            CHECK(strstr(au_last_error(), "family dsmem_remote: grid point n=2 a=32 missing") != NULL);
        }
        au_table_free(t);
    }
}

static void save_built(const char *dir, const char *file, const char *gpu, int major)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    au_table *t = build_table(gpu, major, 0);
    CHECK(t && au_table_finalize(t) == AU_OK && au_table_save(t, path) == AU_OK);
    au_table_free(t);
}

static void test_find(const char *tmpdir)
{
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/tables", tmpdir);
    mkdir(dir, 0755);
    save_built(dir, "b-h200.csv", "NVIDIA H200", 9);
    save_built(dir, "a-h100.csv", "NVIDIA H100 80GB HBM3", 9);
    save_built(dir, "c-a100.csv", "NVIDIA A100", 8);
    snprintf(path, sizeof path, "%s/d-broken.csv", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("not a table\n", f);
        fclose(f);
    }
    char *got = NULL;
    unsigned fl = 0;
    int skipped = 0;
    CHECK_EQ_INT(au_table_find(dir, "nvidia h200", 9, 0, &got, &fl, &skipped), AU_OK);
    CHECK(got && strstr(got, "b-h200.csv"));
    CHECK_EQ_INT(fl & AU_F_TABLE_OTHER_GPU, 0);
    CHECK_EQ_INT(skipped, 1);
    free(got);
    got = NULL;
    fl = 0;
    /* unknown name, same architecture: first file name of that cc, flagged */
    CHECK_EQ_INT(au_table_find(dir, "NVIDIA H800", 9, 0, &got, &fl, NULL), AU_OK);
    CHECK(got && strstr(got, "a-h100.csv"));
    CHECK(fl & AU_F_TABLE_OTHER_GPU);
    free(got);
    got = NULL;
    CHECK_EQ_INT(au_table_find(dir, "NVIDIA A100", 8, 0, &got, NULL, NULL), AU_OK);
    CHECK(got && strstr(got, "c-a100.csv"));
    free(got);
    got = NULL;
    CHECK_EQ_INT(au_table_find(dir, "NVIDIA B200", 10, 0, &got, NULL, NULL), AU_E_NOTFOUND);
    CHECK(got == NULL);
    CHECK(strstr(au_last_error(), "atomutil-calibrate") != NULL);
    CHECK_EQ_INT(au_table_find("/nonexistent/dir", "x", 9, 0, &got, NULL, NULL), AU_E_NOTFOUND);
    static const char *const files[] = {"a-h100.csv", "b-h200.csv", "c-a100.csv", "d-broken.csv"};
    for (int i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* au_table_load_meta reads the metadata only: same values as a full load, a table whose rows are
 * broken still reads (the full load then names the bad line), broken metadata does not. */
static void test_load_meta(const char *tmpdir)
{
    au_table_meta m;
    au_table *t = NULL;
    CHECK_EQ_INT(au_table_load_meta(data_path("golden-table.csv"), &m), AU_OK);
    CHECK_EQ_INT(au_table_load(data_path("golden-table.csv"), &t), AU_OK);
    if (t) {
        const au_table_meta *full = au_table_get_meta(t);
        CHECK(strcmp(m.gpu_name, full->gpu_name) == 0);
        CHECK_EQ_INT(m.cc_major, full->cc_major);
        CHECK_EQ_INT(m.sm_count, full->sm_count);
        CHECK(strcmp(m.status, full->status) == 0);
        au_table_free(t);
        t = NULL;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/meta-only.csv", tmpdir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# atomutil-table v1\n# gpu_name: NVIDIA H100\n# compute_capability: 9.0\n"
              "# sm_count: 132\n# max_warps_per_sm: 64\n# method: steady\n"
              "family,n,a,c,service_cycles,min_cycles,max_cycles,mad_cycles\n"
              "add,1,1,0,oops,1,1,0\n",
              f);
        fclose(f);
    }
    CHECK_EQ_INT(au_table_load_meta(path, &m), AU_OK);
    CHECK(strcmp(m.gpu_name, "NVIDIA H100") == 0);
    CHECK_EQ_INT(au_table_load(path, &t), AU_E_PARSE);
    CHECK(strstr(au_last_error(), "meta-only.csv:8:") != NULL);
    f = fopen(path, "w");
    if (f) {
        fputs("# atomutil-table v1\n# gpu_name: NVIDIA H100\n# compute_capability: nine\n", f);
        fclose(f);
    }
    CHECK_EQ_INT(au_table_load_meta(path, &m), AU_E_PARSE);
    CHECK(strstr(au_last_error(), "meta-only.csv:3:") != NULL);
    CHECK_EQ_INT(au_table_load_meta("/nonexistent/table.csv", &m), AU_E_IO);
    unlink(path);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_table DATA_DIR TMP_DIR\n");
        return 2;
    }
    data_dir = argv[1];
    test_load_golden();
    test_plain_lines();
    test_build_save_reload(argv[2]);
    test_builder_validation();
    test_dsmem_grid();
    test_find(argv[2]);
    test_load_meta(argv[2]);
    return check_report("test_table");
}
