/*
 * fuzz_common.h - what the fuzz targets share: contract checks that abort (so that libFuzzer and
 * the replay tests count a broken contract as a crash) and the error-message rule of
 * docs/cli.md: every refusal is one printable line that names the input.
 */
#ifndef ATOMUTIL_FUZZ_COMMON_H
#define ATOMUTIL_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz contract broken: %s\n", what);
        abort();
    }
}

/* The last error after a refusal: starts with the input's name, one line, printable, not empty. */
static inline void fuzz_check_message(const char *msg, const char *name)
{
    fuzz_check(msg != NULL, "au_last_error() is NULL");
    fuzz_check(strncmp(msg, name, strlen(name)) == 0, "error message does not name the input");
    fuzz_check(strlen(msg) > strlen(name) + 2, "error message says nothing");
    for (const unsigned char *p = (const unsigned char *)msg; *p; ++p)
        fuzz_check(*p >= 0x20 && *p != 0x7f, "control character in the error message");
}

#endif
