/*
 * test_model.c - interpolation of S(n, a, c) and the queue model, against values computed by hand
 * from tests/data/golden-table.csv:
 *   S(n, a, c=0): n=1: a=1 8, a=32 64 | n=16: 1.5, 32 | n=64: 1, 32;  c = n doubles every value.
 * Along n the table interpolates T = n * S, along a and c it interpolates S.
 */
#include "atomutil/model.h"
#include "atomutil/util.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static au_table *golden;

static double S(double n, double a, double c, au_flags *flags)
{
    double s = -1;
    au_flags fl = 0;
    CHECK_EQ_INT(au_table_interp(golden, "add", n, a, c, &s, &fl), AU_OK);
    if (flags)
        *flags = fl;
    return s;
}

static void test_grid_points(void)
{
    au_flags fl;
    CHECK_NEAR(S(1, 1, 0, &fl), 8, 1e-12);
    CHECK_EQ_INT(fl, 0);
    CHECK_NEAR(S(1, 32, 1, &fl), 128, 1e-12);
    CHECK_NEAR(S(16, 1, 0, NULL), 1.5, 1e-12);
    CHECK_NEAR(S(16, 32, 16, NULL), 64, 1e-12);
    CHECK_NEAR(S(64, 1, 64, NULL), 2, 1e-12);
    CHECK_NEAR(S(64, 32, 0, &fl), 32, 1e-12);
    CHECK_EQ_INT(fl, 0);
}

static void test_midpoints(void)
{
    /* along n, a=1, c=0: n=40 sits half way between 16 and 64: T = (16*1.5 + 64*1)/2 = 44 */
    CHECK_NEAR(S(40, 1, 0, NULL), 44.0 / 40, 1e-12);
    /* along n near the low end: n=8.5 half way between 1 and 16: T = (8 + 24)/2 = 16 */
    CHECK_NEAR(S(8.5, 1, 0, NULL), 16 / 8.5, 1e-12);
    /* along a at n=16: a=16.5 is half way: (1.5 + 32)/2 */
    CHECK_NEAR(S(16, 16.5, 0, NULL), 16.75, 1e-12);
    /* along c at n=16, a=1: c=8 is half the jobs CAS: (1.5 + 3)/2 */
    CHECK_NEAR(S(16, 1, 8, NULL), 2.25, 1e-12);
    /* CAS mix off the n grid: n=40, c=20 (share 1/2) -> S(16,.,8)=2.25, S(64,.,32)=1.5;
     * T = (16*2.25 + 64*1.5)/2 = 66 */
    CHECK_NEAR(S(40, 1, 20, NULL), 66.0 / 40, 1e-12);
    /* all three at once: n=40, a=16.5, c=10 (share 1/4):
     * n=16: a=1: 1.5*1.25=1.875, a=32: 32*1.25=40 -> 20.9375; n=64: a=1: 1.25, a=32: 40 -> 20.625
     * T = (16*20.9375 + 64*20.625)/2 = 827.5 */
    CHECK_NEAR(S(40, 16.5, 10, NULL), 827.5 / 40, 1e-9);
}

static void test_clamping(void)
{
    au_flags fl;
    CHECK_NEAR(S(0.5, 1, 0, &fl), 8, 1e-12);
    CHECK(fl & AU_F_CLAMP_N_LOW);
    CHECK_NEAR(S(100, 1, 0, &fl), 1, 1e-12);
    CHECK(fl & AU_F_CLAMP_N_HIGH);
    CHECK_NEAR(S(16, 0.5, 0, &fl), 1.5, 1e-12);
    CHECK(fl == AU_F_CLAMP_A);
    CHECK_NEAR(S(16, 40, 0, &fl), 32, 1e-12);
    CHECK(fl == AU_F_CLAMP_A);
    CHECK_NEAR(S(16, 1, -3, &fl), 1.5, 1e-12);
    CHECK(fl == AU_F_CLAMP_C);
    CHECK_NEAR(S(16, 1, 20, &fl), 3, 1e-12);
    CHECK(fl == AU_F_CLAMP_C);
    /* the CAS share is kept when n is clamped: n=100, c=50 -> S(64, 1, 32) = 1.5 */
    CHECK_NEAR(S(100, 1, 50, &fl), 1.5, 1e-12);
    double s;
    CHECK_EQ_INT(au_table_interp(golden, "add", 0.0 / 0.0, 1, 0, &s, NULL), AU_E_INVAL);
    CHECK_EQ_INT(au_table_interp(golden, "nosuch", 16, 1, 0, &s, NULL), AU_E_NOTFOUND);
}

