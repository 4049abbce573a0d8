/*
 * error.c - status names and the thread-local last-error slot (au_set_error, au_last_error) of the
 * model library; the general helpers are in util.c.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

const char *au_strerror(int status)
{
    switch (status) {
    case AU_OK: return "success";
    case AU_E_IO: return "I/O error";
    case AU_E_PARSE: return "malformed input";
    case AU_E_NOMEM: return "out of memory";
    case AU_E_INVAL: return "invalid argument";
    case AU_E_NOTFOUND: return "not found";
    default: return "unknown error";
    }
}

const char *au_last_error(void)
{
    return last_error[0] ? last_error : au_strerror(AU_OK);
}

/* Untrusted input (control characters, ill-formed UTF-8) would garble the one-line message:
 * written as plain text (text.c). */
static void set_clean(const char *msg)
{
    au_text_fit(msg, last_error, sizeof last_error, 0, 0);
}

int au_set_error(int status, const char *fmt, ...)
{
    char msg[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_clean(msg);
    return status;
}

int au_set_error_at(int status, const char *name, long line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[sizeof last_error];
    if (line > 0)
        snprintf(full, sizeof full, "%s:%ld: %s", name, line, msg);
    else
        snprintf(full, sizeof full, "%s: %s", name, msg);
    set_clean(full);
    return status;
}
