/*
 * abi_internal.h - what the two files of libatomutil.so share: the table handle, the error slot
 * and the symbol visibility of the ABI (abi.h).
 */
#ifndef ATOMUTIL_ABI_INTERNAL_H
#define ATOMUTIL_ABI_INTERNAL_H

#include "abi.h"

#include "atomutil/model.h"

#include <locale.h>
#include <stdio.h>

/* Only the ABI's functions are exported; the library is built with hidden visibility. */
#define AU_ABI_EXPORT __attribute__((visibility("default")))

struct au_abi_table {
    au_table *t;
    unsigned flags; /* AU_F_TABLE_OTHER_GPU: found by compute capability only */
};

/* The C locale for numbers while a function of the ABI runs, in this thread only: the program
 * that loads the library (ncu's user interface) may have set a locale whose decimal point is a
 * comma, and the tables, exports and JSON use '.'. */
typedef struct {
    locale_t c, old;
} au_abi_locale;
au_abi_locale au_abi_locale_begin(void);
void au_abi_locale_end(au_abi_locale l);

/* status (< 0), after copying au_last_error() into *error (when error is given). */
int au_abi_fail(int status, char **error);
/* Closes the memory stream f of buffer *buf and hands the text out as *json: AU_ABI_OK, or out of
 * memory (the text freed). */
int au_abi_close_text(FILE *f, char **buf, char **json, char **error);

#endif
