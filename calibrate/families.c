/*
 * families.c - the kernel family descriptors (from the family registry,
 * model/include/atomutil/families.def: the ATOMS families, then the dsmem families) and family-list parsing.  The descriptor states what each kernel measures; the
 * plan and the docs are derived from it.
 */
#include "cal.h"

#include <string.h>

const au_cal_family au_cal_families[] = {
#define AU_FAMILY(name, opcode, kind, wf_per_pass, width, pattern, max_a, cgrid, what) \
    {#name, opcode, width, wf_per_pass, AU_CAL_PAT_##pattern, max_a, AU_CAL_CGRID_##cgrid, what, 0, 0, 0},
/* dsmem: 32-bit words, all 32 lanes on 32/a words in distinct banks, a up to 32, c = 0 only */
#define AU_DSMEM_FAMILY(name, opcode, cluster, shift, row, what) \
    {#name, opcode, 32, 1, AU_CAL_PAT_SPREAD, 32, AU_CAL_CGRID_ZERO, what, cluster, shift, row},
#include "atomutil/families.def"
#undef AU_FAMILY
#undef AU_DSMEM_FAMILY
};
const int au_cal_nfamilies = (int)(sizeof au_cal_families / sizeof au_cal_families[0]);
const int au_cal_natoms = 0
#define AU_FAMILY(name, opcode, kind, wf_per_pass, width, pattern, max_a, cgrid, what) +1
#include "atomutil/families.def"
#undef AU_FAMILY
    ;

int au_cal_is_dsmem(const au_cal_family *f)
{
    return f->cluster > 0;
}

unsigned au_cal_dsmem_mask(void)
{
    unsigned m = 0;
    for (int i = au_cal_natoms; i < au_cal_nfamilies; ++i)
        m |= 1u << i;
    return m;
}

int au_cal_family_index(const char *name)
{
    for (int i = 0; i < au_cal_nfamilies; ++i)
        if (strcmp(au_cal_families[i].name, name) == 0)
            return i;
    return -1;
}

int au_cal_family_lanes(const au_cal_family *f, int a)
{
    /* same-bank: one lane per pass; conflict-free: a full 128-byte pass of lanes per pass;
     * spread (dsmem): always the full warp, a lanes on each word */
    if (f->pattern == AU_CAL_PAT_SPREAD)
        return 32;
    return f->pattern == AU_CAL_PAT_BANK ? a : a * (1024 / f->width);
}

int au_cal_parse_families(const char *list, unsigned *mask)
{
    unsigned named;
    return au_cal_parse_families_named(list, mask, &named);
}

int au_cal_parse_families_named(const char *list, unsigned *mask, unsigned *named)
{
    unsigned m = 0, nm = 0;
    char buf[512];
    if (!list || !*list)
        return au_set_error(AU_E_INVAL, "empty family list");
    if (strlen(list) >= sizeof buf)
        return au_set_error(AU_E_INVAL, "family list too long");
    strcpy(buf, list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            for (int i = 0; i < au_cal_nfamilies; ++i)
                m |= 1u << i;
        } else {
            int i = au_cal_family_index(tok);
            if (i < 0)
                return au_set_error(AU_E_INVAL, "unknown family '%.40s' (see --list)", tok);
            m |= 1u << i;
            nm |= 1u << i;
        }
    }
    if (!m)
        return au_set_error(AU_E_INVAL, "empty family list");
    *mask = m;
    *named = nm;
    return AU_OK;
}
