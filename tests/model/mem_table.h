/*
 * mem_table.h - a service-time table built in memory for the model's unit tests: an empty table
 * of an H100 (132 SMs, 64 warps), and rows added one sample each.  Needs check.h first.
 */
#ifndef ATOMUTIL_TEST_MEM_TABLE_H
#define ATOMUTIL_TEST_MEM_TABLE_H

#include "atomutil/model.h"

#include <string.h>

/* S(n, a, c) = s for family fam */
static void mem_put(au_table *t, const char *fam, int n, int a, int c, double s)
{
    au_sample x = {s, s, s, 0};
    CHECK_EQ_INT(au_table_add(t, fam, n, a, c, &x), AU_OK);
}

/* An empty provisional table of an H100 with the given load latencies and MATCH.ANY cost per
 * value, throughput and latency (0: not measured); NULL when it cannot be made. */
static inline au_table *mem_table_new_full(double l2_hit_cycles, double dram_cycles, double match, double match_lat)
{
    au_table_meta m;
    memset(&m, 0, sizeof m);
    m.l2_hit_latency_cycles = l2_hit_cycles;
    m.dram_latency_cycles = dram_cycles;
    m.match_any_cycles_per_value = match;
    m.match_any_latency_cycles_per_value = match_lat;
    strcpy(m.gpu_name, "NVIDIA H100 80GB HBM3");
    m.cc_major = 9;
    m.sm_count = 132;
    m.max_warps_per_sm = 64;
    strcpy(m.method, "steady");
    strcpy(m.status, "provisional");
    au_table *t = NULL;
    return au_table_new(&m, &t) == AU_OK ? t : NULL;
}

static inline au_table *mem_table_new_lat(double l2_hit_cycles, double dram_cycles)
{
    return mem_table_new_full(l2_hit_cycles, dram_cycles, 0, 0);
}

/* ... without them */
static inline au_table *mem_table_new(void)
{
    return mem_table_new_lat(0, 0);
}

#endif
