/*
 * table_impl.h - the in-memory layout of au_table, shared by table.c (I/O, validation) and
 * interp.c (interpolation).  Not installed.
 */
#ifndef ATOMUTIL_TABLE_IMPL_H
#define ATOMUTIL_TABLE_IMPL_H

#include "internal.h"

#include <stddef.h>

typedef struct au_row {
    int fam, n, a, c;
    au_sample s;
    long line; /* source line, 0 when built in memory */
} au_row;

/* Rows [lo, hi) of one (n, a) grid pair, sorted by c (first c = 0, last c = n). */
typedef struct au_cell {
    size_t lo, hi;
} au_cell;

typedef struct au_family {
    char name[AU_FAMILY_MAX];
    size_t lo, hi; /* its rows after finalize */
    int *nv, nn;   /* sorted distinct n */
    int *av, na;   /* sorted distinct a */
    au_cell *cell; /* nn x na, row-major in n */
} au_family;

struct au_table {
    au_table_meta meta;
    char name[512]; /* for messages: the path or "<table>" */
    char path[512]; /* "" unless loaded from a file */
    au_row *rows;
    size_t nrows, caprows;
    au_family *fam;
    size_t nfam, capfam;
    int finalized;
};

const au_family *au_table_family(const au_table *t, const char *family);

#endif
