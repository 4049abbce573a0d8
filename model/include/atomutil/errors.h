/*
 * atomutil/errors.h - the model library's version and error statuses (part of atomutil/model.h).
 * Nothing in the library calls exit(): every fallible function returns AU_OK (0) or a negative
 * au_status and leaves a one-line description in au_last_error().
 */
#ifndef ATOMUTIL_ERRORS_H
#define ATOMUTIL_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

#define AU_VERSION_STRING       "0.1.0"
#define AU_TABLE_FORMAT_VERSION 1

/* ---------------------------------------------------------------- errors */

typedef enum au_status {
    AU_OK = 0,
    AU_E_IO = -1,       /* file cannot be opened, read or written */
    AU_E_PARSE = -2,    /* malformed input: the message names file and line */
    AU_E_NOMEM = -3,    /* out of memory */
    AU_E_INVAL = -4,    /* invalid argument from the caller */
    AU_E_NOTFOUND = -5, /* no such family / no table fits / nothing usable */
} au_status;

/* Short name of a status ("parse error", ...). */
const char *au_strerror(int status);
/* Detail of the last failure in this thread, e.g. "t.csv:12: duplicate row add,4,1,0". Never NULL. */
const char *au_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
