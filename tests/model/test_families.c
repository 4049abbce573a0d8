/*
 * test_families.c - the family registry (atomutil/families.def): every ATOMS family's opcode
 * maps back to it, the kinds agree with the table format's naming convention (docs/table-format.md)
 * and with the wavefronts per pass, names are unique; the remote ring family by cluster size; which
 * generic atomics (ATOM.E.*) map to the generic family.
 * Usage: test_families tables/nvidia-h100.csv (a table with the dsmem families).
 */
#include "check.h"

#include "atomutil/model.h"

#include <string.h>

/* au_dsmem_remote_family: the nearest cluster size in log2, the first on a tie */
static void test_remote(const char *path)
{
    au_table *t = NULL;
    CHECK(au_table_load(path, &t) == AU_OK);
    if (!t)
        return;
    static const struct {
        double size;
        const char *family;
    } want[] = {{1, "dsmem_remote"},    {2, "dsmem_remote"},      {3, "dsmem_remote_c4"},  {4, "dsmem_remote_c4"},
                {6, "dsmem_remote_c8"}, {16, "dsmem_remote_c16"}, {64, "dsmem_remote_c16"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const char *f = au_dsmem_remote_family(t, want[i].size);
        CHECK(f && strcmp(f, want[i].family) == 0);
    }
    au_table_free(t);
}

/* Generic atomics (ATOM.E.*): the forms that land in shared memory as they are map to family
 * generic; the float, packed-half and 64-bit add/min/max/and/or/xor forms, which the compiler pairs
 * with a CAS loop on shared memory, and the global (ATOMG) and reduction forms map to none. */
static void test_generic_opcodes(void)
{
    static const char *const generic[] = {
        "ATOM.E.ADD",
        "ATOM.E.ADD.STRONG.GPU",
        "ATOM.E.MAX.STRONG.SM",
        "ATOM.E.MIN.S32.STRONG.SM",
        "ATOM.E.CAS.STRONG.SM",
        "ATOM.E.CAS.64.STRONG.GPU",
        "ATOM.E.EXCH.64.STRONG.GPU",
        "ATOM.E.INC.STRONG.GPU",
        "ATOM.E.DEC",
        "ATOM.E.AND.STRONG.GPU",
        "ATOM.E.OR",
        "ATOM.E.XOR.STRONG.SYS",
        "ATOM.E.POPC.INC.32",
    };
    static const char *const none[] = {
        "ATOM.E.ADD.F16x2.RN.STRONG.GPU",
        "ATOM.E.ADD.BF16x2.RN.STRONG.GPU",
        "ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU",
        "ATOM.E.ADD.F64.RN.STRONG.GPU",
        "ATOM.E.ADD.64.STRONG.GPU",
        "ATOM.E.MAX.S64.STRONG.GPU",
        "ATOM.E.MIN.U64.STRONG.SM",
        "ATOM.E.AND.64.STRONG.GPU",
        "ATOM.E.FOO.STRONG.GPU",
        "ATOMG.E.ADD.STRONG.GPU",
        "RED.E.ADD.STRONG.GPU",
        "ATOM.E",
        "ATOM.ADD",
        "ATOM.E.ADDX",
    };
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; ++i) {
        const char *f = au_opcode_family(generic[i]);
        if (!f || strcmp(f, "generic") != 0 || !au_generic_lands_in_shared(generic[i])) {
            fprintf(stderr, "%s: family %s, want generic\n", generic[i], f ? f : "none");
            CHECK(0);
        }
    }
    for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
        const char *f = au_opcode_family(none[i]);
        if (f || au_generic_lands_in_shared(none[i])) {
            fprintf(stderr, "%s: family %s, want none\n", none[i], f ? f : "none");
            CHECK(0);
        }
    }
    CHECK(!au_generic_lands_in_shared(NULL));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_families TABLE.csv\n");
        return 2;
    }
    test_remote(argv[1]);
    size_t n;
    const au_family_def *f = au_families(&n);
    CHECK(n >= 1 && f[0].kind != AU_KIND_DSMEM);
    for (size_t i = 0; i < n; ++i) {
        const char *name = f[i].name;
        CHECK(au_family_find(name) == &f[i]); /* unique: the first of its name is itself */
        if (i > 0 && f[i - 1].kind == AU_KIND_DSMEM)
            CHECK(f[i].kind == AU_KIND_DSMEM); /* the dsmem families come last */
        if (f[i].kind == AU_KIND_DSMEM) {
            /* their generic ATOM is the generic family's opcode (the cluster set prices it as DSMEM) */
            CHECK(strncmp(name, "dsmem", 5) == 0 && au_family_is_dsmem(name));
            const char *g = au_opcode_family(f[i].opcode);
            CHECK(g && strcmp(g, "generic") == 0 && f[i].wf_per_pass == 1);
            continue;
        }
        CHECK((f[i].kind == AU_KIND_GENERIC) == (strncmp(name, "generic", 7) == 0));
        const char *back = au_opcode_family(f[i].opcode);
        CHECK(back && strcmp(back, name) == 0);
        int cas = f[i].kind == AU_KIND_CAS || f[i].kind == AU_KIND_CAS_LOOP;
        CHECK(cas == (strncmp(name, "cas", 3) == 0) && cas == au_family_is_cas_class(name));
        CHECK((f[i].kind == AU_KIND_CAS_LOOP) == (strncmp(name, "cast_spin", 9) == 0));
        CHECK(f[i].wf_per_pass == (cas ? 2 : 1));
        CHECK(!au_family_is_dsmem(name));
    }
    /* names the registry does not hold: the naming convention */
    CHECK(au_family_find("cas128") == NULL && au_family_kind_of("cas128") == AU_KIND_CAS);
    CHECK(au_family_kind_of("cast_spin128") == AU_KIND_CAS_LOOP);
    CHECK(au_family_kind_of("dsmem") == AU_KIND_DSMEM && au_family_kind_of("xyz") == AU_KIND_PLAIN);
    CHECK(au_family_kind_of(NULL) == AU_KIND_PLAIN && au_family_find(NULL) == NULL);
    CHECK(au_opcode_family("ATOMS.POPC.INC") && strcmp(au_opcode_family("ATOMS.POPC.INC"), "popc_inc") == 0);
    CHECK(au_opcode_family(NULL) == NULL && au_family_kind_of("generic_max") == AU_KIND_GENERIC);
    test_generic_opcodes();
    return check_report("families");
}
