/*
 * abi.c - libatomutil.so's versions, error slot, tables and metric list (abi.h).  A table is found
 * as atomutil-profile finds it (profile/cli/tables.c, built into this library too), with the
 * tables installed beside this library first, since the program that loads it (python3, ncu) is
 * not atomutil's.
 */
#define _GNU_SOURCE /* dladdr */
#include "abi_internal.h"

#include "ncu_import.h"
#include "tables.h"

#include "atomutil/util.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef ATOMUTIL_ABI_TABLES_RELPATH
#define ATOMUTIL_ABI_TABLES_RELPATH "../../share/atomutil/tables"
#endif

au_abi_locale au_abi_locale_begin(void)
{
    au_abi_locale l = {(locale_t)0, (locale_t)0};
    l.c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (l.c)
        l.old = uselocale(l.c);
    return l;
}

void au_abi_locale_end(au_abi_locale l)
{
    if (l.c) {
        uselocale(l.old);
        freelocale(l.c);
    }
}

int au_abi_fail(int status, char **error)
{
    if (error)
        *error = strdup(au_last_error());
    return status;
}

AU_ABI_EXPORT int au_abi_version(void)
{
    return AU_ABI_VERSION;
}

AU_ABI_EXPORT const char *au_abi_atomutil_version(void)
{
    return AU_VERSION_STRING;
}

AU_ABI_EXPORT void au_abi_free(char *s)
{
    free(s);
}

static int wrap(au_table *t, unsigned flags, au_abi_table **out, char **error)
{
    if (!(*out = calloc(1, sizeof **out))) {
        au_table_free(t);
        return au_abi_fail(au_set_error(AU_E_NOMEM, "out of memory"), error);
    }
    (*out)->t = t;
    (*out)->flags = flags;
    return AU_ABI_OK;
}

static int table_load(const char *path, au_abi_table **out, char **error)
{
    if (error)
        *error = NULL;
    if (!out || !path || !*path)
        return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_table_load: no path"), error);
    *out = NULL;
    au_table *t = NULL;
    int st = au_table_load(path, &t);
    if (st != AU_OK) /* an export given as a table: says so, as atomutil-profile --table does */
        return au_abi_fail(au_ncu_table_error(path, st), error);
    return wrap(t, 0, out, error);
}

