/*
 * select.c - which launches are measured, with Nsight Compute's meanings: a launch is a candidate
 * when its kernel's demangled name matches ATOMUTIL_KERNEL_REGEX (-k) and, with
 * ATOMUTIL_PROFILE_FROM_START=off, it runs between cuProfilerStart and cuProfilerStop; the first
 * ATOMUTIL_LAUNCH_SKIP candidates are skipped, at most ATOMUTIL_LAUNCH_COUNT are measured, and at
 * most ATOMUTIL_LAUNCHES_PER_KERNEL of each kernel.  Decided at the launch's entry from the kernel's
 * cached entry, so that an unselected launch costs a table lookup and runs with the profiler
 * stopped (docs/live-profiling.md, "Selection").
 */
#include "select.h"

#include "atomutil/select.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int asked; /* any selection option given */
    int bad;   /* an option could not be read: nothing is measured */
    int has_re;
    regex_t re;
    char literal[256]; /* au_select_literal's answer, decided at init ("" for none); a copy, since
                        * the program may change its environment */
    au_selector rule;  /* skip, count, per kernel: the rule atomutil-profile applies to imports */
    int from_start, in_range;
    long long seen;
} sel = {.rule = {.skip = 0, .count = -1, .per_kernel = -1}, .from_start = 1, .in_range = 1};

/* A count option: -1 when unset; sets sel.bad when it is not a non-negative integer. */
static long long count_env(au_cf_env e, long long unset)
{
    const char *v = au_cf_getenv(e), *name = au_cf_env_name(e);
    if (!v)
        return unset;
    sel.asked = 1;
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    if (*end || n < 0) {
        au_error(AU_CF_E_SELECTION, "%s='%.40s' is not a count: no launch is measured", name, v);
        sel.bad = 1;
    }
    return n;
}

/* Words that a demangled name spells out but its mangled form does not (builtin types, keywords,
 * std's abbreviations): a text inside one of them may match a name whose mangled form lacks it. */
static const char *const spelled[] = {
    "void",           "bool",     "char",      "wchar_t",      "char8_t",     "char16_t",      "char32_t",
    "short",          "int",      "long",      "float",        "double",      "unsigned",      "signed",
    "const",          "volatile", "restrict",  "__int128",     "__float128",  "true",          "false",
    "operator",       "lambda",   "anonymous", "namespace",    "unnamed",     "decltype",      "auto",
    "nullptr",        "std",      "allocator", "basic_string", "char_traits", "basic_istream", "basic_ostream",
    "basic_iostream", "string",   "istream",   "ostream",      "iostream",    "sizeof",        "alignof",
    "noexcept",       "template", "typename",  "enum",         "struct",      "union",         "class",
    "__restrict__",   "_Float16", "_Float32",  "_Float64",     "__bf16",      "__fp16",        "__ieee128"};

/* re when every name it matches holds it verbatim in its mangled form too; else NULL */
static const char *literal_of(const char *re)
{
    if (!re || strlen(re) < 3 || strlen(re) >= sizeof sel.literal)
        return NULL;
    int letter = 0;
    for (const char *p = re; *p; ++p) {
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return NULL;
        letter |= isalpha((unsigned char)*p) || *p == '_';
    }
    if (!letter)
        return NULL; /* digits alone: a lambda's "#2" is "0_" mangled */
    for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; ++i)
        if (strstr(spelled[i], re))
            return NULL;
    return re;
}

void au_select_init(void)
{
    if (sel.has_re) { /* made again (tests/inject): the earlier regex is freed */
        regfree(&sel.re);
        sel.has_re = 0;
    }
    const char *re = au_cf_getenv(AU_ENV_KERNEL_REGEX);
    if (re) {
        sel.asked = 1;
        if (regcomp(&sel.re, re, REG_EXTENDED | REG_NOSUB) != 0) {
            au_error(AU_CF_E_SELECTION, "%s '%.80s' is not a regular expression: no launch is measured",
                     au_cf_env_name(AU_ENV_KERNEL_REGEX), re);
            sel.bad = 1;
        } else {
            sel.has_re = 1;
        }
    }
    /* the module-load callback asks at every load: decided once (getenv is not read again) */
    const char *lit = sel.has_re ? literal_of(re) : NULL;
    snprintf(sel.literal, sizeof sel.literal, "%s", lit ? lit : "");
    sel.rule.skip = count_env(AU_ENV_LAUNCH_SKIP, 0);
    sel.rule.count = count_env(AU_ENV_LAUNCH_COUNT, -1);
    sel.rule.per_kernel = count_env(AU_ENV_LAUNCHES_PER_KERNEL, -1);
    const char *fs = au_cf_getenv(AU_ENV_PROFILE_FROM_START);
    if (fs) {
        sel.asked = 1;
        if (strcmp(fs, "off") == 0)
            sel.from_start = sel.in_range = 0;
        else if (strcmp(fs, "on") != 0) {
            au_error(AU_CF_E_SELECTION, "%s='%.40s' is neither on nor off: no launch is measured",
                     au_cf_env_name(AU_ENV_PROFILE_FROM_START), fs);
            sel.bad = 1;
        }
    }
}

const char *au_select_literal(void)
{
    return *sel.literal ? sel.literal : NULL;
}

int au_select_exhausted(void)
{
    return sel.bad || au_selector_exhausted(&sel.rule);
}

/* The common rule once the name test is done (atomutil/select.h): skip, count, per-kernel cap, the
 * kernel's count kept in its cache entry. */
static int select_candidate(au_kernel_info *k)
{
    int take = au_selector_take(&sel.rule, k ? k->selected : -1);
    if (take && k)
        k->selected++;
    return take;
}

/* What every launch goes through first: 1 measure (no selection asked), 0 not (outside the
 * profiler range, or nothing more to select), -1 decide by its kernel. */
static int select_first(void)
{
    sel.seen++;
    if (!sel.asked) {
        sel.rule.selected++;
        return 1;
    }
    return !sel.in_range || au_select_exhausted() ? 0 : -1;
}

int au_select_launch(const void *func, const char *mangled)
{
    int first = select_first();
    if (first >= 0)
        return first;
    au_kernel_info *k = au_kernel_info_of(func);
    if (sel.has_re) {
        int match = k ? k->match : 0;
        if (match == 0) {
            char *name = au_kernel_name(func, mangled);
            match = name && regexec(&sel.re, name, 0, NULL, 0) == 0 ? 1 : -1;
            free(name);
            if (k)
                k->match = (signed char)match;
        }
        if (match < 0)
            return 0;
    }
    return select_candidate(k);
}

int au_select_graph(const void *key, const au_graph_kernels *k)
{
    int first = select_first();
    if (first >= 0)
        return first;
    if (sel.has_re) { /* a graph is a candidate when one of its kernels matches */
        int match = 0;
        for (size_t i = 0; k && i < k->n && !match; ++i) {
            char *name = au_demangle(k->names[i]);
            match = name && regexec(&sel.re, name, 0, NULL, 0) == 0;
            free(name);
        }
        if (!match)
            return 0;
    }
    return select_candidate(au_kernel_info_of(key));
}

void au_select_profiler(int start)
{
    if (!sel.from_start)
        sel.in_range = start;
}

void au_select_report(void)
{
    if (sel.asked)
        au_diag(AU_CF_INFO, AU_CF_SELECTION "%lld of %lld launches selected for measurement", sel.rule.selected,
                sel.seen);
}
