/*
 * tables.c - the table search path of atomutil-profile (see tables.h).  An installed copy finds
 * the tables next to itself (<bin>/../share/atomutil/tables) without any environment variable.
 */
#include "tables.h"

#include "atomutil/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ATOMUTIL_TABLES_INSTALL_DIR
#define ATOMUTIL_TABLES_INSTALL_DIR ""
#endif
#ifndef ATOMUTIL_TABLES_SOURCE_DIR
#define ATOMUTIL_TABLES_SOURCE_DIR ""
#endif

static int is_dir(const char *p)
{
    struct stat st;
    return p && *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int au_pick_table(const char *gpu_name, int cc_major, int cc_minor, char **path_out, unsigned *flags)
{
    char exe_rel[PATH_MAX + 64] = "";
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(exe_rel, sizeof exe_rel, "%s/../share/atomutil/tables", exe);
        }
    }
    const char *dirs[] = {getenv("ATOMUTIL_TABLES_DIR"), exe_rel, ATOMUTIL_TABLES_INSTALL_DIR,
                          ATOMUTIL_TABLES_SOURCE_DIR};
    char searched[2048] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
        if (!is_dir(dirs[i]))
            continue;
        unsigned fl = 0;
        if (au_table_find(dirs[i], gpu_name, cc_major, cc_minor, path_out, &fl, NULL) == AU_OK) {
            if (flags)
                *flags |= fl;
            return AU_OK;
        }
        int k = snprintf(searched + used, sizeof searched - used, "%s%s", used ? ", " : "", dirs[i]);
        if (k > 0 && (size_t)k < sizeof searched - used)
            used += (size_t)k;
    }
    return au_set_error(AU_E_NOTFOUND,
                        "no service-time table for %s (compute capability %d.%d) in %s; measure one "
                        "on that GPU with `atomutil-calibrate -o my-gpu.csv` (seconds of GPU time on an "
                        "H100; docs/calibration.md) and pass it with --table my-gpu.csv",
                        gpu_name && *gpu_name ? gpu_name : "this GPU", cc_major, cc_minor,
                        used ? searched : "any tables directory (none exists)");
}
