/*
 * tables.h - where atomutil-profile looks for service-time tables when --table is not given, and
 * the choice of one for a GPU (the rule itself is au_table_find in the model library).
 */
#ifndef ATOMUTIL_PROFILE_TABLES_H
#define ATOMUTIL_PROFILE_TABLES_H

#include "atomutil/model.h"

/* Search order: $ATOMUTIL_TABLES_DIR, <dir of this executable>/../share/atomutil/tables, the
 * install prefix's data dir, the source tree's tables/.  Picks the first directory that holds a
 * fitting table.  *path_out is malloc'ed.  On failure au_last_error() names the directories. */
int au_pick_table(const char *gpu_name, int cc_major, int cc_minor, char **path_out, unsigned *flags);

#endif
