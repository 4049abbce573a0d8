/*
 * opcodes_internal.h - what the parts of --opcodes share: a counters file's code lines, the lister
 * (tools, cache, counts) and the functions between opcodes.c, opcodes_disasm.c, opcodes_cache.c.
 */
#ifndef ATOMUTIL_PROFILE_OPCODES_INTERNAL_H
#define ATOMUTIL_PROFILE_OPCODES_INTERNAL_H

#include "opcodes.h"

#include <stddef.h>
#include <stdint.h>

/* "code:" lines of a counters file: kernel (demangled) -> cubin CRC and mangled name (the run's
 * strings, run.h); and what listing the kernel gets. */
typedef struct {
    char *demangled, *mangled;
    uint32_t crc;
    int want;       /* a launch with shared-atomic jobs needs its listing (2: cubin read) */
    int have_cubin; /* its cubin could be read */
    long sym;       /* its symbol index in the cubin, -1 if not found */
    uint64_t hash;  /* FNV-1a of the cubin's bytes (hashed: for the listing cache) */
    size_t size;    /* the cubin's size */
    int hashed;
    au_load_sites sites; /* where the kernel's shared loads sit (found once, at its first launch) */
    int have_sites;
    int warned;      /* its listing's lack of atomics was said */
    au_instr *instr; /* its instructions, from its listing (read once: have_instr) */
    size_t ninstr;
    int have_instr;
    au_launch_code lc; /* what its launches are attached: instr[0..ninstr) */
} code_line;

/* What lists the kernels: the tools, the listing cache, the counts for --timing. */
typedef struct {
    char nvdisasm[1024], cuobjdump[1024];
    char nvdisasm_id[1400]; /* "PATH SIZE MTIME" of nvdisasm for cache keys ("": nothing cached) */
    int cache;              /* 0: not opened yet, 1: in use, -1: off */
    char cache_dir[4096];
    int quiet;
    au_opcodes_stats *st;
    char note[4400]; /* the listing cache's note (not with quiet), said with the warnings */
} lister;

/* The largest cubin, listing or cache entry read (docs/opcodes.md): a kernel's listing is a few
 * MB at most; a file in the way (a link to /dev/zero, a sparse file) must not be read for seconds. */
#define CODE_FILE_MAX_BYTES ((size_t)256 << 20)

/* FNV-1a start value: au_op_fnv1a's h for a new hash. */
#define FNV_START 0xcbf29ce484222325ULL

/* opcodes_disasm.c (their comments say what they do) */
void au_op_find_tool(const char *name, char *out, size_t size);
int au_op_own_file(const char *name);
uint64_t au_op_fnv1a(const void *data, size_t n, uint64_t h);
int au_op_write_file(const char *path, const char *data, size_t len);
const char *au_op_find_section(const char *text, size_t len, const char *name);
int au_op_listing_ok(const char *text, size_t len, const char *name);
void au_op_sass_path(char *out, size_t size, const char *dir, const code_line *k);
int au_op_read_code_file(const char *path, char **buf, size_t *len);
int au_op_list_function(lister *L, const char *dir, const code_line *k, const char *out);
int au_op_list_wanted(lister *L, const char *cubin_dir, code_line *code, size_t ncode);

/* opcodes_cache.c */
void au_op_tool_identity(const char *path, char *out, size_t size);
int au_op_cache_open(lister *L);
int au_op_cache_get(lister *L, const code_line *k, const char *flags, const char *out);
void au_op_cache_put(lister *L, const code_line *k, const char *flags, const char *listing, size_t len);

#endif
