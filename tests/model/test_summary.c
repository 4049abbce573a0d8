/*
 * test_summary.c - the kernels of a report (model/src/summary.c, atomutil-profile --summary): a
 * hand-made report of seven launches of three kernels, with every figure checked: grouping by
 * short name, GPU time and its shares, U weighted by active cycles and its range, the worst and
 * the most common verdict, the families the jobs were priced as, the order by time, one file's
 * kernels, and the CSV.
 */
#include "atomutil/model.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a launch: kernel, GPU time (< 0: none), verdict, U, busy and active cycles, jobs. */
static au_launch *add(au_report *r, const char *kernel, double ns, au_verdict v, double u, double busy, double active,
                      double jobs)
{
    au_launch *l = au_report_add(r);
    l->kernel = strdup(kernel);
    l->duration_ns = ns;
    l->res.verdict = v;
    l->res.util = u;
    l->res.busy = busy;
    l->res.active = active;
    l->ctr.jobs = jobs;
    l->ctr.cas_jobs = jobs / 4;
    l->ctr.wavefronts = 2 * jobs;
    if (v == AU_VERDICT_UNKNOWN)
        l->res.flags = AU_F_MISSING;
    return l;
}

static void make_report(au_report *r)
{
    au_report_init(r);
    add(r, "void k_a<1>(int)", 1000, AU_VERDICT_BOUND, 0.9, 90, 100, 1000);
    add(r, "void k_b(float*)", 3000, AU_VERDICT_NOT_LIMITING, 0.1, 30, 300, 500);
    /* priced by its opcodes: 300 CAS jobs and 100 others */
    au_launch *l = add(r, "void k_a<1>(int)", 2000, AU_VERDICT_SIGNIFICANT, 0.5, 100, 200, 400);
    l->res.flags |= AU_F_OPCODES;
    l->ops = calloc(1, sizeof *l->ops);
    l->ops->nclass = 3;
    l->ops->cls[0] = (au_class_share){"cas", 2, 300, 80};
    l->ops->cls[1] = (au_class_share){"add", 1, 100, 20};
    l->ops->cls[2] = (au_class_share){"dsmem", 1, 50, 0}; /* not part of the jobs: left out */
    /* the same short name (parameters differ), counters missing, no time */
    add(r, "void k_a<1>(long)", -1, AU_VERDICT_UNKNOWN, 0, 0, 0, 0);
    add(r, "k_c", 500, AU_VERDICT_UNCERTAIN, 0.7, 70, 100, 10);
    add(r, "void k_b(float*)", 3000, AU_VERDICT_NOT_LIMITING, 0.2, 40, 200, 500);
    add(r, "k_c", 500, AU_VERDICT_SIGNIFICANT, 0.45, 45, 100, 10);
}

static void test_kernels(const au_summary *s)
{
    CHECK_EQ_INT(s->n, 3);
    CHECK_EQ_INT(s->launches, 7);
    CHECK_EQ_INT(s->timed, 6);
    CHECK_NEAR(s->time_ns, 10000, 0);
    CHECK_NEAR(s->time_bound_ns, 1000, 0);
    CHECK_NEAR(s->time_significant_ns, 2500, 0);
    if (s->n != 3)
        return;
    const au_kernel_stat *a = &s->k[0], *b = &s->k[1], *c = &s->k[2];
    CHECK(strcmp(a->name, "k_a<1>") == 0 && strcmp(b->name, "k_b") == 0 && strcmp(c->name, "k_c") == 0);
    CHECK_EQ_INT(a->first, 0);
    CHECK_EQ_INT(b->first, 1);
    CHECK_EQ_INT(c->first, 4);
    /* k_a: three launches, one unknown (no time, not in U) */
    CHECK_EQ_INT(a->launches, 3);
    CHECK_EQ_INT(a->evaluated, 2);
    CHECK_EQ_INT(a->timed, 2);
    CHECK_NEAR(a->time_ns, 3000, 0);
    CHECK_NEAR(a->util, 190.0 / 300.0, 1e-12);
    CHECK_NEAR(a->util_min, 0.5, 0);
    CHECK_NEAR(a->util_max, 0.9, 0);
    CHECK_NEAR(a->jobs, 1400, 0);
    CHECK_NEAR(a->cas_jobs, 350, 0);
    CHECK_EQ_INT(a->verdict, AU_VERDICT_SIGNIFICANT);
    CHECK_EQ_INT(a->worst, AU_VERDICT_BOUND);
    CHECK_EQ_INT(a->common, AU_VERDICT_BOUND); /* one of each: the most severe */
    CHECK_EQ_INT(a->verdicts[AU_VERDICT_UNKNOWN], 1);
    /* launch 0's 1000 jobs priced as add, launch 2's 100 add and 300 cas: 1100 / 1400, 300 / 1400 */
    CHECK_EQ_INT(a->nclass, 2);
    CHECK(strcmp(a->classes, "add 79%, cas 21%") == 0);
    CHECK_NEAR(a->cls[0].jobs, 1100, 0);
    /* k_b: two not-limiting launches */
    CHECK_NEAR(b->time_ns, 6000, 0);
    CHECK_NEAR(b->util, 70.0 / 500.0, 1e-12);
    CHECK_EQ_INT(b->worst, AU_VERDICT_NOT_LIMITING);
    CHECK_EQ_INT(b->common, AU_VERDICT_NOT_LIMITING);
    CHECK(strcmp(b->classes, "add 100%") == 0);
    /* k_c: an uncertain range (it may reach atomic-bound) is worse than a significant U */
    CHECK_NEAR(c->util, 115.0 / 200.0, 1e-12);
    CHECK_NEAR(c->util_min, 0.45, 0);
    CHECK_NEAR(c->util_max, 0.7, 0);
    CHECK_EQ_INT(c->worst, AU_VERDICT_UNCERTAIN);
    CHECK_EQ_INT(c->common, AU_VERDICT_UNCERTAIN);
}

