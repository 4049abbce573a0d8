/*
 * selection.c - the launch selection of an import (selection.h): the rule is the injection
 * library's (au_selector, atomutil/select.h), so that --import -k X selects what a live run with
 * -k X measures.  Each kernel name is looked up once per launch in a hash of the names, which keeps
 * the regex's answer and the launches selected of that kernel in the file so far.
 */
#include "selection.h"

#include "atomutil/util.h"

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "atomutil-profile";

/* One kernel name: the regex's answer (1 match, -1 not, 0 not asked yet) and its launches selected
 * in file `file` so far. */
typedef struct {
    const char *name; /* the first launch's kernel: launches are freed only after the selection */
    uint64_t hash;
    signed char match;
    unsigned file;
    long long selected;
} name_slot;

typedef struct {
    name_slot *s;
    size_t cap, used; /* cap a power of two, at most half used */
} name_map;

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static int map_grow(name_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    name_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < m->cap; ++i) {
        if (!m->s[i].name)
            continue;
        size_t h = (size_t)m->s[i].hash & (ncap - 1);
        while (ns[h].name)
            h = (h + 1) & (ncap - 1);
        ns[h] = m->s[i];
    }
    free(m->s);
    m->s = ns;
    m->cap = ncap;
    return 0;
}

/* The slot of name, added (not matched yet, none selected in `file`) where new; NULL out of memory. */
static name_slot *map_get(name_map *m, const char *name, unsigned file)
{
    if (m->used * 2 >= m->cap && map_grow(m) != 0)
        return NULL;
    uint64_t hash = name_hash(name);
    size_t h = (size_t)hash & (m->cap - 1);
    while (m->s[h].name && (m->s[h].hash != hash || strcmp(m->s[h].name, name) != 0))
        h = (h + 1) & (m->cap - 1);
    name_slot *sl = &m->s[h];
    if (!sl->name) {
        *sl = (name_slot){name, hash, 0, file, 0};
        m->used++;
    }
    if (sl->file != file) { /* the per-kernel cap counts in each file */
        sl->file = file;
        sl->selected = 0;
    }
    return sl;
}

/* keep[i - from]: whether launch i is selected. */
static int decide(const au_report *rep, size_t from, const regex_t *re, const long limits[3], unsigned char *keep)
{
    name_map m = {NULL, 0, 0};
    au_selector sel;
    unsigned file = 0;
    int rc = 0;
    for (size_t i = from; i < rep->count && rc == 0; ++i) {
        const au_launch *l = &rep->launches[i];
        if (i == from || l->file != file) {
            file = l->file;
            au_selector_init(&sel, limits[0], limits[1], limits[2]);
        }
        name_slot *k = map_get(&m, l->kernel, l->file);
        if (!k) {
            rc = -1;
            break;
        }
        if (re && k->match == 0)
            k->match = regexec(re, l->kernel, 0, NULL, 0) == 0 ? 1 : -1;
        keep[i - from] = (!re || k->match > 0) && au_selector_take(&sel, k->selected);
        k->selected += keep[i - from];
    }
    free(m.s);
    return rc;
}

int au_selection_apply(au_report *rep, size_t from, const char *regex, long skip, long count, long per_kernel)
{
    regex_t re;
    if (regex) {
        int e = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB);
        if (e) {
            char msg[256];
            regerror(e, &re, msg, sizeof msg);
            fprintf(stderr, "%s: --kernel: invalid regular expression '%s': %s\n", prog, regex, msg);
            return -1;
        }
    }
    const long limits[3] = {skip, count, per_kernel};
    unsigned char *keep = calloc(rep->count > from ? rep->count - from : 1, 1);
    int rc = keep && decide(rep, from, regex ? &re : NULL, limits, keep) == 0 ? 0 : -2;
    if (rc == 0) {
        size_t n = from;
        for (size_t i = from; i < rep->count; ++i) {
            if (keep[i - from])
                rep->launches[n++] = rep->launches[i];
            else
                free(rep->launches[i].kernel);
        }
        rep->count = n;
    } else {
        fprintf(stderr, "%s: out of memory\n", prog);
    }
    free(keep);
    if (regex)
        regfree(&re);
    return rc;
}
