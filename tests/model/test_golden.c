/*
 * test_golden.c - the recorded Nsight Compute export of examples/histogram on an H200
 * (examples/data/histogram-h200.ncu.csv, made by examples/data/record.sh) through the importer and
 * the model with tests/data/golden-table.csv must give these utilizations per launch.
 *
 * Expected U computed by hand from the export's counters and the table's numbers:
 *   a = W / J, J/SM = J / 132, N = warps per active cycle (all between 16 and 64), c = 0,
 *   S(n, a) = S(n,1) + (S(n,32) - S(n,1)) * (a - 1) / 31 with S(16,.) = 1.5..32, S(64,.) = 1..32,
 *   w = (N - 16) / 48, S = (16 S(16,a) (1-w) + 64 S(64,a) w) / N, U = J/SM * S / T.
 * a of launches 2 and 3 is 32.0047: counted as 32 (within 1 %, model.h).
 */
#include "atomutil/model.h"
#include "check.h"
#include "ncu_import.h"

#include <string.h>

static const struct {
    int id;
    const char *kernel;
    double jobs, wavefronts, active, warps, util_pct;
    au_verdict verdict;
} expect[] = {
    {0, "hist_asread_popc", 524288, 524288, 26729.92, 31.0, 17.4956, AU_VERDICT_NOT_LIMITING},
    {1, "hist_asread_popc", 524288, 524805, 25789.42, 30.97, 18.1539, AU_VERDICT_NOT_LIMITING},
    {2, "hist_asread_add", 524288, 16780097, 131587.29, 31.51, 96.5900, AU_VERDICT_BOUND},
    {3, "hist_asread_add", 524288, 16780029, 132127.45, 31.52, 96.1951, AU_VERDICT_BOUND},
    {4, "hist_rotated_popc", 524288, 525546, 39073.39, 31.09, 11.9828, AU_VERDICT_NOT_LIMITING},
    {5, "hist_rotated_popc", 524288, 525569, 39335.1, 30.81, 11.9350, AU_VERDICT_NOT_LIMITING},
    {6, "hist_rotated_add", 524288, 4198089, 47204.55, 30.91, 68.5362, AU_VERDICT_SIGNIFICANT},
    {7, "hist_rotated_add", 524288, 4198214, 45888.39, 30.86, 70.5077, AU_VERDICT_SIGNIFICANT},
    {8, "hist_asread_popc", 524288, 3417087, 34311.25, 29.34, 77.3211, AU_VERDICT_SIGNIFICANT},
    {9, "hist_asread_popc", 524288, 3417225, 34515.46, 29.54, 76.8434, AU_VERDICT_SIGNIFICANT},
    {10, "hist_asread_add", 524288, 3698636, 37771.65, 29.87, 75.7940, AU_VERDICT_SIGNIFICANT},
    {11, "hist_asread_add", 524288, 3698819, 37656.15, 29.75, 76.0423, AU_VERDICT_SIGNIFICANT},
    {12, "hist_rotated_popc", 524288, 1690061, 42639.7, 30.13, 31.6472, AU_VERDICT_NOT_LIMITING},
    {13, "hist_rotated_popc", 524288, 1690732, 42131.29, 29.52, 32.1051, AU_VERDICT_NOT_LIMITING},
    {14, "hist_rotated_add", 524288, 1728661, 45141.5, 29.67, 30.5819, AU_VERDICT_NOT_LIMITING},
    {15, "hist_rotated_add", 524288, 1728676, 45452.89, 29.54, 30.3854, AU_VERDICT_NOT_LIMITING},
};
#define NEXPECT (sizeof expect / sizeof expect[0])

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_golden EXPORT.csv TABLE.csv\n");
        return 2;
    }
    au_report rep;
    au_table *t = NULL;
    au_report_init(&rep);
    CHECK_EQ_INT(au_ncu_import(argv[1], &rep), AU_OK);
    CHECK_EQ_INT(au_table_load(argv[2], &t), AU_OK);
    if (!t || rep.count == 0) {
        fprintf(stderr, "test_golden: %s\n", au_last_error());
        return 1;
    }
    CHECK_EQ_INT(au_report_eval(&rep, t, "add", NULL), AU_OK);
    CHECK_EQ_INT(rep.count, NEXPECT);
    for (size_t i = 0; i < rep.count && i < NEXPECT; ++i) {
        const au_launch *l = &rep.launches[i];
        CHECK_EQ_INT(l->id, expect[i].id);
        CHECK(strncmp(l->kernel, expect[i].kernel, strlen(expect[i].kernel)) == 0 &&
              l->kernel[strlen(expect[i].kernel)] == '(');
        CHECK(strcmp(l->device, "NVIDIA H200") == 0);
        CHECK_EQ_INT(l->cc_major * 10 + l->cc_minor, 90);
        CHECK_EQ_INT(l->sm_count, 132);
        CHECK(strcmp(l->grid, "(528, 1, 1)") == 0 && strcmp(l->block, "(256, 1, 1)") == 0);
        CHECK(l->duration_ns > 0);
        CHECK_EQ_INT(l->ctr.have, AU_C_REQUIRED);
        CHECK_NEAR(l->ctr.jobs, expect[i].jobs, 0);
        CHECK_NEAR(l->ctr.cas_jobs, 0, 0);
        CHECK_NEAR(l->ctr.wavefronts, expect[i].wavefronts, 0);
        CHECK_NEAR(l->ctr.active_cycles, expect[i].active, 1e-9);
        CHECK_NEAR(l->ctr.warps, expect[i].warps, 1e-12);
        CHECK_NEAR(l->res.util * 100, expect[i].util_pct, 5e-4);
        CHECK_EQ_INT(l->res.verdict, expect[i].verdict);
        CHECK(!(l->res.flags & (AU_F_MISSING | AU_F_CLAMP_A | AU_F_CLAMP_N_LOW | AU_F_CLAMP_N_HIGH)));
    }
    au_report_free(&rep);
    au_table_free(t);
    return check_report("test_golden");
}
