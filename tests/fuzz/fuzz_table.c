/*
 * fuzz_table.c - libFuzzer target for the service-time table reader (au_table_parse,
 * model/src/table.c).  Every input must either load or be refused with one printable line naming
 * the input; a table that loads must then survive what atomutil-profile does with it: metadata,
 * interpolation inside and outside its grid, exact lookups and writing it back.
 * Built as a libFuzzer binary with -DATOMUTIL_FUZZ=ON (clang), and linked with replay_main.c in
 * every test build so that the corpus and the regression inputs run under gcc, ASan and valgrind.
 */
#include "fuzz_common.h"

#include "atomutil/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    return 0;
}

/* The queries the profiler makes, at points that hit the grid, lie between its points and fall
 * outside it (clamping), with CAS shares 0, 1/2 and 1. */
static void exercise(const au_table *t)
{
    static const double pts[][3] = {{1, 1, 0},   {0.5, 1, 0},   {2.5, 3.7, 1}, {64, 32, 64}, {1e6, 40, 0}, {30, 1, 15},
                                    {7, 0.2, 7}, {3, 31.9, -1}, {0, 0, 0},     {1e-9, 1, 1}, {33.3, 2, 40}};
    const au_table_meta *m = au_table_get_meta(t);
    fuzz_check(m->gpu_name[0] != '\0', "loaded table without gpu_name");
    fuzz_check(au_table_has_family(t, "add"), "loaded table without family add");
    size_t nf = au_table_family_count(t);
    for (size_t i = 0; i < nf; ++i) {
        const char *fam = au_table_family_name(t, i);
        fuzz_check(fam != NULL, "family name NULL below the family count");
        for (size_t k = 0; k < sizeof pts / sizeof pts[0]; ++k) {
            double s = 0;
            au_flags fl = 0;
            if (au_table_interp(t, fam, pts[k][0], pts[k][1], pts[k][2], &s, &fl) == AU_OK)
                fuzz_check(s == s, "interpolation gave NaN");
        }
        au_sample smp;
        (void)au_table_lookup(t, fam, 1, 1, 0, &smp);
    }
    fuzz_check(au_table_family_name(t, nf) == NULL, "family name past the end");
    if (devnull)
        fuzz_check(au_table_write(t, devnull) == AU_OK, "a loaded table cannot be written");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    au_table *t = NULL;
    int rc = au_table_parse("fuzz.csv", (const char *)data, size, &t);
    if (rc == AU_OK) {
        fuzz_check(t != NULL, "AU_OK without a table");
        exercise(t);
        au_table_free(t);
    } else {
        fuzz_check(rc < 0 && t == NULL, "failure with a table or a positive status");
        if (rc == AU_E_PARSE)
            fuzz_check_message(au_last_error(), "fuzz.csv");
    }
    return 0;
}