static void test_continuity(void)
{
    /* no jumps anywhere inside the grid: a tiny step changes S by a tiny amount */
    double worst = 0;
    for (double n = 1; n < 64; n += 0.37)
        for (double a = 1; a < 32; a += 1.3)
            for (double share = 0; share <= 1; share += 0.25) {
                double h = 1e-7;
                double s0 = S(n, a, share * n, NULL);
                double d = fabs(S(n + h, a, share * (n + h), NULL) - s0) + fabs(S(n, a + h, share * n, NULL) - s0);
                if (d > worst)
                    worst = d;
            }
    CHECK(worst < 1e-4);
}

static au_counters counters(double J, double cas, double W, double T, double warps)
{
    au_counters c = {
        .jobs = J, .cas_jobs = cas, .wavefronts = W, .active_cycles = T, .warps = warps, .have = AU_C_REQUIRED};
    return c;
}

static void test_queue_gpu(void)
{
    au_result r;
    au_thresholds thr = AU_THRESHOLDS_DEFAULT;
    /* 2 SMs, 3200 jobs in all, a = 32 wavefronts per job, 40 warps: S = 32 (n=16 and 64 both 32)
     * B = 1600 * 32 = 51200 per SM; T = 64000 -> U = 0.8 exactly: atomic-bound at the threshold */
    au_counters g = counters(3200, 0, 3200 * 32, 64000, 40);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, &thr, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.jobs, 1600, 1e-9);
    CHECK_NEAR(r.a, 32, 1e-12);
    CHECK_NEAR(r.queue_len, 40, 1e-12);
    CHECK_NEAR(r.service, 32, 1e-12);
    CHECK_NEAR(r.busy, 51200, 1e-6);
    CHECK_NEAR(r.util, 0.8, 1e-12);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_BOUND);
    CHECK(r.flags & AU_F_QUEUE_ESTIMATED);
    /* a quarter of the jobs are CAS: c = 40/4 = 10 -> S = 827.5/40 at a=16.5 (test_midpoints);
     * a CAS pass counts two wavefronts, so a = W / (J + J_cas) = 66000 / 4000 */
    g = counters(3200, 800, (3200 + 800) * 16.5, 64000, 40);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, &thr, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.a, 16.5, 1e-12);
    CHECK_NEAR(r.cas_queued, 10, 1e-12);
    CHECK_NEAR(r.service, 827.5 / 40, 1e-9);
    CHECK_NEAR(r.util, 1600 * (827.5 / 40) / 64000, 1e-12);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_SIGNIFICANT);
    /* a measured queue length overrides resident warps and drops the estimate flag */
    g = counters(3200, 0, 3200, 64000, 40);
    g.queue = 16;
    g.have |= AU_C_QUEUE;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, &thr, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.service, 1.5, 1e-12);
    CHECK(!(r.flags & AU_F_QUEUE_ESTIMATED));
    CHECK_EQ_INT(r.verdict, AU_VERDICT_NOT_LIMITING);
    /* U above 100 % is reported as it is and flagged */
    g = counters(3200, 0, 3200 * 32, 40000, 40);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, &thr, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.util, 1.28, 1e-12);
    CHECK(r.flags & AU_F_OVER_100);
    /* settable thresholds */
    au_thresholds strict = {0.9, 0.85};
    g = counters(3200, 0, 3200 * 32, 64000, 40);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, &strict, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_NOT_LIMITING);
    /* U = 0.8 exactly at the significant threshold: significant (U >= 40 % by default) */
    au_thresholds edge = {0.9, 0.8};
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, &edge, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_SIGNIFICANT);
}

/* Default busy mode: every job at the saturated service time S(n_max = 64, a, c = 64 * CAS share):
 * at a = 16.5 and share 1/4: S(64, 1, 16) = 1.25, S(64, 32, 16) = 40 -> 1.25 + 38.75 / 2 = 20.625 */
