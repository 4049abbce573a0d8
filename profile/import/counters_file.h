/*
 * counters_file.h - the contract between the injection library and atomutil-profile, in one home:
 * the counters file of a live run (docs/live-profiling.md) holds ncu long-format CSV rows and the
 * library's own lines "==ATOMUTIL== <pid> <kind>: <text>" (cf_kinds.def), timing among them as
 * key=value fields read by name (cf_timing.def); the library is told what to do through the
 * environment (cf_env.def).  One writer (the injection library) and one single-pass reader
 * (atomutil-profile), pure C; both sides expand the same lists.
 */
#ifndef ATOMUTIL_COUNTERS_FILE_H
#define ATOMUTIL_COUNTERS_FILE_H

#include <stddef.h>

#define AU_CF_TAG "==ATOMUTIL== "

typedef enum {
#define AU_CF_KIND(name, word, relay) AU_CF_##name,
#include "cf_kinds.def"
#undef AU_CF_KIND
    AU_CF_NKINDS,
    AU_CF_ROW = AU_CF_NKINDS, /* a CSV data row (begins with '"') */
    AU_CF_OTHER,              /* the CSV header, blank or unknown lines */
} au_cf_kind;

/* An info line's text that begins with this says what the launch selection left out: a live run
 * relays it as it relays warnings. */
#define AU_CF_SELECTION "selection: "

/* The word of a tagged kind ("code"), NULL for AU_CF_ROW and AU_CF_OTHER. */
const char *au_cf_word(au_cf_kind kind);
/* How a live run passes a kind on: 2 always (a tool error), 1 unless -q, 0 never. */
int au_cf_relay(au_cf_kind kind);

typedef enum {
#define AU_CF_ERRCAT(name, word, hint) AU_CF_E_##name,
#include "cf_errors.def"
#undef AU_CF_ERRCAT
    AU_CF_NERRCATS
} au_cf_errcat;

/* The word of an error category ("permission"). */
const char *au_cf_errcat_word(au_cf_errcat cat);
/* The category an error line's text ("permission: ...") begins with, or -1; its hint in *hint. */
int au_cf_errcat_of(const char *text, const char **hint);

/* Writes "==ATOMUTIL== <pid> <word>: " into buf (snprintf's return value). */
int au_cf_head(char *buf, size_t size, long pid, au_cf_kind kind);

/* One line as the reader hands it over (NUL-terminated, in the reader's buffer, writable). */
typedef struct {
    au_cf_kind kind;
    char *line;  /* the whole line */
    char *level; /* tagged lines: what follows "<pid> " ("error: ...", "code: ..."); else NULL */
    char *text;  /* tagged lines: what follows "<word>: "; else NULL */
    long lineno; /* 1-based */
    size_t len;  /* strlen(line) (au_cf_each_line; 0 from au_cf_classify alone) */
} au_cf_line;

/* The kind of `line` (NUL-terminated), with l filled in.  A tagged line of an unknown word, or
 * one without text after "<word>:", is AU_CF_OTHER. */
au_cf_kind au_cf_classify(char *line, long lineno, au_cf_line *l);

/* Reads path (at most max bytes) once and calls fn on every line in order; fn returning nonzero
 * stops the read.  AU_OK, or < 0 with au_last_error() set when the file cannot be read. */
typedef int (*au_cf_fn)(const au_cf_line *l, void *ud);
int au_cf_read(const char *path, size_t max, au_cf_fn fn, void *ud);
/* The same pass over a NUL-terminated text in memory (each line cut at its '\n' in place, up to
 * the first NUL byte). */
void au_cf_each_line(char *buf, au_cf_fn fn, void *ud);
/* How a live run relays the line: 2 always (a tool error), 1 unless -q (warnings, and the info line
 * that says what the selection left out), 0 not at all. */
int au_cf_line_relay(const au_cf_line *l);

/* ------------------------------------------------------------------ the environment */

typedef enum {
#define AU_CF_ENV(name, set, what) AU_ENV_##name,
#include "cf_env.def"
#undef AU_CF_ENV
    AU_ENV_COUNT
} au_cf_env;

/* "ATOMUTIL_<NAME>" */
const char *au_cf_env_name(au_cf_env e);
/* 1 when atomutil-profile sets or unsets the variable for every run (cf_env.def). */
int au_cf_env_set_by_cli(au_cf_env e);
/* The variable's value, NULL when unset or empty. */
const char *au_cf_getenv(au_cf_env e);

/* ------------------------------------------------------------------ timing lines */

typedef enum {
#define AU_CF_RECORD(name, word, what) AU_CF_REC_##name,
#define AU_CF_FIELD(rec, key, fmt, what)
#include "cf_timing.def"
#undef AU_CF_RECORD
#undef AU_CF_FIELD
    AU_CF_NRECORDS
} au_cf_record;

typedef enum {
#define AU_CF_RECORD(name, word, what)
#define AU_CF_FIELD(rec, key, fmt, what) AU_CF_F_##rec##_##key,
#include "cf_timing.def"
#undef AU_CF_RECORD
#undef AU_CF_FIELD
    AU_CF_NFIELDS
} au_cf_field;

/* One timing line: its record, the numbers of its fields and its text field. */
typedef struct {
    au_cf_record rec;
    double v[AU_CF_NFIELDS];
    unsigned char have[AU_CF_NFIELDS]; /* the reader found the field (its value in v or text) */
    char text[256];                    /* the record's text field ("" when absent) */
} au_cf_timing;

/* Writes the whole line of t->rec, "\n" included: the head, the record's word and each of its
 * fields from t->v, its text field last where t->text is not empty.  snprintf's return value. */
int au_cf_timing_format(char *buf, size_t size, long pid, const au_cf_timing *t);
/* Reads a timing line's text ("<record> key=value ...", AU_CF_TIMING's l->text) into t: the record
 * and each of its fields the text names, in any order; an unknown key is passed over.  0, or -1
 * when the record is unknown or a field's value is not a finite number (the line is not read). */
int au_cf_timing_parse(const char *text, au_cf_timing *t);
/* Field f was read and its value is a whole number >= 0 (a count). */
int au_cf_timing_count(const au_cf_timing *t, au_cf_field f, long long *out);

#endif
