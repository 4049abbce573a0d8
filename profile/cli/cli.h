/*
 * cli.h - what the files of atomutil-profile share: the exit statuses (docs/cli.md) and the
 * command line as options.c parses it.
 */
#ifndef ATOMUTIL_PROFILE_CLI_H
#define ATOMUTIL_PROFILE_CLI_H

#include "atomutil/model.h"

/* Exit statuses: documented in docs/cli.md and usage(). */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,     /* I/O error, out of memory */
    EXIT_USAGE = 2,    /* bad command line */
    EXIT_BADINPUT = 3, /* malformed table or export */
    EXIT_NOTABLE = 4,  /* no table fits, or the table lacks the family */
    EXIT_NOLAUNCH = 5, /* the export has no launch that can be evaluated */
};

/* The command line, parsed (parse_options).  args: the files of -i/--import (nimport options) and
 * the operands, in the order given (with --compare its two files); program: PROGRAM and its
 * arguments where live. */
typedef struct {
    const char *table_path, *family, *regex;
    char *out_base; /* -o, shortened by output_base() */
    long skip, count, per_kernel;
    const char *from_start; /* --profile-from-start: "on", "off" or NULL */
    int quiet, metrics, compare, family_given, no_cache, timing_on, live;
    int trace;   /* ATOMUTIL_TEST_TRACE=1 (tests/cli): the files read and the evaluations said */
    int opcodes; /* -1: by default (skipped where the code is missing), 0: off, 1: required */
    au_format fmt;
    au_view view;        /* --summary, --per-launch */
    unsigned name_width; /* --name-width */
    int wide;            /* --wide */
    au_thresholds thr;
    au_busy_mode busy;
    au_kernel_pair pairs[AU_MAX_PAIRS]; /* --pair KA=KB[:CURE] (--compare); names point into argv */
    size_t npairs;
    const char **args; /* argc of them at most; freed by main */
    int nargs, nimport;
    char **program;
} cli_options;

/* The whole command line into *o.  -1 to go on, or the exit status (after its message; --help,
 * --version and --print-ncu-metrics print theirs to stdout).  o->args is malloc'ed (free it). */
int au_options_parse(int argc, char **argv, cli_options *o);

/* The report's file extension ("txt", "csv", "json"). */
const char *au_options_ext(au_format fmt);

#endif