static void test_saturated(void)
{
    au_result r;
    au_counters g = counters(3200, 800, (3200 + 800) * 16.5, 64000, 40);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.service, 20.625, 1e-9);
    CHECK_NEAR(r.util, 1600 * 20.625 / 64000, 1e-12);
    CHECK_NEAR(r.queue_len, 40, 0); /* still reported */
    CHECK(!(r.flags & (AU_F_QUEUE_ESTIMATED | AU_F_CLAMP_N_LOW | AU_F_CLAMP_N_HIGH)));
    /* the queue length is not needed: no warp counter, same U */
    g.have &= ~AU_C_WARPS;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(!(r.flags & AU_F_MISSING));
    CHECK_NEAR(r.util, 1600 * 20.625 / 64000, 1e-12);
    /* few warps: the queue mode prices the latency-bound jobs at S(1) = 8, saturated at S(64) = 1 */
    au_counters one = counters(1000, 0, 1000, 10000, 1);
    CHECK_EQ_INT(au_model_eval(golden, "add", &one, 1, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.util, 0.8, 1e-12);
    CHECK_EQ_INT(au_model_eval(golden, "add", &one, 1, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util, 0.1, 1e-12);
    CHECK(strcmp(au_busy_mode_name(AU_BUSY_SATURATED), "saturated") == 0);
    CHECK(strcmp(au_busy_mode_name(AU_BUSY_QUEUE), "queue") == 0);
    CHECK_EQ_INT(au_table_n_max(golden, "add"), 64);
    CHECK_EQ_INT(au_table_n_max(golden, "nosuch"), 0);
}

static void test_zero_and_missing(void)
{
    au_result r;
    /* no shared atomics: U = 0, never NaN, even with warps/cas/wavefronts absent */
    au_counters z = {.active_cycles = 5000, .have = AU_C_JOBS | AU_C_ACTIVE_CYCLES};
    CHECK_EQ_INT(au_model_eval(golden, "add", &z, 132, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK(r.util == 0);
    CHECK(!isnan(r.util) && !isnan(r.service) && !isnan(r.a));
    CHECK(r.flags & AU_F_NO_ATOMICS);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_NOT_LIMITING);
    /* no active cycles either (an empty launch) */
    au_counters e = {.have = AU_C_REQUIRED};
    CHECK_EQ_INT(au_model_eval(golden, "add", &e, 132, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK(r.util == 0 && r.verdict == AU_VERDICT_NOT_LIMITING);
    /* jobs but no warp counter: U unknown, the missing bit says which */
    au_counters m = counters(3200, 0, 3200, 64000, 40);
    m.have &= ~AU_C_WARPS;
    CHECK_EQ_INT(au_model_eval(golden, "add", &m, 2, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK(r.flags & AU_F_MISSING);
    CHECK_EQ_INT(r.missing, AU_C_WARPS);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_UNKNOWN);
    CHECK(r.util == 0);
    /* no jobs counter at all: unknown */
    au_counters nj = counters(0, 0, 0, 64000, 40);
    nj.have = AU_C_ACTIVE_CYCLES | AU_C_WARPS;
    CHECK_EQ_INT(au_model_eval(golden, "add", &nj, 2, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK(r.missing & AU_C_JOBS);
    /* wavefronts missing from the standard set: a is unknown, so is U (a = 1 would price a 32-way
     * launch 32 times too low) */
    au_counters nw = counters(3200, 0, 0, 64000, 16);
    nw.have &= ~AU_C_WAVEFRONTS;
    CHECK_EQ_INT(au_model_eval(golden, "add", &nw, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_EQ_INT(r.flags, AU_F_MISSING);
    CHECK_EQ_INT(r.missing, AU_C_WAVEFRONTS);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_UNKNOWN);
    CHECK(r.util == 0 && r.service == 0 && r.a == 0);
    CHECK(strcmp(r.why, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum") == 0);
    /* the cluster set counts no local wavefronts: a = 1 assumed and flagged, the DSMEM counters
     * needed instead (no generic atomics here: a table without dsmem families prices it) */
    nw.have |= AU_C_DSMEM;
    CHECK_EQ_INT(au_model_eval(golden, "add", &nw, 2, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK(r.flags & AU_F_NO_WAVEFRONTS);
    CHECK(!(r.flags & AU_F_UNUSABLE));
    CHECK_NEAR(r.service, 1.5, 1e-12);
    nw.have &= ~AU_C_DSHARED_XBAR;
    CHECK_EQ_INT(au_model_eval(golden, "add", &nw, 2, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_EQ_INT(r.flags, AU_F_MISSING);
    CHECK_EQ_INT(r.missing, AU_C_DSHARED_XBAR);
    CHECK(strcmp(r.why, "l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum") == 0);
    /* with the wavefronts (the standard set), a DSMEM counter alone (a GPU without distributed
     * shared memory counts generic atomics) asks for nothing more */
    nw.wavefronts = 3200, nw.have |= AU_C_WAVEFRONTS;
    nw.have &= ~(AU_C_DSMEM & ~AU_C_GENERIC);
    CHECK_EQ_INT(au_model_eval(golden, "add", &nw, 2, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK(!(r.flags & (AU_F_UNUSABLE | AU_F_NO_WAVEFRONTS | AU_F_DSMEM)));
    CHECK_NEAR(r.service, 1.5, 1e-12);
    /* invalid arguments */
    CHECK_EQ_INT(au_model_eval(golden, "add", &nw, 0, NULL, AU_BUSY_QUEUE, &r), AU_E_INVAL);
    CHECK_EQ_INT(au_model_eval(golden, "cas", &nw, 2, NULL, AU_BUSY_QUEUE, &r), AU_E_NOTFOUND);
}

/* CAS-class families (name starts with "cas") are priced at c = 0, and a counts passes: a CAS
 * pass is two wavefronts.  Table: add and cas at n in {1, 64}, a in {1, 32}; cas S = 2 per pass at
 * c = 0 and (a dummy) 9 per pass at c = n, so that pricing at the wrong c shows. */
static void test_cas_class(void)
{
    au_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU");
    m.cc_major = 9;
    m.sm_count = 1;
    m.max_warps_per_sm = 64;
    snprintf(m.method, sizeof m.method, "steady");
    au_table *t = NULL;
    CHECK_EQ_INT(au_table_new(&m, &t), AU_OK);
    if (!t)
        return;
    static const int ns[] = {1, 64}, as[] = {1, 32};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            au_sample add0 = {as[j], as[j], as[j], 0}, addn = {2.0 * as[j], 2.0 * as[j], 2.0 * as[j], 0};
            au_sample cas0 = {2.0 * as[j], 2.0 * as[j], 2.0 * as[j], 0},
                      casn = {9.0 * as[j], 9.0 * as[j], 9.0 * as[j], 0};
            au_table_add(t, "add", ns[i], as[j], 0, &add0);
            au_table_add(t, "add", ns[i], as[j], ns[i], &addn);
            au_table_add(t, "cas", ns[i], as[j], 0, &cas0);
            au_table_add(t, "cas", ns[i], as[j], ns[i], &casn);
        }
    CHECK_EQ_INT(au_table_finalize(t), AU_OK);
    CHECK(au_family_is_cas_class("cas") && au_family_is_cas_class("cast_spin64"));
    CHECK(!au_family_is_cas_class("add") && !au_family_is_cas_class("popc_inc"));
    /* a CAS-only kernel: 1000 jobs, all CAS, 32 wavefronts each = 16 passes; N = 64 */
    au_counters cas_only = {.jobs = 1000,
                            .cas_jobs = 1000,
                            .wavefronts = 32000,
                            .active_cycles = 40000,
                            .warps = 64,
                            .have = AU_C_REQUIRED};
    au_result r;
    CHECK_EQ_INT(au_model_eval(t, "cas", &cas_only, 1, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.a, 16, 1e-12);
    CHECK_NEAR(r.cas_queued, 0, 0);
    /* S(64, a=16, c=0) of cas: linear in a between 2 (a=1) and 64 (a=32): 2 * 16 = 32 */
    CHECK_NEAR(r.service, 32, 1e-9);
    CHECK_NEAR(r.util, 1000 * 32.0 / 40000, 1e-12);
    /* the same kernel priced as add (the default family): c = N, S = 2 per pass */
    CHECK_EQ_INT(au_model_eval(t, "add", &cas_only, 1, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.cas_queued, 64, 1e-12);
    CHECK_NEAR(r.service, 32, 1e-9);
    au_table_free(t);
}

static void test_strings(void)
{
    char buf[64];
    CHECK(strcmp(au_kernel_short("void hist_kernel<0, 1>(const uchar4 *, unsigned long)", buf, sizeof buf, 32),
                 "hist_kernel<0, 1>") == 0);
    CHECK(strcmp(au_kernel_short("k(int (*)(int))", buf, sizeof buf, 32), "k") == 0);
    CHECK(strcmp(au_kernel_short("_Z3fooPi", buf, sizeof buf, 32), "_Z3fooPi") == 0);
    CHECK(strcmp(au_kernel_short("a_very_long_kernel_name_that_goes_on_and_on(int)", buf, sizeof buf, 16),
                 "a_very_long_ker~") == 0);
    CHECK(strcmp(au_kernel_short("", buf, sizeof buf, 16), "") == 0);
    CHECK(strcmp(au_flags_string(AU_F_CLAMP_A | AU_F_QUEUE_ESTIMATED, buf, sizeof buf), "clamp_a,queue_estimated") ==
          0);
    CHECK(strcmp(au_flags_string(0, buf, sizeof buf), "") == 0);
    char tiny[8];
    au_flags_string(AU_F_CLAMP_A | AU_F_QUEUE_ESTIMATED, tiny, sizeof tiny);
    CHECK(strlen(tiny) < sizeof tiny);
    CHECK(strcmp(au_verdict_name(AU_VERDICT_BOUND), "atomic-bound") == 0);
    CHECK(strcmp(au_strerror(AU_E_PARSE), "malformed input") == 0);
    size_t n;
    const au_metric_def *d = au_metric_defs(&n);
    int required = 0;
    for (size_t i = 0; i < n; ++i)
        required += d[i].required;
    CHECK_EQ_INT(required, 5);
}

/* au_fput_text of s in mode, as a string */
static const char *put_text(const char *s, au_text_mode mode)
{
    static char out[512];
    FILE *f = tmpfile();
    if (!f)
        return "";
    au_fput_text(f, s, mode);
    rewind(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    fclose(f);
    return out;
}

/* Names in the output (text.c): control characters, ill-formed UTF-8, cutting by columns. */
static void test_text(void)
{
#define FFFD "\xEF\xBF\xBD"
    /* JSON: quote, backslash and controls (C0, DEL, C1 U+009B) escaped, valid UTF-8 kept */
    CHECK(strcmp(put_text("a\"b\\c\x1b[1m\x7f\xc2\x9b\xc3\xa9", AU_TEXT_JSON),
                 "\"a\\\"b\\\\c\\u001b[1m\\u007f\\u009b\xc3\xa9\"") == 0);
    /* ill-formed UTF-8: one U+FFFD per maximal subpart, as Python decodes with errors="replace" */
    CHECK(strcmp(put_text("\xff"
                          "x\xe3\x81"
                          "y",
                          AU_TEXT_JSON),
                 "\"" FFFD "x" FFFD "y\"") == 0);
    CHECK(strcmp(put_text("\xc0\xaf", AU_TEXT_JSON), "\"" FFFD FFFD "\"") == 0);          /* overlong '/' */
    CHECK(strcmp(put_text("\xed\xa0\x80", AU_TEXT_JSON), "\"" FFFD FFFD FFFD "\"") == 0); /* surrogate */
    CHECK(strcmp(put_text("\xf4\x90\x80\x80", AU_TEXT_JSON), "\"" FFFD FFFD FFFD FFFD "\"") == 0);
    CHECK(strcmp(put_text("\xf0\x9f\x98\x80", AU_TEXT_JSON), "\"\xf0\x9f\x98\x80\"") == 0); /* U+1F600 */
    /* CSV: quoted, '"' doubled, a newline cannot split the record */
    CHECK(strcmp(put_text("a\"b\nc\xff", AU_TEXT_CSV), "\"a\"\"b?c" FFFD "\"") == 0);
    /* text: controls and a right-to-left override as '?' */
    CHECK(strcmp(put_text("x\x1b]0;t\x07\xe2\x80\xaey", AU_TEXT_PLAIN), "x?]0;t??y") == 0);
    /* columns: a wide character takes two; cuts fall between characters */
    char buf[64];
    CHECK_EQ_INT(au_text_width("\xc3\xa9\x1b\xe3\x82\xab"), 4);
#define KANA "\xe3\x82\xab\xe3\x83\xbc\xe3\x83\x8d" /* three wide characters, 6 columns */
    CHECK(strcmp(au_text_fit(KANA, buf, sizeof buf, 6, 0), KANA) == 0);
    CHECK(strcmp(au_text_fit(KANA, buf, sizeof buf, 5, 0), "\xe3\x82\xab\xe3\x83\xbc~") == 0);
    CHECK(strcmp(au_text_fit(KANA "\xe3\x83\xab", buf, sizeof buf, 6, 1), "\xe3\x82\xab\xe3\x83\xbc~ ") == 0);
#undef KANA
    CHECK(strcmp(au_text_fit("ab", buf, sizeof buf, 4, 1), "ab  ") == 0);
    CHECK(strcmp(au_text_fit("\xc3\xa9\xc3\xa9\xc3\xa9", buf, 4, 0, 0), "\xc3\xa9~") == 0); /* buf too small */
    CHECK(strcmp(au_kernel_short("void \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9(int)", buf, sizeof buf, 3),
                 "\xc3\xa9\xc3\xa9~") == 0);
    CHECK(strcmp(au_kernel_short("k\x1b[0m\xff(int)", buf, sizeof buf, 32), "k?[0m" FFFD) == 0);
    /* the full short name, however long, as it is */
    char longname[600];
    memset(longname, 'x', 500);
    strcpy(longname + 500, "<1>(int)");
    char *d = au_kernel_short_dup(longname);
    CHECK(d && strlen(d) == 503 && strcmp(d + 500, "<1>") == 0);
    free(d);
    /* error messages get the same cleaning */
    au_set_error(AU_E_PARSE, "kernel %s", "\x1b[31m\xff");
    CHECK(strcmp(au_last_error(), "kernel ?[31m" FFFD) == 0);
#undef FFFD
}

/* The busiest SM from the .max rollups: 2 SMs, the launch of test_saturated (B = 1600 * 20.625 per
 * SM on average); one SM made 3/4 of the wavefronts (imbalance 1.5) and was active 70000 cycles. */
static void test_busiest(void)
{
    au_result r;
    au_counters g = counters(3200, 800, (3200 + 800) * 16.5, 64000, 40);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.imbalance == 0 && r.util_busiest == 0 && !(r.flags & AU_F_IMBALANCED)); /* no .max counters */
    g.wavefronts_max = 0.75 * g.wavefronts;
    g.have |= AU_C_WAVEFRONTS_MAX;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.imbalance, 1.5, 1e-12);
    CHECK(r.flags & AU_F_IMBALANCED);
    CHECK(r.util_busiest == 0); /* no active .max: no bound */
    g.active_max = 70000;
    g.have |= AU_C_ACTIVE_MAX;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util_busiest, 1600 * 20.625 * 1.5 / 70000, 1e-12);
    CHECK_NEAR(r.util, 1600 * 20.625 / 64000, 1e-12); /* the mean is unchanged */
    /* active times that differ more than the loads: the bound is the mean U */
    g.active_max = 200000;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util_busiest, r.util, 1e-15);
    /* even load: no flag */
    g.wavefronts_max = 0.55 * g.wavefronts;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.imbalance, 1.1, 1e-12);
    CHECK(!(r.flags & AU_F_IMBALANCED));
    /* the metric names the importer and the live collector know */
    au_counters c;
    memset(&c, 0, sizeof c);
    CHECK(au_counters_set(&c, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.max", 7));
    CHECK(au_counters_set(&c, "sm__cycles_active.max", 9));
    CHECK(c.wavefronts_max == 7 && c.active_max == 9 && c.have == (AU_C_WAVEFRONTS_MAX | AU_C_ACTIVE_MAX));
}

/* au_grow: room for element n, doubling; the array is kept when it cannot grow */
/* Cluster counter set, table without dsmem families: DSMEM traffic is flagged dsmem_uncalibrated,
 * verdict unknown, never no_atomics; without DSMEM traffic the launch is left as priced. */
static void test_dsmem_uncalibrated(void)
{
    au_result r;
    au_counters g = counters(0, 0, 0, 64000, 40);
    g.have = (AU_C_REQUIRED & ~AU_C_WAVEFRONTS) | AU_C_DSMEM | AU_C_CLUSTER;
    g.generic_jobs = 1000, g.dshared_wavefronts = 1000, g.dshared_xbar = 9000, g.cluster_size = 2;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.flags & AU_F_DSMEM_UNCALIBRATED);
    CHECK(!(r.flags & AU_F_NO_ATOMICS) && !(r.flags & AU_F_DSMEM));
    CHECK(r.verdict == AU_VERDICT_UNKNOWN);
    CHECK(au_dsmem_remote_family(golden, 2) == NULL);
    g.generic_jobs = g.dshared_wavefronts = g.dshared_xbar = 0;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK((r.flags & AU_F_NO_ATOMICS) && !(r.flags & AU_F_DSMEM_UNCALIBRATED));
}

/* Counters that cannot be right (docs/counters.md): verdict unknown, one flag, every figure 0, a
 * reason; the bounds checked on both sides.  2 SMs; a = 32 prices a job at 32 cycles, a = 1 at 1
 * (saturated) or 1.5 (queue mode at N = 16). */
static au_result eval_unusable(const au_counters *g, au_busy_mode busy, unsigned flag)
{
    au_result r;
    CHECK_EQ_INT(au_model_eval(golden, "add", g, 2, NULL, busy, &r), AU_OK);
    CHECK_EQ_INT(r.flags, flag);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_UNKNOWN);
    CHECK(r.util == 0 && r.busy == 0 && r.service == 0 && r.jobs == 0 && r.a == 0 && r.active == 0);
    CHECK(r.imbalance == 0 && r.util_busiest == 0 && r.util_lo == 0 && r.util_hi == 0);
    return r;
}

static void test_unusable_counters(void)
{
    au_result r;
    /* CAS jobs above all jobs; equal is fine (a CAS-only kernel) */
    au_counters g = counters(3200, 3201, 3200 * 32, 64000, 40);
    g.wavefronts_max = 1e9, g.active_max = 64000, g.have |= AU_C_WAVEFRONTS_MAX | AU_C_ACTIVE_MAX;
    r = eval_unusable(&g, AU_BUSY_SATURATED, AU_F_INCONSISTENT);
    CHECK(strcmp(r.why, "3201 CAS jobs, more than all 3200 jobs") == 0);
    g.cas_jobs = 3200;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(!(r.flags & AU_F_UNUSABLE) && r.util > 0 && r.why[0] == '\0');
    /* fewer wavefronts than jobs; one each is fine */
    g = counters(3200, 0, 3199, 64000, 40);
    r = eval_unusable(&g, AU_BUSY_SATURATED, AU_F_INCONSISTENT);
    CHECK(strcmp(r.why, "3199 shared-atomic wavefronts, fewer than the 3200 jobs (each takes one at least)") == 0);
    g.wavefronts = 3200;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util, 1600.0 / 64000, 1e-12);
    /* more jobs than 2 SMs issue in T cycles at 4 a cycle: 3200 > 8 * 399; at T = 400 they fit,
     * but U = 1600 / 400 = 400 % at capacity cannot */
    g = counters(3200, 0, 3200, 399, 40);
    r = eval_unusable(&g, AU_BUSY_SATURATED, AU_F_INCONSISTENT);
    CHECK(strcmp(r.why, "3200 jobs, more than 2 SMs issue in 399 active cycles (4 per cycle each)") == 0);
    g.active_cycles = 400;
    r = eval_unusable(&g, AU_BUSY_SATURATED, AU_F_IMPLAUSIBLE);
    CHECK(strstr(r.why, "U above 150 %") != NULL);
    g = counters(1e300, 0, 1e300, 64000, 40);
    r = eval_unusable(&g, AU_BUSY_QUEUE, AU_F_INCONSISTENT);
    CHECK(strcmp(r.why, "1e+300 jobs, more than 2 SMs issue in 64000 active cycles (4 per cycle each)") == 0);
    /* resident warps above the table's max_warps_per_sm (64), past 1 % */
    g = counters(3200, 0, 3200, 64000, 64.6);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(!(r.flags & AU_F_UNUSABLE));
    g.warps = 65;
    r = eval_unusable(&g, AU_BUSY_SATURATED, AU_F_INCONSISTENT);
    CHECK(strcmp(r.why, "65 resident warps per active cycle, more than an SM holds (64)") == 0);
    /* U at capacity: 1600 * 32 / 34000 = 150.6 % is out of range, 1600 * 32 / 34200 = 149.7 % is not */
    g = counters(3200, 0, 3200 * 32, 34000, 40);
    eval_unusable(&g, AU_BUSY_SATURATED, AU_F_IMPLAUSIBLE);
    g.active_cycles = 34200;
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_EQ_INT(r.flags, AU_F_OVER_100);
    CHECK_NEAR(r.util, 1600.0 * 32 / 34200, 1e-12);
    /* the queue mode prices latency above capacity: its U may pass 150 % where the capacity's does
     * not (a = 1, N = 16: 1.5 against 1 cycle a job) */
    g = counters(3200, 0, 3200, 1200, 16);
    CHECK_EQ_INT(au_model_eval(golden, "add", &g, 2, NULL, AU_BUSY_QUEUE, &r), AU_OK);
    CHECK_NEAR(r.util, 1600 * 1.5 / 1200, 1e-12);
    CHECK(!(r.flags & AU_F_UNUSABLE) && r.verdict == AU_VERDICT_BOUND);
    g.active_cycles = 1000; /* 160 % at capacity: out of range in both modes */
    eval_unusable(&g, AU_BUSY_QUEUE, AU_F_IMPLAUSIBLE);
    eval_unusable(&g, AU_BUSY_SATURATED, AU_F_IMPLAUSIBLE);
    /* wavefronts without jobs (generic atomics) priced at one pass each: checked on U too */
    g = counters(0, 0, 1e6, 64000, 40);
    eval_unusable(&g, AU_BUSY_SATURATED, AU_F_IMPLAUSIBLE);
    /* a counter in a unit of another kind is not used: wrong_unit, before any other check */
    g = counters(3200, 5000, 3200 * 32, 64000, 40);
    g.have &= ~AU_C_ACTIVE_CYCLES;
    g.wrong_unit = AU_C_ACTIVE_CYCLES;
    r = eval_unusable(&g, AU_BUSY_SATURATED, AU_F_WRONG_UNIT);
    CHECK_EQ_INT(r.missing, 0);
    CHECK(strcmp(r.why, "sm__cycles_active.avg given in a unit of another kind") == 0);
    char buf[128];
    CHECK(
        strcmp(au_flags_string(AU_F_INCONSISTENT | AU_F_IMPLAUSIBLE | AU_F_WRONG_UNIT | AU_F_MISSING, buf, sizeof buf),
               "missing,inconsistent_counters,implausible_counters,wrong_unit") == 0);
}

static void test_grow(void)
{
    int *v = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 100; ++n) {
        CHECK_EQ_INT(au_grow(&v, &cap, n, sizeof *v, 4), 0);
        v[n] = (int)n;
    }
    CHECK_EQ_INT(cap, 128); /* 4, 8, ..., 128 */
    CHECK(v[99] == 99 && v[0] == 0);
    CHECK_EQ_INT(au_grow(&v, &cap, 50, sizeof *v, 4), 0); /* room already */
    CHECK_EQ_INT(cap, 128);
    size_t huge = (size_t)-1 / 2 + 1;
    CHECK_EQ_INT(au_grow(&v, &huge, huge, sizeof *v, 4), -1); /* would overflow */
    CHECK(v[99] == 99);
    free(v);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_model GOLDEN_TABLE\n");
        return 2;
    }
    if (au_table_load(argv[1], &golden) != AU_OK) {
        fprintf(stderr, "test_model: %s\n", au_last_error());
        return 1;
    }
    test_grid_points();
    test_midpoints();
    test_clamping();
    test_continuity();
    test_queue_gpu();
    test_saturated();
    test_busiest();
    test_dsmem_uncalibrated();
    test_zero_and_missing();
    test_unusable_counters();
    test_cas_class();
    test_strings();
    test_text();
    test_grow();
    au_table_free(golden);
    return check_report("test_model");
}
