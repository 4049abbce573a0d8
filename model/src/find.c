/*
 * find.c - picks the table for a GPU from a directory of tables (rule in docs/table-format.md):
 * same GPU name and compute capability first, else same compute capability; ties go to the file
 * name that sorts first.
 */
#include "internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int au_table_find(const char *dir, const char *gpu_name, int cc_major, int cc_minor, char **path_out, unsigned *flags,
                  int *skipped)
{
    *path_out = NULL;
    if (skipped)
        *skipped = 0;
    DIR *d = opendir(dir);
    if (!d)
        return au_set_error(AU_E_NOTFOUND, "%s: cannot open the tables directory", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = AU_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".csv") != 0 || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = au_set_error(AU_E_NOMEM, "out of memory");
                goto out;
            }
            names = nn;
        }
        size_t pl = strlen(dir) + 1 + l + 1;
        if (!(names[n] = malloc(pl))) {
            rc = au_set_error(AU_E_NOMEM, "out of memory");
            goto out;
        }
        snprintf(names[n++], pl, "%s/%s", dir, e->d_name);
    }
    qsort(names, n, sizeof *names, cmp_str);
    int best = -1, best_rank = 0, nskip = 0;
    for (size_t i = 0; i < n; ++i) {
        au_table_meta m;
        if (au_table_load_meta(names[i], &m) != AU_OK) {
            ++nskip;
            continue;
        }
        int rank = 0;
        if (m.cc_major == cc_major && m.cc_minor == cc_minor)
            rank = (gpu_name && *gpu_name && strcasecmp(gpu_name, m.gpu_name) == 0) ? 2 : 1;
        if (rank > best_rank) {
            best_rank = rank;
            best = (int)i;
        }
    }
    if (skipped)
        *skipped = nskip;
    if (best < 0) {
        rc = au_set_error(AU_E_NOTFOUND,
                          "no table in %s for %s (compute capability %d.%d)%s; measure one with "
                          "atomutil-calibrate and pass it with --table",
                          dir, gpu_name && *gpu_name ? gpu_name : "this GPU", cc_major, cc_minor,
                          nskip ? " (some tables there failed to load)" : "");
        goto out;
    }
    *path_out = names[best];
    names[best] = NULL;
    if (flags && best_rank == 1)
        *flags |= AU_F_TABLE_OTHER_GPU;
out:
    for (size_t i = 0; i < n; ++i)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}
