/*
 * arch_opcodes.c - every shared-atomic opcode (ATOMS.*) that the calibration kernels, unit_bound,
 * the validation operations and the examples compile to on each architecture the toolkit supports
 * (docs/results/opcodes-per-arch-*, made by scripts/arch_opcodes.sh on the GPU machine) maps to a
 * family of the model: a new form on a new architecture fails here instead of being priced as
 * something else.  Unknown opcodes map to none (the report then names them, flag unknown_opcode).
 *   arch_opcodes FILE.atomics...     ("SOURCE KERNEL OPCODE COUNT" lines)
 */
#include "atomutil/model.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int bad = 0;
    long seen = 0;
    if (argc < 2 || au_opcode_family("ATOMS.NOT_AN_OPCODE") != NULL) {
        fprintf(stderr, "arch_opcodes: no listing given, or an unknown opcode maps to a family\n");
        return 1;
    }
    for (int i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            fprintf(stderr, "arch_opcodes: cannot read %s\n", argv[i]);
            return 1;
        }
        char src[256], kernel[4096], op[128];
        long n;
        while (fscanf(f, "%255s %4095s %127s %ld", src, kernel, op, &n) == 4) {
            if (strncmp(op, "ATOMS.", 6) != 0)
                continue; /* global and generic atomics: not the shared unit's (docs/opcodes.md) */
            seen++;
            if (!au_opcode_family(op)) {
                printf("%s: %s in %s (%s) maps to no family\n", argv[i], op, src, kernel);
                bad = 1;
            }
        }
        fclose(f);
    }
    printf("%ld shared-atomic opcode sites in %d listings, %s\n", seen, argc - 1, bad ? "some unmapped" : "all mapped");
    return bad || seen == 0;
}
