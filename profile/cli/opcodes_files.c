/*
 * opcodes_files.c - the files of kernel code (docs/opcodes.md): reading them (regular files of at
 * most CODE_FILE_MAX_BYTES), checking that a listing is a function's, writing them, and the
 * content hash of the listing cache.  The disassembler (opcodes_disasm.c) and the cache
 * (opcodes_cache.c) both stand on it.
 */
#include "opcodes_internal.h"

#include "atomutil/util.h"
#include "sass_listing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FNV-1a, 64 bits, continued from h (FNV_START for a new hash): the listing cache's hash of a
 * cubin's content, of a key and of an entry's listing. */
uint64_t au_op_fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* Writes data[0..len) to path; 0 on success, else -1 and no file. */
int au_op_write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    if (fclose(f) != 0 || !ok) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* The ".text.NAME:" header line of function `name` in text[0..len) (blanks before it, nothing
 * after it but a '\r'): a pointer to its ".text.", or NULL. */
const char *au_op_find_section(const char *text, size_t len, const char *name)
{
    size_t nl = strlen(name);
    const char *end = text + len;
    for (const char *s = text; s < end;) {
        const char *eol = memchr(s, '\n', (size_t)(end - s)), *le = eol ? eol : end, *t = s;
        while (t < le && (*t == ' ' || *t == '\t'))
            ++t;
        if (le > t && le[-1] == '\r')
            --le;
        if ((size_t)(le - t) == nl + 7 && memcmp(t, ".text.", 6) == 0 && memcmp(t + 6, name, nl) == 0 &&
            t[6 + nl] == ':')
            return t;
        s = eol ? eol + 1 : end;
    }
    return NULL;
}

/* 1 if text[0..len) can be the listing of function `name`: it holds the function's ".text.NAME:"
 * header and parses. */
int au_op_listing_ok(const char *text, size_t len, const char *name)
{
    if (!au_op_find_section(text, len, name))
        return 0;
    au_sass_ops ops;
    memset(&ops, 0, sizeof ops);
    int ok = au_sass_ops_parse(text, len, &ops) == AU_OK;
    au_sass_ops_free(&ops);
    return ok;
}

/* au_read_file for the kernels' code: regular files of at most CODE_FILE_MAX_BYTES only. */
int au_op_read_code_file(const char *path, char **buf, size_t *len)
{
    struct stat st;
    *buf = NULL;
    *len = 0;
    if (stat(path, &st) != 0)
        return au_set_error(AU_E_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return au_set_error(AU_E_IO, "%s: not a regular file", path);
    if ((unsigned long long)st.st_size > CODE_FILE_MAX_BYTES)
        return au_set_error(AU_E_PARSE, "%s: larger than %zu MiB", path, CODE_FILE_MAX_BYTES >> 20);
    return au_read_file(path, CODE_FILE_MAX_BYTES, buf, len);
}
