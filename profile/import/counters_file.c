/*
 * counters_file.c - the contract of counters_file.h: the line kinds, the environment's names and
 * the timing records, each expanded from its list; the single-pass reader of a counters file.
 */
#include "counters_file.h"

#include "atomutil/model.h"
#include "atomutil/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *word;
    int relay;
} kinds[AU_CF_NKINDS] = {
#define AU_CF_KIND(name, word, relay) {word, relay},
#include "cf_kinds.def"
#undef AU_CF_KIND
};

const char *au_cf_word(au_cf_kind kind)
{
    return (unsigned)kind < AU_CF_NKINDS ? kinds[kind].word : NULL;
}

int au_cf_relay(au_cf_kind kind)
{
    return (unsigned)kind < AU_CF_NKINDS ? kinds[kind].relay : 0;
}

static const struct {
    const char *word, *hint;
} errcats[AU_CF_NERRCATS] = {
#define AU_CF_ERRCAT(name, word, hint) {word, hint},
#include "cf_errors.def"
#undef AU_CF_ERRCAT
};

const char *au_cf_errcat_word(au_cf_errcat cat)
{
    return (unsigned)cat < AU_CF_NERRCATS ? errcats[cat].word : "";
}

int au_cf_errcat_of(const char *text, const char **hint)
{
    for (int c = 0; c < AU_CF_NERRCATS; ++c) {
        size_t wl = strlen(errcats[c].word);
        if (strncmp(text, errcats[c].word, wl) == 0 && text[wl] == ':') {
            *hint = errcats[c].hint;
            return c;
        }
    }
    *hint = "";
    return -1;
}

int au_cf_head(char *buf, size_t size, long pid, au_cf_kind kind)
{
    const char *w = au_cf_word(kind);
    return snprintf(buf, size, AU_CF_TAG "%ld %s: ", pid, w ? w : "info");
}

au_cf_kind au_cf_classify(char *line, long lineno, au_cf_line *l)
{
    static const size_t tag = sizeof AU_CF_TAG - 1;
    memset(l, 0, sizeof *l);
    l->line = line;
    l->lineno = lineno;
    l->kind = AU_CF_OTHER;
    if (line[0] == '"')
        return l->kind = AU_CF_ROW;
    char *sp;
    if (strncmp(line, AU_CF_TAG, tag) != 0 || (sp = strchr(line + tag, ' ')) == NULL)
        return l->kind;
    char *level = sp + 1;
    for (int k = 0; k < AU_CF_NKINDS; ++k) {
        size_t wl = strlen(kinds[k].word);
        if (strncmp(level, kinds[k].word, wl) == 0 && level[wl] == ':' && level[wl + 1] == ' ') {
            l->level = level;
            l->text = level + wl + 2;
            return l->kind = (au_cf_kind)k;
        }
    }
    return l->kind;
}

int au_cf_line_relay(const au_cf_line *l)
{
    if (l->kind == AU_CF_INFO && strncmp(l->text, AU_CF_SELECTION, strlen(AU_CF_SELECTION)) == 0)
        return 1; /* the selection's count is said like a warning: what the report leaves out */
    return au_cf_relay(l->kind);
}

typedef struct cf_reader {
    au_cf_fn fn;
    void *ud;
} cf_reader;

void au_cf_each_line(char *buf, au_cf_fn fn, void *ud)
{
    long lineno = 0;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        au_cf_line l;
        au_cf_classify(line, ++lineno, &l);
        l.len = nl ? (size_t)(nl - line) : strlen(line);
        if (fn(&l, ud))
            break;
        line = nl ? nl + 1 : NULL;
    }
}

/* One pass over the file's lines, classified, until fn says stop. */
static int cf_parse(const char *name, char *buf, size_t len, void *out)
{
    (void)name, (void)len;
    const cf_reader *r = out;
    au_cf_each_line(buf, r->fn, r->ud);
    return AU_OK;
}

int au_cf_read(const char *path, size_t max, au_cf_fn fn, void *ud)
{
    cf_reader r = {fn, ud};
    return au_parse_file(path, max, cf_parse, &r);
}

/* ------------------------------------------------------------------ the environment */

static const struct {
    const char *name;
    int set;
} envs[AU_ENV_COUNT] = {
#define AU_CF_ENV(name, set, what) {"ATOMUTIL_" #name, set},
#include "cf_env.def"
#undef AU_CF_ENV
};

