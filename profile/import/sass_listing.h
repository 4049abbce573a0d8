/*
 * sass_listing.h - SASS listings of nvdisasm and cuobjdump (docs/opcodes.md): the shared-atomic
 * opcode at each PC of a kernel and its shared-memory load sites, from which the opcodes pricing
 * tells each job's family.
 */
#ifndef ATOMUTIL_SASS_LISTING_H
#define ATOMUTIL_SASS_LISTING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opcode of each SASS instruction, from `cuobjdump -sass` output of a cubin. */
typedef struct au_sass_op {
    char *function; /* mangled */
    uint32_t pc;
    char opcode[32];  /* "ATOMS.POPC.INC.32", "ATOMS.CAS", ... (mnemonic with modifiers) */
    char source[160]; /* "file.cu:64" from nvdisasm -g line info, else "" */
} au_sass_op;

typedef struct au_sass_ops {
    au_sass_op *v;
    size_t count, cap;
} au_sass_ops;

/* Parses a SASS listing of `cuobjdump -sass` ("Function : NAME" headers) or `nvdisasm -g`
 * (".text.NAME:" headers, line info comments '//## File "F", line N'): instruction lines start
 * with the PC in a comment ("/" "*0350*" "/  OPCODE operands ;"); a predicate "@P0" before the
 * opcode is skipped.  Only ATOMS/ATOM instructions are kept. */
int au_sass_ops_parse(const char *text, size_t len, au_sass_ops *ops);
/* The opcode at (function, pc), or NULL. */
const char *au_sass_ops_find(const au_sass_ops *ops, const char *function, uint32_t pc);
void au_sass_ops_free(au_sass_ops *ops);

/* The shared-memory load sites of `function` in a listing (the formats of au_sass_ops_parse;
 * branch targets as addresses or nvdisasm labels), relative to its CAS loops: a CAS loop is an
 * innermost loop (a backward branch over at most 24 instructions, no loop inside) holding an
 * ATOMS.CAST.SPIN*; LDS/LDSM in such a loop are loop loads, in another loop hot, outside every loop cold (docs/model.md, "CAS loops").
 * Sets out->known when the function was found.  AU_OK, or AU_E_NOMEM. */
struct au_load_sites;
int au_sass_load_sites(const char *text, size_t len, const char *function, struct au_load_sites *out);

#ifdef __cplusplus
}
#endif
#endif
