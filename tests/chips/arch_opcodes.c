/*
 * arch_opcodes.c - every shared-atomic opcode (ATOMS.*) that the calibration kernels, unit_bound,
 * the validation operations and the examples compile to on each architecture the toolkit supports
 * (tests/data/opcodes-per-arch, made by validation/arch_opcodes.sh on the GPU machine) maps to a
 * family of the model: a new form on a new architecture fails here instead of being priced as
 * something else.  Unknown opcodes map to none (the report then names them, flag unknown_opcode).
 * Generic atomics (ATOM.E.*) either map to the generic family (they land in shared memory as they
 * are) or sit in a kernel that also has a CAS loop (ATOMS.CAST.SPIN*), the shared-memory path the
 * compiler pairs with them (docs/opcodes.md, "Generic atomics").
 *   arch_opcodes FILE.atomics...     ("SOURCE KERNEL OPCODE COUNT" lines)
 */
#include "atomutil/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct site {
    char src[256], kernel[4096], op[128];
} site;

/* The lines of one listing into *out (malloc'ed), their number; -1 when it cannot be read. */
static long read_listing(const char *path, site **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long n = 0, cap = 0;
    site *v = NULL, s;
    long count;
    while (fscanf(f, "%255s %4095s %127s %ld", s.src, s.kernel, s.op, &count) == 4) {
        if (n == cap) {
            site *w = realloc(v, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *v);
            if (!w) {
                free(v);
                fclose(f);
                return -1;
            }
            v = w;
        }
        v[n++] = s;
    }
    fclose(f);
    *out = v;
    return n;
}

/* Whether kernel k of listing v[0..n) has a CAS loop (ATOMS.CAST.SPIN*). */
static int has_cas_loop(const site *v, long n, const site *k)
{
    for (long i = 0; i < n; ++i)
        if (strcmp(v[i].src, k->src) == 0 && strcmp(v[i].kernel, k->kernel) == 0 &&
            strncmp(v[i].op, "ATOMS.CAST.SPIN", 15) == 0)
            return 1;
    return 0;
}

/* Checks one listing; adds its shared-atomic and generic sites to *seen, *generic.  1 when bad. */
static int check_listing(const char *path, long *seen, long *generic)
{
    site *v = NULL;
    long n = read_listing(path, &v);
    int bad = 0;
    if (n < 0) {
        fprintf(stderr, "arch_opcodes: cannot read %s\n", path);
        return 1;
    }
    for (long i = 0; i < n; ++i) {
        const char *op = v[i].op, *fam = au_opcode_family(op);
        if (strncmp(op, "ATOM.E.", 7) == 0) {
            ++*generic;
            if (!(fam && strcmp(fam, "generic") == 0) && !has_cas_loop(v, n, &v[i])) {
                printf("%s: %s in %s (%s): a generic atomic that is not the generic family's, without the "
                       "CAS loop of its shared-memory path\n",
                       path, op, v[i].src, v[i].kernel);
                bad = 1;
            }
            continue;
        }
        if (strncmp(op, "ATOMS.", 6) != 0)
            continue; /* global atomics and reductions: not the shared unit's (docs/opcodes.md) */
        ++*seen;
        if (!fam) {
            printf("%s: %s in %s (%s) maps to no family\n", path, op, v[i].src, v[i].kernel);
            bad = 1;
        }
    }
    free(v);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    long seen = 0, generic = 0;
    if (argc < 2 || au_opcode_family("ATOMS.NOT_AN_OPCODE") != NULL) {
        fprintf(stderr, "arch_opcodes: no listing given, or an unknown opcode maps to a family\n");
        return 1;
    }
    for (int i = 1; i < argc; ++i)
        bad |= check_listing(argv[i], &seen, &generic);
    printf("%ld shared-atomic and %ld generic-atomic opcode sites in %d listings, %s\n", seen, generic, argc - 1,
           bad ? "some unmapped" : "all mapped");
    return bad || seen == 0;
}
