/*
 * test_sass.c - SASS listings on recorded data: the nvdisasm/cuobjdump listing parser, opcode ->
 * family, shared-memory load sites, and the per-class model au_model_eval_classes with
 * hand-computed values.
 */
#include "atomutil/model.h"
#include "check.h"
#include "sass_listing.h"

#include <stdlib.h>
#include <string.h>

static const char *dir;

static void path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static void test_listing(void)
{
    char p[1024];
    char *buf = NULL;
    size_t len = 0;
    path(p, sizeof p, "sass/histogram-h200.nvdisasm.txt");
    FILE *f = fopen(p, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    buf = malloc(1 << 20);
    len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    au_sass_ops ops;
    memset(&ops, 0, sizeof ops);
    CHECK_EQ_INT(au_sass_ops_parse(buf, len, &ops), AU_OK);
    CHECK_EQ_INT(ops.count, 16); /* 4 kernels x 4 channel atomics */
    const char *op = au_sass_ops_find(&ops, "_Z16hist_asread_popcPK6uchar4mPjS2_", 0x350);
    CHECK(op && strcmp(op, "ATOMS.POPC.INC.32") == 0);
    op = au_sass_ops_find(&ops, "_Z16hist_rotated_addPK6uchar4mPjS2_", 0x470);
    CHECK(op && strcmp(op, "ATOMS.ADD") == 0);
    CHECK(au_sass_ops_find(&ops, "_Z16hist_rotated_addPK6uchar4mPjS2_", 0x460) == NULL); /* PRMT */
    CHECK(strcmp(ops.v[0].source, "device_atomic_functions.hpp:112") == 0);
    au_sass_ops_free(&ops);
    /* cuobjdump -sass form, with a predicate */
    static const char cu[] = "\t\tFunction : _Z1kPi\n"
                             "        /*0350*/                   ATOMS.CAS R2, [R4], R2, R3 ;  /* 0x00 */\n"
                             "        /*0360*/              @P0  ATOMS.CAST.SPIN R5, [R4], R6, R7 ;\n"
                             "        /*0370*/                   LDS R1, [R4] ;\n";
    memset(&ops, 0, sizeof ops);
    CHECK_EQ_INT(au_sass_ops_parse(cu, strlen(cu), &ops), AU_OK);
    CHECK_EQ_INT(ops.count, 2);
    op = au_sass_ops_find(&ops, "_Z1kPi", 0x360);
    CHECK(op && strcmp(op, "ATOMS.CAST.SPIN") == 0);
    au_sass_ops_free(&ops);
    /* nvdisasm -gi (inline frames; recorded from examples/histogram on an H100): the source is the
     * first frame outside the toolkit's headers, the user's atomicAdd; a block without inline
     * frames keeps its own line, and a block is read from its first line only */
    static const char gi[] =
        ".text._Z16hist_rotated_addPK6uchar4mPjS2_:\n"
        "        /*0460*/                   PRMT R20, R17, 0x7610, R20 ;\n"
        "\t//## File \"/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp\", line 112 "
        "inlined at \"/work/main/examples/histogram/histogram.cu\", line 66\n"
        "\t//## File \"/work/main/examples/histogram/histogram.cu\", line 66 inlined at "
        "\"/work/main/examples/histogram/histogram.cu\", line 90\n"
        "\t//## File \"/work/main/examples/histogram/histogram.cu\", line 90\n"
        "        /*0470*/                   ATOMS.ADD R18, [R19], R16 ;\n"
        "\t//## File \"/work/main/examples/histogram/histogram.cu\", line 70\n"
        "        /*0480*/                   ATOMS.POPC.INC.32 RZ, [R14+URZ] ;\n";
    memset(&ops, 0, sizeof ops);
    CHECK_EQ_INT(au_sass_ops_parse(gi, strlen(gi), &ops), AU_OK);
    CHECK_EQ_INT(ops.count, 2);
    if (ops.count == 2) {
        CHECK(strcmp(ops.v[0].source, "histogram.cu:66") == 0);
        CHECK(strcmp(ops.v[1].source, "histogram.cu:70") == 0);
    }
    au_sass_ops_free(&ops);
    free(buf);
}

static void test_families(void)
{
    static const char *const pairs[][2] = {
        {"ATOMS.ADD", "add"},
        {"ATOMS.POPC.INC.32", "popc_inc"},
        {"ATOMS.CAS", "cas"},
        {"ATOMS.CAS.64", "cas64"},
        {"ATOMS.CAST.SPIN", "cast_spin"},
        {"ATOMS.CAST.SPIN.64", "cast_spin64"},
        {"ATOMS.MIN.S32", "min"},
        {"ATOMS.MAX", "max"},
        {"ATOMS.EXCH", "exch"},
        {"ATOMS.AND", "bit_and"},
        {"ATOMS.OR", "bit_or"},
        {"ATOMS.XOR", "bit_xor"},
        {"ATOMS.INC", "inc"},
        {"ATOMS.DEC", "dec"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
        const char *f = au_opcode_family(pairs[i][0]);
        CHECK(f && strcmp(f, pairs[i][1]) == 0);
    }
    CHECK(au_opcode_family("ATOMS.ADDX") == NULL);
    CHECK(au_opcode_family("LDS") == NULL);
}

/* Golden table: add S(16..64, a) and the c = n column (all 32-bit CAS) twice c = 0 */
static void test_classes(const au_table *t)
{
    au_result r;
    double share[2];
    /* ADD only: 1000 jobs a=32 at N=40: S = 32 -> B = 32000, T = 64000 -> U = 0.5 */
    au_class_jobs add_only[1] = {{"add", 1000, 32000, -1}};
    CHECK_EQ_INT(au_model_eval_classes(t, add_only, 1, 40, 64000, NULL, AU_BUSY_QUEUE, &r, share), AU_OK);
    CHECK_NEAR(r.busy, 32000, 1e-9);
    CHECK_NEAR(r.util, 0.5, 1e-12);
    CHECK_NEAR(share[0], 32000, 1e-9);
    /* ADD + CAS, a = 32 passes each (CAS counts 2 wavefronts per pass), N = 40, 1/4 CAS:
     * c = 10, S_add(40, 32, 10) = 32 * (1 + 10/40) = 40 (the c column doubles S linearly) -> B = 1333.33 * 40 */
    au_class_jobs mix[2] = {{"add", 1000, 32000, -1}, {"cas", 1000.0 / 3, 1000.0 / 3 * 64, -1}};
    CHECK_EQ_INT(au_model_eval_classes(t, mix, 2, 40, 64000, NULL, AU_BUSY_QUEUE, &r, share), AU_OK);
    CHECK_NEAR(r.a, 32, 1e-9);
    CHECK_NEAR(r.cas_queued, 10, 1e-9);
    CHECK_NEAR(r.busy, (1000 + 1000.0 / 3) * 40, 1e-6);
    CHECK_NEAR(share[0] + share[1], r.busy, 1e-6);
    /* a family the table lacks is priced as add (the golden table has only add) */
    au_class_jobs unknown[1] = {{"max", 1000, 32000, -1}};
    CHECK_EQ_INT(au_model_eval_classes(t, unknown, 1, 40, 64000, NULL, AU_BUSY_QUEUE, &r, NULL), AU_OK);
    CHECK_NEAR(r.busy, 32000, 1e-9);
    /* no jobs */
    CHECK_EQ_INT(au_model_eval_classes(t, NULL, 0, 40, 64000, NULL, AU_BUSY_QUEUE, &r, NULL), AU_OK);
    CHECK(r.util == 0 && (r.flags & AU_F_NO_ATOMICS));
}

/* Load sites of CAS loops (au_sass_load_sites): an nvdisasm listing with labels (a conditional
 * 64-bit min loop inside an outer loop, a hot load in that outer loop, a cold load after it) and
 * a cuobjdump listing with addresses (a float-add loop, no other load). */
static void test_load_sites(void)
{
    static const char nvd[] = ".text._Z1kv:\n"
                              "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
                              ".L_x_1:\n"
                              "        /*0010*/                   LDS.64 R2, [R7] ;\n" /* hot: in the outer loop */
                              ".L_x_2:\n"
                              "        /*0020*/                   LDS.64 R8, [R4] ;\n" /* the CAS loop's load */
                              "        /*0030*/                   ISETP.LE.U32.AND P0, PT, R8, UR6, PT ;\n"
                              "        /*0040*/              @P0 BRA `(.L_x_3) ;\n"
                              "        /*0050*/                   ATOMS.CAST.SPIN.64 R16, [R4], R8, R10 ;\n"
                              "        /*0060*/                   ISETP.EQ.U32.AND P0, PT, R16, 0x1, PT ;\n"
                              "        /*0070*/             @!P0 BRA `(.L_x_2) ;\n"
                              ".L_x_3:\n"
                              "        /*0080*/                   IADD3 R5, R5, 0x1, RZ ;\n"
                              "        /*0090*/              @P1 BRA `(.L_x_1) ;\n"
                              "        /*00a0*/                   LDS R6, [R4] ;\n" /* cold */
                              "        /*00b0*/                   EXIT ;\n"
                              ".text._Z1jv:\n"
                              "        /*0000*/                   LDS R6, [R4] ;\n"
                              "        /*0010*/                   EXIT ;\n";
    au_load_sites s;
    CHECK_EQ_INT(au_sass_load_sites(nvd, sizeof nvd - 1, "_Z1kv", &s), AU_OK);
    CHECK(s.known && s.cas_loops == 1 && s.loop_loads == 1 && s.hot_loads == 1 && s.cold_loads == 1);
    CHECK_EQ_INT(au_sass_load_sites(nvd, sizeof nvd - 1, "_Z1jv", &s), AU_OK);
    CHECK(s.known && s.cas_loops == 0 && s.loop_loads == 0 && s.hot_loads == 0 && s.cold_loads == 1);
    CHECK_EQ_INT(au_sass_load_sites(nvd, sizeof nvd - 1, "_Z1nope", &s), AU_OK);
    CHECK(!s.known);
    static const char cuo[] = "\tcode for sm_90\n"
                              "\t\tFunction : _Z4faddPf\n"
                              "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
                              "        /*0010*/                   LDS R2, [R3] ;\n"
                              "        /*0020*/                   FADD R4, R2, 1 ;\n"
                              "        /*0030*/                   ATOMS.CAST.SPIN R4, [R3], R2, R4 ;\n"
                              "        /*0040*/                   ISETP.EQ.U32.AND P0, PT, R4, 0x1, PT ;\n"
                              "        /*0050*/              @!P0 BRA 0x10 ;\n"
                              "        /*0060*/                   EXIT ;\n";
    CHECK_EQ_INT(au_sass_load_sites(cuo, sizeof cuo - 1, "_Z4faddPf", &s), AU_OK);
    CHECK(s.known && s.cas_loops == 1 && s.loop_loads == 1 && s.hot_loads == 0 && s.cold_loads == 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_sass DATA_DIR\n");
        return 2;
    }
    dir = argv[1];
    char p[1024];
    path(p, sizeof p, "golden-table.csv");
    au_table *t = NULL;
    if (au_table_load(p, &t) != AU_OK) {
        fprintf(stderr, "test_sass: %s\n", au_last_error());
        return 1;
    }
    test_listing();
    test_families();
    test_classes(t);
    test_load_sites();
    au_table_free(t);
    return check_report("test_sass");
}
