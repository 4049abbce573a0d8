/*
 * atomutil/advisor.h - what each cure of shared-atomic contention would buy a launch: the unit's
 * busy time after the cure, priced with the table as the launch itself is, and the kernel time it
 * would leave, with a range (docs/advisor.md; part of atomutil/model.h).
 */
#ifndef ATOMUTIL_ADVISOR_H
#define ATOMUTIL_ADVISOR_H

#ifdef __cplusplus
extern "C" {
#endif

/* The cures, each a change to the kernel's code or data (docs/advisor.md, "Cures"). */
typedef enum au_cure {
    AU_CURE_ONE_PASS = 0, /* no two lanes of a warp in one bank: one pass per job */
    AU_CURE_HASHED,       /* bins hashed or rotated: lanes in random banks */
    AU_CURE_REPLICATE_2,  /* R copies with padding, lanes spread over them */
    AU_CURE_REPLICATE_4,
    AU_CURE_REPLICATE_8,
    AU_CURE_REPLICATE_32,
    AU_CURE_AGGREGATE, /* warp pre-aggregation: one job per warp and distinct word */
    AU_CURE_POPC,      /* increments whose result is unused (ATOMS.POPC.INC): same-word lanes fold */
    AU_CURE_NATIVE,    /* CAS loops replaced by a native atomic */
    AU_CURE_COUNT
} au_cure;

/* "one_pass", "hashed", "replicate_2", ... (the CSV's and JSON's names) */
const char *au_cure_name(au_cure c);
/* the cure in a few words, for the human report */
const char *au_cure_words(au_cure c);

/* Expected most lanes in one of `banks` banks when `lanes` lanes pick banks uniformly at random
 * (balls into bins): the passes of a job whose lanes fall in random banks. */
double au_random_max_load(int lanes, int banks);
/* au_random_max_load(32, 32): a full warp in random banks, the passes the hashed cure leaves
 * (a constant: the sum takes a million operations, too many to repeat per launch) */
#define AU_RANDOM_MAX_LOAD_32 3.532940993304805

/* A CAS loop of the compiler's (ATOMS.CAST.SPIN) whose warps' lanes fall on distinct words in
 * random banks, without other warps' races (docs/advisor.md, "CAS loops with their entries"): each
 * attempt settles one lane per bank in one pass of its CAS, so a warp with at most M lanes in one
 * bank makes M attempts, whose loads take M, M - 1, ..., 1 wavefronts.  64-bit words: each
 * half-warp settles one lane per bank pair (16 lanes over 16), with loads and a CAS pass of its
 * own while it has lanes left.  Expected *attempts per entry, the load's wavefronts per attempt
 * and the CAS's passes per attempt, for words of width bits (32 or 64; else 0). */
int au_hashed_loop(int width, double *attempts, double *load_wf, double *cas_passes);
/* au_hashed_loop's figures (constants for the same reason as AU_RANDOM_MAX_LOAD_32) */
#define AU_HASHED_LOOP_32_ATTEMPTS   AU_RANDOM_MAX_LOAD_32
#define AU_HASHED_LOOP_32_LOAD_WF    2.345320957274436
#define AU_HASHED_LOOP_32_CAS_PASSES 1.0
#define AU_HASHED_LOOP_64_ATTEMPTS   3.453389875636610
#define AU_HASHED_LOOP_64_LOAD_WF    3.796330955530523
#define AU_HASHED_LOOP_64_CAS_PASSES 1.782739226191139

/* One cure priced for one launch.  Cycles are per SM (as au_result's), times in the launch's
 * duration unit (ns) where it has one, else 0. */
typedef struct au_whatif {
    int applies;             /* 0: the cure changes nothing here, or the launch cannot be priced */
    double busy;             /* B' after the cure (point) */
    double busy_lo, busy_hi; /* its range (the same where the counters settle it) */
    double active;           /* T' (point), active cycles */
    double active_lo, active_hi;
    double time_ns, time_lo_ns, time_hi_ns; /* the duration scaled by T'/T (0: no duration) */
} au_whatif;

/* A launch's cures. */
typedef struct au_advice {
    au_whatif w[AU_CURE_COUNT];
    int best;                 /* the cure with the shortest point time (-1: none applies) */
    double saves;             /* T - T' of the best cure, active cycles per SM (0: none) */
    double saves_ns;          /* its share of the duration (0: no duration) */
    double entry_load_cycles; /* a CAS-loop entry's loads' wait that its pass cures keep
                               * (au_entry_load_cycles; 0: not priced) */
    int entry_loads_unpriced; /* CAS loops with entries whose loads are not priced: AU_ENTRY_NO_LATENCY
                               * (the table lacks its load latencies), AU_ENTRY_NO_COUNTERS (the
                               * launch lacks the L2-hit and DRAM counters); 0 otherwise */
    int match_unpriced;       /* the aggregate cure applies but its MATCH.ANY is not priced: the table
                               * has no match_any_cycles_per_value */
} au_advice;

enum { AU_ENTRY_NO_LATENCY = 1, AU_ENTRY_NO_COUNTERS = 2 };

/* The cure to name first among times t[AU_CURE_COUNT] against the time now: the shortest, where a
 * later cure in the list must be shorter by more than 1 % of now to pass an earlier one (the list
 * runs from the simplest cure); -1 where none saves at least 0.5 % of now. */
int au_best_cure(const double *t, double now);

/* The distinct words of a warp's job after the aggregate cure (docs/advisor.md, "Warp aggregation's
 * own work"): a job of a passes holds at least 32 / a of them (a bank holds at most a of the
 * lanes) and at most 32, which the counters cannot tell apart; d[0] the point, the middle of that
 * range on a log scale, d[1] and d[2] its ends. */
void au_aggregate_words(double a, double d[3]);

/* The loads per job that hit in L2 and wait behind the unit's queue in the time model: sectors /
 * jobs / 4 (a coalesced warp load fills one 128-byte line), at most 3; 0 without either
 * (docs/advisor.md, "Kernel time"). */
double au_l2_loads_per_job(double l2_hit_sectors, double jobs);
/* Cycles a warp waits per CAS-loop entry for the entry's loads: the launch's L2-hit and DRAM
 * loads per entry at the table's load latencies (0 where the table, the entries or both load
 * counters are missing; docs/advisor.md, "CAS loops with their entries"). */
double au_entry_load_cycles(const au_table *t, const au_counters *c);

#ifdef __cplusplus
}
#endif

#endif
