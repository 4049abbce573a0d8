/*
 * outname.c - expands the patterns of `-o BASE` (outname.h): a torchrun or mpirun job names one
 * report per rank with -o 'rank%q{RANK}' or -o 'run-%p'.  Every '%' starts a sequence; one that is
 * not known is a usage error rather than a file name with a stray '%'.
 */
#include "outname.h"

#include "cli.h"

#include "atomutil/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "atomutil-profile";

/* Appends n bytes of s to the growing string *out (*len used, *cap allocated); -1 out of memory. */
static int append(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*len + n + 1) * 2;
        char *p = realloc(*out, nc);
        if (!p)
            return -1;
        *out = p;
        *cap = nc;
    }
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = '\0';
    return 0;
}

/* The value of %q{ENV} at p (after "%q"): *value, *used the bytes after "%q"; -1 after the error. */
static int env_value(const char *pattern, const char *p, const char **value, size_t *used)
{
    const char *close = *p == '{' ? strchr(p, '}') : NULL;
    if (!close || close == p + 1) {
        fprintf(stderr, "%s: -o %s: %%q needs a variable's name in braces, %%q{NAME}\n", prog, pattern);
        return -1;
    }
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
    if (!(*value = getenv(name))) {
        fprintf(stderr, "%s: -o %s: environment variable %s is not set (%%q{%s})\n", prog, pattern, name, name);
        return -1;
    }
    *used = (size_t)(close - p) + 1;
    return 0;
}

char *au_outname_expand(const char *pattern, long pid, int *usage_error)
{
    char *out = NULL, num[32];
    size_t len = 0, cap = 0;
    int bad = 0, rc = append(&out, &len, &cap, "", 0);
    for (const char *p = pattern; *p && rc == 0 && !bad;) {
        const char *pct = strchr(p, '%');
        size_t lit = pct ? (size_t)(pct - p) : strlen(p);
        if ((rc = append(&out, &len, &cap, p, lit)) != 0 || !pct)
            break;
        p = pct + 2;
        const char *value = NULL;
        size_t used = 0;
        if (pct[1] == '%')
            value = "%";
        else if (pct[1] == 'p')
            snprintf(num, sizeof num, "%ld", pid), value = num;
        else if (pct[1] == 'q')
            bad = env_value(pattern, p, &value, &used) != 0;
        else if (!pct[1]) {
            fprintf(stderr, "%s: -o %s: a '%%' at the end (%%%% writes a '%%')\n", prog, pattern);
            bad = 1;
        } else {
            fprintf(stderr, "%s: -o %s: unknown pattern '%%%c' (%%p, %%q{NAME} and %%%% are known)\n", prog, pattern,
                    pct[1]);
            bad = 1;
        }
        if (!bad)
            rc = append(&out, &len, &cap, value, strlen(value));
        p += used;
    }
    if (usage_error)
        *usage_error = bad;
    if (rc != 0 && !bad)
        fprintf(stderr, "%s: out of memory\n", prog);
    if (rc != 0 || bad) {
        free(out);
        return NULL;
    }
    return out;
}

int au_outname_has_pid(const char *pattern)
{
    for (const char *p = strchr(pattern, '%'); p; p = strchr(p + 2, '%')) {
        if (p[1] == 'p')
            return 1;
        if (!p[1])
            break;
    }
    return 0;
}

int au_outname_base(const char *pattern, long pid, char *base, size_t size)
{
    if (pid < 0 && au_outname_has_pid(pattern)) {
        fprintf(stderr, "%s: -o %s: %%p: the report's first launch has no process id (no 'Process ID' column)\n", prog,
                pattern);
        return EXIT_USAGE;
    }
    int usage;
    char *x = au_outname_expand(pattern, pid, &usage);
    if (!x)
        return usage ? EXIT_USAGE : EXIT_FAIL;
    au_strlcpy(base, x, size);
    free(x);
    return -1;
}
