/*
 * families.c - the family registry (atomutil/families.def) for the model: a family's kind, the
 * opcode-to-family map, and the pricing checks that follow from the kind.
 */
#include "internal.h"

#include <string.h>

static const au_family_def registry[] = {
#define AU_FAMILY(name, opcode, kind, wf_per_pass, width, pattern, max_a, cgrid, what) \
    {#name, opcode, AU_KIND_##kind, wf_per_pass, 0, 0, 0, width},
#define AU_DSMEM_FAMILY(name, opcode, cluster, shift, row, what) \
    {#name, opcode, AU_KIND_DSMEM, 1, cluster, shift, row, 0},
#include "atomutil/families.def"
#undef AU_FAMILY
#undef AU_DSMEM_FAMILY
};
#define NREGISTRY (sizeof registry / sizeof registry[0])

const au_family_def *au_families(size_t *count)
{
    if (count)
        *count = NREGISTRY;
    return registry;
}

const au_family_def *au_family_find(const char *name)
{
    for (size_t i = 0; name && i < NREGISTRY; ++i)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

au_family_kind au_family_kind_of(const char *family)
{
    const au_family_def *f = au_family_find(family);
    if (f)
        return f->kind;
    if (!family)
        return AU_KIND_PLAIN;
    if (strncmp(family, "cast_spin", 9) == 0)
        return AU_KIND_CAS_LOOP;
    if (strncmp(family, "cas", 3) == 0)
        return AU_KIND_CAS;
    if (strncmp(family, "generic", 7) == 0)
        return AU_KIND_GENERIC;
    return strncmp(family, "dsmem", 5) == 0 ? AU_KIND_DSMEM : AU_KIND_PLAIN;
}

const au_family_def *au_family_resolve(const char *family, au_family_def *buf)
{
    const au_family_def *f = au_family_find(family);
    if (f || !family)
        return f;
    buf->name = family;
    buf->opcode = NULL;
    buf->kind = au_family_kind_of(family);
    buf->wf_per_pass = au_kind_is_cas_class(buf->kind) ? 2 : 1;
    buf->cluster = buf->shift = buf->row = buf->width = 0;
    return buf;
}

int au_kind_is_cas_class(au_family_kind kind)
{
    return kind == AU_KIND_CAS || kind == AU_KIND_CAS_LOOP;
}

int au_family_is_cas_class(const char *family)
{
    return au_kind_is_cas_class(au_family_kind_of(family));
}

int au_family_is_cas_loop(const char *family)
{
    return au_family_kind_of(family) == AU_KIND_CAS_LOOP;
}

/* The length of a family's opcode as a prefix: a trailing ".32", the default width that some
 * opcodes spell out (ATOMS.POPC.INC.32), is left out, so that the family takes every width
 * suffix its opcode may carry. */
static size_t prefix_len(const char *opcode)
{
    size_t n = strlen(opcode);
    return n > 3 && strcmp(opcode + n - 3, ".32") == 0 ? n - 3 : n;
}

/* Whether token [t, t + n) of an opcode names a float type (F16, F16x2, F32, BF16x2, ...). */
static int float_token(const char *t, size_t n)
{
    if (n > 1 && t[0] == 'B')
        ++t, --n;
    return n > 1 && t[0] == 'F' && t[1] >= '0' && t[1] <= '9';
}

int au_generic_lands_in_shared(const char *op)
{
    /* the operations of ATOMS, and whether ATOMS has them at 64 bits (the others take a CAS loop
     * there) */
    static const struct {
        const char *name;
        int wide;
    } ops[] = {{"ADD", 0},  {"MIN", 0}, {"MAX", 0}, {"AND", 0},  {"OR", 0}, {"XOR", 0},
               {"POPC", 0}, {"INC", 1}, {"DEC", 1}, {"EXCH", 1}, {"CAS", 1}};
    if (!op || strncmp(op, "ATOM.E.", 7) != 0)
        return 0;
    const char *name = op + 7, *rest = name + strcspn(name, ".");
    size_t n = (size_t)(rest - name), i = 0;
    while (i < sizeof ops / sizeof ops[0] && !(strlen(ops[i].name) == n && strncmp(name, ops[i].name, n) == 0))
        ++i;
    if (i == sizeof ops / sizeof ops[0])
        return 0;
    const int wide_ok = ops[i].wide;
    /* the modifiers: a float type, or a 64-bit width where ATOMS has none, sends shared memory to a loop */
    while (*rest == '.') {
        const char *t = rest + 1;
        size_t k = strcspn(t, ".");
        int wide = (k == 2 && strncmp(t, "64", 2) == 0) || (k == 3 && (t[0] == 'S' || t[0] == 'U') && t[1] == '6');
        if (float_token(t, k) || (wide && !wide_ok))
            return 0;
        rest = t + k;
    }
    return 1;
}

const char *au_opcode_family(const char *op)
{
    const au_family_def *best = NULL;
    size_t best_n = 0;
    for (size_t i = 0; op && i < NREGISTRY; ++i) {
        if (registry[i].kind == AU_KIND_GENERIC) {
            if (au_generic_lands_in_shared(op))
                return registry[i].name;
            continue;
        }
        size_t n = prefix_len(registry[i].opcode);
        if (registry[i].kind == AU_KIND_DSMEM || n <= best_n)
            continue;
        if (strncmp(op, registry[i].opcode, n) == 0 && (op[n] == '\0' || op[n] == '.'))
            best = &registry[i], best_n = n;
    }
    return best ? best->name : NULL;
}