const char *au_cf_env_name(au_cf_env e)
{
    return (unsigned)e < AU_ENV_COUNT ? envs[e].name : NULL;
}

int au_cf_env_set_by_cli(au_cf_env e)
{
    return (unsigned)e < AU_ENV_COUNT && envs[e].set;
}

const char *au_cf_getenv(au_cf_env e)
{
    const char *v = (unsigned)e < AU_ENV_COUNT ? getenv(envs[e].name) : NULL;
    return v && *v ? v : NULL;
}

/* ------------------------------------------------------------------ timing lines */

static const char *const records[AU_CF_NRECORDS] = {
#define AU_CF_RECORD(name, word, what) word,
#define AU_CF_FIELD(rec, key, fmt, what)
#include "cf_timing.def"
#undef AU_CF_RECORD
#undef AU_CF_FIELD
};

static const struct {
    au_cf_record rec;
    const char *key, *fmt; /* fmt "": the text field */
} fields[AU_CF_NFIELDS] = {
#define AU_CF_RECORD(name, word, what)
#define AU_CF_FIELD(rec, key, fmt, what) {AU_CF_REC_##rec, #key, fmt},
#include "cf_timing.def"
#undef AU_CF_RECORD
#undef AU_CF_FIELD
};

int au_cf_timing_format(char *buf, size_t size, long pid, const au_cf_timing *t)
{
    if ((unsigned)t->rec >= AU_CF_NRECORDS)
        return -1;
    int n = au_cf_head(buf, size, pid, AU_CF_TIMING);
    n += snprintf(buf + (n < (int)size ? n : (int)size), n < (int)size ? size - (size_t)n : 0, "%s", records[t->rec]);
    for (int f = 0; f < AU_CF_NFIELDS; ++f) {
        if (fields[f].rec != t->rec || (!*fields[f].fmt && !t->text[0]))
            continue;
        char val[320];
        if (*fields[f].fmt)
            snprintf(val, sizeof val, fields[f].fmt, t->v[f]);
        else
            snprintf(val, sizeof val, "%s", t->text);
        n += snprintf(buf + (n < (int)size ? n : (int)size), n < (int)size ? size - (size_t)n : 0, " %s=%s",
                      fields[f].key, val);
    }
    n += snprintf(buf + (n < (int)size ? n : (int)size), n < (int)size ? size - (size_t)n : 0, "\n");
    return n;
}

/* The field of record rec named key[0..len), or -1. */
static int field_of(au_cf_record rec, const char *key, size_t len)
{
    for (int f = 0; f < AU_CF_NFIELDS; ++f)
        if (fields[f].rec == rec && strlen(fields[f].key) == len && strncmp(fields[f].key, key, len) == 0)
            return f;
    return -1;
}

int au_cf_timing_parse(const char *text, au_cf_timing *t)
{
    memset(t, 0, sizeof *t);
    size_t wl = strcspn(text, " ");
    int rec = -1;
    for (int r = 0; r < AU_CF_NRECORDS && rec < 0; ++r)
        if (strlen(records[r]) == wl && strncmp(records[r], text, wl) == 0)
            rec = r;
    if (rec < 0)
        return -1;
    t->rec = (au_cf_record)rec;
    for (const char *p = text + wl; *p;) {
        p += strspn(p, " ");
        size_t tl = strcspn(p, " ");
        const char *eq = memchr(p, '=', tl);
        int f = eq ? field_of(t->rec, p, (size_t)(eq - p)) : -1;
        if (f >= 0) {
            char val[320];
            size_t vl = tl - (size_t)(eq + 1 - p);
            if (vl >= sizeof val || (!*fields[f].fmt && vl >= sizeof t->text))
                return -1;
            memcpy(val, eq + 1, vl);
            val[vl] = '\0';
            if (!*fields[f].fmt)
                memcpy(t->text, val, vl + 1);
            else if (au_parse_double(val, &t->v[f]) != AU_OK)
                return -1;
            t->have[f] = 1;
        }
        p += tl;
    }
    return 0;
}

int au_cf_timing_count(const au_cf_timing *t, au_cf_field f, long long *out)
{
    if ((unsigned)f >= AU_CF_NFIELDS || !t->have[f] || !(t->v[f] >= 0) || t->v[f] > 9007199254740992.0 ||
        t->v[f] != floor(t->v[f]))
        return 0;
    *out = (long long)t->v[f];
    return 1;
}
