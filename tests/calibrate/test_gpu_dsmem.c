/*
 * test_gpu_dsmem.c - runs `atomutil-calibrate --quick --families dsmem_local,dsmem_remote` on the
 * GPU (families dsmem_local, dsmem_remote, dsmem_remote_row, dsmem_hot) and checks what the
 * distributed-shared-memory families must show at 32 warps per SM: a remote job (ring of two
 * blocks) costs more than a local one, all 32 lanes on one remote word more than 32 distinct remote
 * words, and more again when every warp's word lies in one 128-byte row:
 * S(remote_row, 32, 32) > 1.5 S(remote, 32, 32), S(remote, 32, 32) > S(remote, 32, 1) >
 * S(dsmem_local, 32, 1) > 0; and each lies in a wide band around what the H100 measured
 * (docs/calibration.md, "Distributed shared memory (cluster) families": local 2.0 and 32.0 cycles per job, remote 14.2,
 * one word per warp 240 in one row; calibration: 111 with a row per warp); a hot receiver's job of
 * its cluster costs more than a local one-word job and less than a ring's (H200: 60.0).  Exits 77 (skip) without a GPU or without thread block clusters (compute capability < 9.0).
 * argv[1] = the atomutil-calibrate binary, argv[2] = a scratch directory.
 */
#include "cal.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* S of (fam, n, a, c = 0), checked to lie in [lo, hi]; 0 when missing. */
static double s_at(const au_table *t, const char *fam, int n, int a, double lo, double hi)
{
    au_sample s;
    ++check_count;
    if (au_table_lookup(t, fam, n, a, 0, &s) != AU_OK) {
        ++check_failures;
        fprintf(stderr, "%s n=%d a=%d c=0: missing (%s)\n", fam, n, a, au_last_error());
        return 0;
    }
    fprintf(stderr, "%-13s n=%2d a=%2d: S = %8.3f cycles per job (min %.3f max %.3f; want %.1f..%.1f)\n", fam, n, a,
            s.service_cycles, s.min_cycles, s.max_cycles, lo, hi);
    if (!(s.service_cycles >= lo && s.service_cycles <= hi)) {
        ++check_failures;
        fprintf(stderr, "  FAILED: outside the band\n");
    }
    return s.service_cycles;
}

/* Whether the file holds the text. */
static int file_has(const char *path, const char *text)
{
    char line[1024];
    int found = 0;
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_gpu_dsmem ATOMUTIL-CALIBRATE SCRATCH-DIR\n");
        return 2;
    }
    char path[1024], errf[1024], cmd[3200];
    snprintf(path, sizeof path, "%s/gpu-dsmem.csv", argv[2]);
    snprintf(errf, sizeof errf, "%s/gpu-dsmem.err", argv[2]);
    snprintf(cmd, sizeof cmd,
             "'%s' --quick --families dsmem_local,dsmem_remote,dsmem_remote_row,dsmem_hot -o '%s' 2>'%s'", argv[1],
             path, errf);
    const int st = system(cmd);
    const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (rc == AU_CAL_EXIT_NODEV) {
        fprintf(stderr, "test_calibrate_gpu_dsmem: no usable CUDA device: skipped\n");
        return 77;
    }
    if (rc == AU_CAL_EXIT_FAIL && file_has(errf, "needs 9.0 or newer")) {
        fprintf(stderr, "test_calibrate_gpu_dsmem: no thread block clusters on this GPU: skipped\n");
        return 77;
    }
    if (rc != 0) {
        char line[1024];
        FILE *f = fopen(errf, "r");
        while (f && fgets(line, sizeof line, f))
            fputs(line, stderr);
        if (f)
            fclose(f);
    }
    CHECK_EQ_INT(rc, 0);
    /* the four families, and add (a table needs it), which the tool says it measured too */
    CHECK(file_has(errf, "family add is measured too"));
    CHECK(file_has(errf, "dsmem: 144 points"));
    au_table *t = NULL;
    CHECK_EQ_INT(au_table_load(path, &t), AU_OK);
    if (!t)
        return check_report("test_calibrate_gpu_dsmem");
    CHECK(au_table_has_family(t, "add") && au_table_has_family(t, "dsmem_local") &&
          au_table_has_family(t, "dsmem_remote"));
    CHECK_EQ_INT(au_table_n_max(t, "dsmem_local"), 32);
    CHECK_EQ_INT(au_table_a_max(t, "dsmem_remote"), 32);
    au_sample s;
    CHECK_EQ_INT(au_table_lookup(t, "dsmem_remote", 32, 1, 32, &s), AU_E_NOTFOUND); /* c = 0 only */

    const double l1 = s_at(t, "dsmem_local", 32, 1, 1.5, 4.0);
    const double l32 = s_at(t, "dsmem_local", 32, 32, 24.0, 48.0);
    const double r1 = s_at(t, "dsmem_remote", 32, 1, 8.0, 32.0);
    const double r32 = s_at(t, "dsmem_remote", 32, 32, 70.0, 180.0);
    const double w32 = s_at(t, "dsmem_remote_row", 32, 32, 150.0, 400.0);
    /* a hot receiver's cycles per job of its cluster (H200: 60 at a = 32, 9 at a = 1) */
    const double h1 = s_at(t, "dsmem_hot", 32, 1, 3.0, 30.0);
    const double h32 = s_at(t, "dsmem_hot", 32, 32, 30.0, 120.0);
    CHECK(h32 > 2 * h1);
    CHECK(h32 < r32); /* neither a ring's one-word job nor the own rank's */
    CHECK(h32 > l32);
    CHECK(r32 > r1);
    CHECK(w32 > 1.5 * r32); /* the warps' words in one row: their requests serialize */
    CHECK(r1 > l1);
    CHECK(l1 > 0);
    CHECK(l32 > l1); /* one word: the passes serialize on the own SM too */
    au_table_free(t);
    return check_report("test_calibrate_gpu_dsmem");
}
