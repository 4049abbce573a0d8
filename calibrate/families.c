/*
 * families.c - the kernel family descriptors (from families.def) and family-list parsing.
 * The descriptor states what each kernel measures; the plan and the docs are derived from it.
 */
#include "cal.h"

#include <string.h>

const au_cal_family au_cal_families[] = {
#define AU_CAL_FAMILY(name, sass, width, wf_per_way, pattern, max_a, cgrid, what)                   \
    {#name, sass, width, wf_per_way, AU_CAL_PAT_##pattern, max_a, AU_CAL_CGRID_##cgrid, what},
#include "families.def"
#undef AU_CAL_FAMILY
};
const int au_cal_nfamilies = (int)(sizeof au_cal_families / sizeof au_cal_families[0]);

int au_cal_family_index(const char *name)
{
    for (int i = 0; i < au_cal_nfamilies; ++i)
        if (strcmp(au_cal_families[i].name, name) == 0)
            return i;
    return -1;
}

int au_cal_family_lanes(const au_cal_family *f, int a)
{
    /* same-bank: one lane per pass; conflict-free: a full 128-byte pass of lanes per pass */
    return f->pattern == AU_CAL_PAT_BANK ? a : a * (1024 / f->width);
}

int au_cal_parse_families(const char *list, unsigned *mask)
{
    unsigned m = 0;
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
        }
    }
    if (!m)
        return au_set_error(AU_E_INVAL, "empty family list");
    *mask = m;
    return AU_OK;
}
