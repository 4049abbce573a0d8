/*
 * test_select.c - the launch selector (atomutil/select.h) that the injection library and
 * atomutil-profile share: skip, count and the per-kernel cap, in launch order.
 */
#include "atomutil/model.h"
#include "check.h"

/* Feeds the candidates' kernels k[0..n) (small numbers) and returns the selected ones as a bit
 * mask of their positions. */
static unsigned run(long long skip, long long count, long long per_kernel, const int *k, int n)
{
    au_selector s;
    long long of_kernel[8] = {0};
    unsigned got = 0;
    au_selector_init(&s, skip, count, per_kernel);
    for (int i = 0; i < n; ++i)
        if (au_selector_take(&s, k[i] < 0 ? -1 : of_kernel[k[i]])) {
            got |= 1u << i;
            if (k[i] >= 0)
                of_kernel[k[i]]++;
        }
    return got;
}

int main(void)
{
    const int k[8] = {0, 1, 0, 0, 1, 2, 0, 1};
    CHECK_EQ_INT(run(0, -1, -1, k, 8), 0xff); /* no limit: all */
    CHECK_EQ_INT(run(2, -1, -1, k, 8), 0xfc); /* the first two skipped */
    CHECK_EQ_INT(run(0, 3, -1, k, 8), 0x07);  /* the first three */
    CHECK_EQ_INT(run(1, 3, -1, k, 8), 0x0e);  /* skip, then count */
    CHECK_EQ_INT(run(0, -1, 1, k, 8), 0x23);  /* the first of each kernel: 0, 1, 2 */
    CHECK_EQ_INT(run(0, -1, 2, k, 8), 0x37);  /* two of each */
    CHECK_EQ_INT(run(3, 2, 1, k, 8), 0x18);   /* skipped candidates count for skip only */
    const int unknown[3] = {-1, 0, -1};
    CHECK_EQ_INT(run(0, -1, 1, unknown, 3), 0x02);  /* an unknown kernel under a cap: never */
    CHECK_EQ_INT(run(0, -1, -1, unknown, 3), 0x07); /* without a cap: as any other */

    au_selector s;
    au_selector_init(&s, 1, 2, -1);
    CHECK(!au_selector_exhausted(&s));
    CHECK_EQ_INT(au_selector_take(&s, 0), 0);
    CHECK_EQ_INT(au_selector_take(&s, 0), 1);
    CHECK_EQ_INT(au_selector_take(&s, 0), 1);
    CHECK(au_selector_exhausted(&s));
    CHECK_EQ_INT(au_selector_take(&s, 0), 0);
    CHECK_EQ_INT(s.candidates, 4);
    CHECK_EQ_INT(s.selected, 2);
    au_selector_init(&s, 0, 0, -1); /* --launch-count 0: nothing */
    CHECK(au_selector_exhausted(&s));
    CHECK_EQ_INT(au_selector_take(&s, 0), 0);
    return check_report("test_select");
}