static void test_sorted(au_summary *s)
{
    CHECK_EQ_INT(au_summary_sort_by_time(s), AU_OK);
    if (s->n != 3)
        return;
    CHECK(strcmp(s->k[0].name, "k_b") == 0 && strcmp(s->k[1].name, "k_a<1>") == 0 && strcmp(s->k[2].name, "k_c") == 0);
    static const size_t want[] = {1, 0, 1, 1, 2, 0, 2};
    for (size_t i = 0; i < 7; ++i)
        CHECK_EQ_INT(s->of_launch[i], want[i]);
}

/* The summary as CSV, one row per kernel by time, figures as documented (docs/cli.md). */
static void test_csv(au_report *r)
{
    FILE *f = tmpfile();
    r->view = AU_VIEW_SUMMARY;
    CHECK_EQ_INT(au_report_render(r, AU_FMT_CSV, f), AU_OK);
    char text[2048] = "";
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    const char *want =
        "kernel,launches,launches_evaluated,time_ns,mean_time_ns,time_pct,util_pct,util_pct_min,util_pct_max,"
        "verdict_worst,verdict_common,opcode_classes,could_save_ns,best_cure\n"
        "\"k_b\",2,2,6000,3000.0,60.000,14.000,10.000,20.000,not-limiting,not-limiting,\"add 100%\",,\n"
        "\"k_a<1>\",3,2,3000,1500.0,30.000,63.333,50.000,90.000,atomic-bound,atomic-bound,\"add 79%, cas 21%\",,\n"
        "\"k_c\",2,2,1000,500.0,10.000,57.500,45.000,70.000,uncertain,uncertain,\"add 100%\",,\n";
    CHECK(strcmp(text, want) == 0);
    if (strcmp(text, want) != 0)
        fprintf(stderr, "  got:\n%s  want:\n%s", text, want);
}

/* One file's kernels: launches 5 and 6 read from a second file. */
static void test_file(au_report *r)
{
    r->launches[5].file = r->launches[6].file = 1;
    au_summary s;
    CHECK_EQ_INT(au_summary_make_file(r, 1, &s), AU_OK);
    CHECK_EQ_INT(s.n, 2);
    CHECK_EQ_INT(s.launches, 2);
    CHECK_NEAR(s.time_ns, 3500, 0);
    CHECK_NEAR(s.time_significant_ns, 500, 0);
    CHECK_EQ_INT(au_summary_sort_by_time(&s), AU_OK);
    if (s.n == 2) {
        CHECK(strcmp(s.k[0].name, "k_b") == 0 && s.k[0].launches == 1 && s.k[0].first == 5);
        CHECK_NEAR(s.k[0].util, 0.2, 1e-12);
        CHECK(strcmp(s.k[1].name, "k_c") == 0 && s.k[1].worst == AU_VERDICT_SIGNIFICANT);
    }
    static const size_t want[] = {AU_NO_KERNEL, AU_NO_KERNEL, AU_NO_KERNEL, AU_NO_KERNEL, AU_NO_KERNEL, 0, 1};
    for (size_t i = 0; i < 7; ++i)
        CHECK(s.of_launch[i] == want[i]);
    au_summary_free(&s);
    r->launches[5].file = r->launches[6].file = 0;
}

int main(void)
{
    au_report r;
    make_report(&r);
    au_summary s;
    CHECK_EQ_INT(au_summary_make(&r, &s), AU_OK);
    test_kernels(&s);
    test_sorted(&s);
    au_summary_free(&s);
    test_file(&r);
    test_csv(&r);
    /* an empty report: no kernel, no time */
    au_report e;
    au_report_init(&e);
    CHECK_EQ_INT(au_summary_make(&e, &s), AU_OK);
    CHECK_EQ_INT(s.n, 0);
    CHECK_NEAR(s.time_ns, 0, 0);
    au_summary_free(&s);
    au_report_free(&r);
    return check_report("test_summary");
}
