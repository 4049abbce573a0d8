/*
 * test_gpu.c - runs `atomutil-calibrate --quick` on the GPU and checks the saturated service
 * times against the physical limits measured on Hopper (../shared/REFERENCE.md section 2): about
 * 1 cycle per serialized wavefront for ATOMS.ADD and ATOMS.POPC.INC, about 2 for ATOMS.CAS
 * (32- and 64-bit), and S falling from n = 1 to a full SM.  Exits 77 (skip) without a GPU.
 * argv[1] = the atomutil-calibrate binary, argv[2] = a scratch directory.
 */
#include "cal.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Checks that S at (n, a, c) lies in [lo, hi] cycles per wavefront. */
static void check_per_wavefront(const au_table *t, const char *fam, int n, int a, int c, double lo, double hi)
{
    au_sample s;
    ++check_count;
    if (au_table_lookup(t, fam, n, a, c, &s) != AU_OK) {
        ++check_failures;
        fprintf(stderr, "%s n=%d a=%d c=%d: missing (%s)\n", fam, n, a, c, au_last_error());
        return;
    }
    const double per = s.service_cycles / a;
    fprintf(stderr, "%-9s n=%2d a=%2d c=%2d: S = %8.3f cycles = %.3f per wavefront (want %.1f..%.1f)\n", fam, n, a, c,
            s.service_cycles, per, lo, hi);
    if (!(per >= lo && per <= hi)) {
        ++check_failures;
        fprintf(stderr, "  FAILED: outside the physical limit\n");
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_gpu ATOMUTIL-CALIBRATE SCRATCH-DIR\n");
        return 2;
    }
    char path[1024], cmd[2300];
    snprintf(path, sizeof path, "%s/gpu-quick.csv", argv[2]);
    snprintf(cmd, sizeof cmd, "'%s' --quick --families add,popc_inc,cas,cas64 -o '%s'", argv[1], path);
    const int st = system(cmd);
    const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (rc == AU_CAL_EXIT_NODEV) {
        fprintf(stderr, "test_calibrate_gpu: no usable CUDA device: skipped\n");
        return 77;
    }
    CHECK_EQ_INT(rc, 0);
    au_table *t = NULL;
    CHECK_EQ_INT(au_table_load(path, &t), AU_OK);
    if (!t)
        return check_report("test_calibrate_gpu");
    const au_table_meta *m = au_table_get_meta(t);
    const int nmax = m->max_warps_per_sm;
    CHECK(strcmp(m->status, "measured") == 0 && strcmp(m->method, "steady") == 0);
    CHECK(m->sm_count > 0 && nmax >= 32 && m->sm_clock_mhz > 100);
    /* the load latencies of the header: an L2 hit some hundred cycles, DRAM further (where the
     * free memory allowed its buffer) */
    CHECK(m->l2_hit_latency_cycles > 50 && m->l2_hit_latency_cycles < 5000);
    CHECK(m->dram_latency_cycles == 0 || m->dram_latency_cycles > 1.2 * m->l2_hit_latency_cycles);
    /* MATCH.ANY: a few cycles a distinct value from 32 warps, one warp waiting longer for each */
    CHECK(m->match_any_cycles_per_value > 0.5 && m->match_any_cycles_per_value < 20);
    CHECK(m->match_any_latency_cycles_per_value > m->match_any_cycles_per_value);

    /* saturation (n = 32 and a full SM): ~1 cycle per wavefront, ~2 for CAS */
    const int ns[2] = {32, nmax};
    for (int i = 0; i < 2; ++i) {
        check_per_wavefront(t, "add", ns[i], 32, 0, 0.85, 1.25);
        check_per_wavefront(t, "add", ns[i], 16, 0, 0.85, 1.25);
        check_per_wavefront(t, "popc_inc", ns[i], 32, 0, 0.85, 1.25);
        check_per_wavefront(t, "add", ns[i], 32, ns[i], 1.7, 2.4); /* all CAS */
        check_per_wavefront(t, "cas", ns[i], 32, 0, 1.7, 2.4);
        check_per_wavefront(t, "cas64", ns[i], 32, 0, 1.7, 2.4);
    }
    /* pipelining: one warp alone costs more per job than a full queue */
    au_sample s1, sn;
    CHECK(au_table_lookup(t, "add", 1, 1, 0, &s1) == AU_OK);
    CHECK(au_table_lookup(t, "add", nmax, 1, 0, &sn) == AU_OK);
    CHECK(s1.service_cycles > 4 * sn.service_cycles);
    /* CAS share: S rises with c at a saturated n */
    au_sample c0, ch, cn;
    CHECK(au_table_lookup(t, "add", 32, 8, 0, &c0) == AU_OK);
    CHECK(au_table_lookup(t, "add", 32, 8, 16, &ch) == AU_OK);
    CHECK(au_table_lookup(t, "add", 32, 8, 32, &cn) == AU_OK);
    CHECK(c0.service_cycles < ch.service_cycles && ch.service_cycles < cn.service_cycles);
    au_table_free(t);
    return check_report("test_calibrate_gpu");
}
