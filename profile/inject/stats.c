/*
 * stats.c - the injection library's timers and counters (stats.h), and the exit's timing lines
 * that report them (profile/import/cf_timing.def; docs/cli.md, "Timing").  The figures are added
 * under the lock their callers hold (stats.h): this module takes none but au_g.early_lock, to read
 * the early set-ups' figures at exit.
 */
#include "stats.h"

#include "base.h"

#include <stdio.h>

static double secs[AU_NTIMERS];
static long long counts[AU_NCOUNTS];

void au_stats_add(au_timer which, double seconds)
{
    secs[which] += seconds;
}

long long au_stats_count(au_count which)
{
    return counts[which]++;
}

void au_stats_write_timing(double t_loads, const au_stats_modules *modules)
{
    au_cf_timing t = {.rec = AU_CF_REC_LAUNCHES};
    t.v[AU_CF_F_LAUNCHES_measured] = (double)counts[AU_N_MEASURED];
    t.v[AU_CF_F_LAUNCHES_callbacks_s] = secs[AU_T_LAUNCH];
    t.v[AU_CF_F_LAUNCHES_module_loads_s] = t_loads;
    au_timing(&t);
    if (modules) {
        t = (au_cf_timing){.rec = AU_CF_REC_MODULES};
        t.v[AU_CF_F_MODULES_kept] = (double)modules->kept;
        t.v[AU_CF_F_MODULES_mb] = modules->bytes / 1e6;
        t.v[AU_CF_F_MODULES_not_kept] = (double)modules->not_kept;
        if (modules->literal)
            snprintf(t.text, sizeof t.text, "%s", modules->literal);
        au_timing(&t);
    }
    t = (au_cf_timing){.rec = AU_CF_REC_DETAIL};
    t.v[AU_CF_F_DETAIL_flush_s] = secs[AU_T_FLUSH];
    t.v[AU_CF_F_DETAIL_switch_s] = secs[AU_T_SWITCH];
    t.v[AU_CF_F_DETAIL_switches] = (double)counts[AU_N_SET_SWITCHES];
    t.v[AU_CF_F_DETAIL_set_kept] = (double)counts[AU_N_SET_KEPT];
    t.v[AU_CF_F_DETAIL_code_s] = secs[AU_T_CODE];
    t.v[AU_CF_F_DETAIL_launch_wait_s] = secs[AU_T_LAUNCH_WAIT];
    t.v[AU_CF_F_DETAIL_launch_waits] = (double)counts[AU_N_LAUNCH_WAITS];
    t.v[AU_CF_F_DETAIL_launch_wait_timeouts] = (double)counts[AU_N_LAUNCH_WAIT_TIMEOUTS];
    au_timing(&t);
    t = (au_cf_timing){.rec = AU_CF_REC_DRIVER};
    t.v[AU_CF_F_DRIVER_driver_s] = secs[AU_T_DRIVER];
    t.v[AU_CF_F_DRIVER_decode_s] = secs[AU_T_DECODE];
    t.v[AU_CF_F_DRIVER_eval_s] = secs[AU_T_EVAL];
    t.v[AU_CF_F_DRIVER_write_s] = secs[AU_T_WRITE];
    t.v[AU_CF_F_DRIVER_reinit_s] = secs[AU_T_REINIT];
    t.v[AU_CF_F_DRIVER_enter_s] = secs[AU_T_ENTER];
    t.v[AU_CF_F_DRIVER_exit_s] = secs[AU_T_EXIT];
    au_timing(&t);
    if (counts[AU_N_REPLAYED] > 0) {
        t = (au_cf_timing){.rec = AU_CF_REC_REPLAY};
        t.v[AU_CF_F_REPLAY_launches] = (double)counts[AU_N_REPLAYED];
        t.v[AU_CF_F_REPLAY_call_s] = secs[AU_T_REPLAYED];
        au_timing(&t);
    }
    t = (au_cf_timing){.rec = AU_CF_REC_ENABLE};
    t.v[AU_CF_F_ENABLE_enables] = (double)counts[AU_N_ENABLES];
    t.v[AU_CF_F_ENABLE_sets_s] = secs[AU_T_SETS];
    t.v[AU_CF_F_ENABLE_enable_s] = secs[AU_T_ENABLE];
    t.v[AU_CF_F_ENABLE_config_s] = secs[AU_T_CONFIG];
    t.v[AU_CF_F_ENABLE_start_s] = secs[AU_T_START];
    t.v[AU_CF_F_ENABLE_disables] = (double)counts[AU_N_DISABLES];
    t.v[AU_CF_F_ENABLE_disable_s] = secs[AU_T_DISABLE];
    au_timing(&t);
    t = (au_cf_timing){.rec = AU_CF_REC_EARLY};
    pthread_mutex_lock(&au_g.early_lock);
    t.v[AU_CF_F_EARLY_setups] = (double)counts[AU_N_EARLY_SETUPS];
    t.v[AU_CF_F_EARLY_s] = secs[AU_T_EARLY];
    t.v[AU_CF_F_EARLY_wait_s] = secs[AU_T_EARLY_WAIT];
    pthread_mutex_unlock(&au_g.early_lock);
    au_timing(&t);
}