/* The tables folder installed beside this library, "" when it has none. */
static void tables_beside_library(char *dir, size_t size)
{
    Dl_info info;
    struct stat st;
    dir[0] = '\0';
    if (!dladdr((void *)au_abi_version, &info) || !info.dli_fname || !strchr(info.dli_fname, '/'))
        return;
    char lib[PATH_MAX], rel[PATH_MAX + 64];
    au_strlcpy(lib, info.dli_fname, sizeof lib);
    *strrchr(lib, '/') = '\0';
    int n = snprintf(rel, sizeof rel, "%s/%s", lib, ATOMUTIL_ABI_TABLES_RELPATH);
    /* PREFIX/share/atomutil/tables, not PREFIX/lib/atomutil/../../share/...: the tables' paths in
     * the reports read as the installed ones */
    char *real = n > 0 && (size_t)n < sizeof rel ? realpath(rel, NULL) : NULL;
    if (real && strlen(real) < size && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        au_strlcpy(dir, real, size);
    free(real);
}

static int table_find(const char *gpu_name, int cc_major, int cc_minor, au_abi_table **out, char **error)
{
    if (error)
        *error = NULL;
    if (!out || cc_major < 1 || cc_minor < 0)
        return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_table_find: no compute capability"), error);
    *out = NULL;
    char beside[PATH_MAX + 64], *path = NULL;
    unsigned flags = 0;
    tables_beside_library(beside, sizeof beside);
    const char *env = getenv("ATOMUTIL_TABLES_DIR");
    /* $ATOMUTIL_TABLES_DIR first, as atomutil-profile; au_pick_table tries it again, then the rest */
    int st = AU_E_NOTFOUND;
    if (beside[0] && !(env && *env))
        st = au_table_find(beside, gpu_name, cc_major, cc_minor, &path, &flags, NULL);
    if (st != AU_OK && (st = au_pick_table(gpu_name, cc_major, cc_minor, &path, &flags)) != AU_OK)
        return au_abi_fail(st, error);
    au_table *t = NULL;
    st = au_table_load(path, &t);
    free(path);
    if (st != AU_OK)
        return au_abi_fail(st, error);
    return wrap(t, flags, out, error);
}

AU_ABI_EXPORT int au_abi_table_load(const char *path, au_abi_table **out, char **error)
{
    au_abi_locale lc = au_abi_locale_begin();
    int st = table_load(path, out, error);
    au_abi_locale_end(lc);
    return st;
}

AU_ABI_EXPORT int au_abi_table_find(const char *gpu_name, int cc_major, int cc_minor, au_abi_table **out, char **error)
{
    au_abi_locale lc = au_abi_locale_begin();
    int st = table_find(gpu_name, cc_major, cc_minor, out, error);
    au_abi_locale_end(lc);
    return st;
}

AU_ABI_EXPORT void au_abi_table_free(au_abi_table *t)
{
    if (t)
        au_table_free(t->t);
    free(t);
}

int au_abi_close_text(FILE *f, char **buf, char **json, char **error)
{
    /* the stream sets *buf when it is flushed or closed */
    if (fclose(f) != 0 || !*buf) {
        free(*buf);
        return au_abi_fail(au_set_error(AU_E_NOMEM, "out of memory"), error);
    }
    *json = *buf;
    return AU_ABI_OK;
}

static void json_string(FILE *f, const char *s)
{
    au_fput_text(f, s, AU_TEXT_JSON);
}

static int table_info(const au_abi_table *t, char **json, char **error)
{
    if (error)
        *error = NULL;
    if (!t || !json)
        return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_table_info: no table"), error);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return au_abi_fail(au_set_error(AU_E_NOMEM, "out of memory"), error);
    const au_table_meta *m = au_table_get_meta(t->t);
    fputs("{\"path\": ", f);
    json_string(f, au_table_path(t->t));
    fputs(", \"gpu_name\": ", f);
    json_string(f, m->gpu_name);
    fprintf(f, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"method\": ", m->cc_major, m->cc_minor,
            m->sm_count);
    json_string(f, m->method);
    fputs(", \"status\": ", f);
    json_string(f, m->status);
    fputs(", \"families\": [", f);
    for (size_t i = 0, n = au_table_family_count(t->t); i < n; ++i) {
        fputs(i ? ", " : "", f);
        json_string(f, au_table_family_name(t->t, i));
    }
    fputs("]", f);
    /* the load latencies and MATCH.ANY's cost per distinct lane value (docs/table-format.md): null
     * where the table lacks them */
    const struct {
        const char *key;
        double v;
    } measured[] = {{"l2_hit_latency_cycles", m->l2_hit_latency_cycles},
                    {"dram_latency_cycles", m->dram_latency_cycles},
                    {"match_any_cycles_per_value", m->match_any_cycles_per_value},
                    {"match_any_latency_cycles_per_value", m->match_any_latency_cycles_per_value}};
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; ++i) {
        fprintf(f, ", \"%s\": ", measured[i].key);
        if (measured[i].v > 0)
            fprintf(f, "%.1f", measured[i].v);
        else
            fputs("null", f);
    }
    fprintf(f, ", \"other_gpu\": %s}", (t->flags & AU_F_TABLE_OTHER_GPU) ? "true" : "false");
    return au_abi_close_text(f, &buf, json, error);
}

AU_ABI_EXPORT int au_abi_table_info(const au_abi_table *t, char **json, char **error)
{
    au_abi_locale lc = au_abi_locale_begin();
    int st = table_info(t, json, error);
    au_abi_locale_end(lc);
    return st;
}

AU_ABI_EXPORT int au_abi_metrics(char **json, char **error)
{
    static const struct {
        unsigned bit;
        const char *name;
    } sets[] = {
        {AU_SET_STD, "standard"}, {AU_SET_CLUSTER, "cluster"}, {AU_SET_GENERIC, "generic"}, {AU_SET_DSMEM, "dsmem"}};
    _Static_assert(AU_SET_ALL == 15, "a counter set without its name here");
    if (error)
        *error = NULL;
    if (!json)
        return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_metrics: no output"), error);
    char *buf = NULL;
    size_t len = 0, n;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return au_abi_fail(au_set_error(AU_E_NOMEM, "out of memory"), error);
    const au_metric_def *d = au_metric_defs(&n);
    fputc('[', f);
    for (size_t i = 0; i < n; ++i) {
        fprintf(f, "%s\n {\"name\": ", i ? "," : "");
        json_string(f, d[i].name);
        fprintf(f, ", \"required\": %s, \"sets\": [", d[i].required ? "true" : "false");
        for (size_t s = 0, k = 0; s < sizeof sets / sizeof sets[0]; ++s)
            if (d[i].sets & sets[s].bit)
                fprintf(f, "%s\"%s\"", k++ ? ", " : "", sets[s].name);
        /* ncu reports the passes itself and takes no such metric to collect, as
         * --print-ncu-metrics says (profile/cli/options.c) */
        fprintf(f, "], \"ncu\": %s, \"unit\": ", au_metric_for_ncu(&d[i]) ? "true" : "false");
        json_string(f, d[i].unit);
        fputs(", \"meaning\": ", f);
        json_string(f, d[i].meaning);
        fputc('}', f);
    }
    fputs("\n]", f);
    return au_abi_close_text(f, &buf, json, error);
}
