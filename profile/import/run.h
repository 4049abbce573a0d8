/*
 * run.h - one counters file (or Nsight Compute export) read once, in one pass, into all that
 * atomutil-profile takes from it: the launches (appended to a report), the kernels' code ("code:"
 * lines), the CUDA graphs ("graph:" lines), the diagnostics a live run relays, the injection
 * library's timing summed, and -k's module filter (docs/live-profiling.md).  A live run, the
 * report, the opcodes and --timing all use this one read.
 */
#ifndef ATOMUTIL_RUN_H
#define ATOMUTIL_RUN_H

#include "atomutil/model.h"
#include "counters_file.h"

#include <stdint.h>

/* The injection library's own timing, summed over its processes and contexts, from the timing
 * lines of records setup and launches (cf_timing.def; docs/cli.md, --timing).
 * setups / launch_lines: how many such lines there were (0: none, the figures unknown);
 * setups_beside: of the setups, those made beside the program (not on its path).
 * setup_bad / launch_bad: "FILE:LINE: why" of the first line whose figures would make an
 * implausible sum (then that phase's figures are unknown); "" if none. */
typedef struct au_cf_sums {
    int setups, setups_beside;
    double setup_s;
    int launch_lines;
    long long launches;
    double callbacks_s, module_loads_s;
    long long replayed; /* launches measured in several passes (kernel replay), and */
    double replay_s;    /* ... the seconds inside their driver calls (record replay) */
    char setup_bad[512], launch_bad[512];
} au_cf_sums;

/* A "code:" line: a kernel (demangled, as the rows name it), its mangled name and its cubin's CRC
 * (BASE.cubins/<crc>.cubin).  One per kernel: a later line of the same kernel is left out. */
typedef struct au_cf_code {
    char *demangled, *mangled;
    uint32_t crc;
} au_cf_code;

/* A "graph:" line: the row (process, launch id) of a graph launch and its kernels' mangled names. */
typedef struct au_cf_graph {
    long long pid, id;
    char **mangled;
    size_t n;
} au_cf_graph;

/* A line a live run relays (au_cf_line_relay), each text once, in the file's order. */
typedef struct au_cf_diag {
    au_cf_kind kind;
    int relay;        /* 2: a tool error, always said; 1: unless -q */
    char *level;      /* "<kind>: <text>" as written */
    const char *text; /* inside level: what follows "<kind>: " */
} au_cf_diag;

typedef struct au_cf_run {
    int status;       /* AU_OK, or why the launches could not be read (error: the message) */
    char error[1024]; /* "FILE:LINE: what is wrong", as au_last_error() said it */
    long rows;        /* CSV data rows: lines that begin with '"', the header not counted */
    au_cf_code *code;
    size_t ncode, code_cap;
    au_cf_graph *graphs;
    size_t ngraphs, graphs_cap;
    au_cf_diag *diags;
    size_t ndiags, diags_cap;
    au_cf_sums timing;
    char filter[256]; /* -k's text where the injection library kept only the modules that name it
                         and left others out (its modules timing line); "" otherwise */
    int ncu_report;   /* the file is an Nsight Compute report, read as ncu's raw page of it */
    int ncu_raw;      /* its rows are Nsight Compute's raw page (a report's, or a raw page export) */
    int ncu_opcodes;  /* its raw page has a column of executions per opcode (AU_NCU_OPCODE_METRIC,
                         ncu_opcodes.h: a report made with --set full, or its export) */
} au_cf_run;

/* Reads path (named so in messages) once: its launches appended to rep with au_launch.file = file
 * (rep->source set to path), the rest into *run.  Returns run->status: AU_OK, or < 0 when the file
 * cannot be read or its launches are malformed (what the other lines said is kept as far as the
 * file could be read).  Free run with au_cf_run_free. */
int au_cf_run_read(const char *path, unsigned file, au_report *rep, au_cf_run *run);
void au_cf_run_free(au_cf_run *run);

#endif
