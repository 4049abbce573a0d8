/*
 * test_flags_doc.c - docs/model.md's "Flags" table lists exactly the flags of flags.def, their
 * names and meanings, in bit order; and flags.def is in bit order (au_flags_string indexes its
 * names by bit).  Usage: test_flags_doc docs/model.md.  On a mismatch it prints the table the
 * docs should hold.
 */
#include "atomutil/model.h"

#include <stdio.h>
#include <string.h>

static const struct {
    unsigned bit;
    const char *name, *meaning;
} flags[] = {
#define AU_FLAG(id, bit, name, meaning) {bit, name, meaning},
#include "atomutil/flags.def"
#undef AU_FLAG
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static void print_table(FILE *out)
{
    fputs("| flag | meaning |\n|---|---|\n", out);
    for (size_t i = 0; i < NFLAGS; ++i)
        fprintf(out, "| `%s` | %s |\n", flags[i].name, flags[i].meaning);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_flags_doc docs/model.md\n");
        return 2;
    }
    int bad = 0;
    for (size_t i = 0; i < NFLAGS; ++i) {
        char one[64];
        if (flags[i].bit != i || strcmp(au_flags_string(1ull << i, one, sizeof one), flags[i].name) != 0) {
            fprintf(stderr, "flags.def line %zu: bit %u, name %s: not in bit order\n", i + 1, flags[i].bit,
                    flags[i].name);
            bad = 1;
        }
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    /* the table: the lines that start with '|' after "## Flags" and its "| flag | meaning |" header */
    char line[4096], want[4096];
    int section = 0, rows = -1;
    size_t row = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "## ", 3) == 0)
            section = strcmp(line, "## Flags\n") == 0;
        if (!section)
            continue;
        if (rows < 0 && strcmp(line, "| flag | meaning |\n") == 0) {
            rows = 0;
            continue;
        }
        if (rows < 0 || line[0] != '|')
            continue;
        if (++rows == 1)
            continue; /* |---|---| */
        if (row < NFLAGS)
            snprintf(want, sizeof want, "| `%s` | %s |\n", flags[row].name, flags[row].meaning);
        if (row >= NFLAGS || strcmp(line, want) != 0) {
            fprintf(stderr, "docs row %zu differs:\n  docs:  %s  flags.def: %s", row + 1, line,
                    row < NFLAGS ? want : "(none)\n");
            bad = 1;
        }
        ++row;
    }
    fclose(f);
    if (row != NFLAGS) {
        fprintf(stderr, "docs table has %zu rows, flags.def %zu flags\n", row, NFLAGS);
        bad = 1;
    }
    if (bad) {
        fputs("the table docs/model.md should hold:\n", stdout);
        print_table(stdout);
    }
    return bad;
}
