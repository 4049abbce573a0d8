/*
 * sass_file.h - atomutil's SASS file (BASE.sass.csv, written by the injection library in sass
 * mode, docs/per-sm.md): per launch, per shared-atomic SASS instruction and per SM, the executed
 * warp-instructions, active threads and shared wavefronts; and its reader.  Together with the
 * opcode of each instruction (from the captured cubins) it gives per-SM, per-class job counts.
 */
#ifndef ATOMUTIL_SASS_FILE_H
#define ATOMUTIL_SASS_FILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AU_SASS_CSV_HEADER "launch_id,process_id,kernel,cubin_crc,function,pc_offset,sm,inst,threads,wavefronts\n"

/* One row: one shared-atomic instruction of one launch on one SM. */
typedef struct au_sass_row {
    long long launch_id, pid;
    char *kernel;   /* demangled (shared between rows of a launch) */
    uint32_t crc;   /* the record's cubin CRC */
    char *function; /* mangled (shared between rows of a launch) */
    uint32_t pc;    /* offset in the function */
    int sm;         /* SM instance index */
    double inst, threads, wavefronts;
} au_sass_row;

typedef struct au_sass_data {
    au_sass_row *rows;
    size_t count, cap;
    char **strings; /* owned strings the rows point to */
    size_t nstrings, capstrings;
} au_sass_data;

/* Reads a SASS file (rows appended to d; '==ATOMUTIL==' lines and foreign lines skipped).
 * Returns AU_OK or < 0 with au_last_error() = "FILE:LINE: what". */
int au_sass_read(const char *path, au_sass_data *d);
int au_sass_parse(const char *name, const char *buf, size_t len, au_sass_data *d);
void au_sass_free(au_sass_data *d);

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
