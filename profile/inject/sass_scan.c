/*
 * sass_scan.c - the atomic forms of a kernel's code, from its cubin (sass_scan.h).
 *
 * From sm_70 on every instruction is 16 bytes and its opcode sits in the low bits of the first 8
 * (little-endian): bits 0-8 name the instruction, bits 9-11 its operands' form (0x38c and 0x98c
 * are both ATOMS, the latter with a uniform-register address).  The atomics' values, read with
 * nvdisasm -hex from cubins of sm_75 to sm_121 (probes/generic_ops.cu, the examples;
 * tests/data/sass-encodings): ATOMS 0x18c (CAS and CAST.SPIN 0x18d); generic ATOM 0x18a (integer
 * operations, EXCH; before sm_90 float adds too), 0x18b (CAS, CAST.SPIN), and from sm_90 0x1a2
 * (float adds, which only go to global memory: for shared memory the compiler branches to a CAS
 * loop); ATOMG 0x1a8 and 0x1a3, RED / REDG 0x18e.  No other instruction of those listings shares
 * these values.
 */
#include "sass_scan.h"

#include <stdint.h>
#include <string.h>

static uint64_t rd(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

int au_sass_form(unsigned op)
{
    switch (op & 0x1ff) {
    case 0x18c:
    case 0x18d: return AU_SASS_ATOMS;
    case 0x18a:
    case 0x18b: return AU_SASS_GENERIC;
    case 0x1a2:
    case 0x1a8:
    case 0x1a3:
    case 0x18e: return AU_SASS_GLOBAL;
    default: return 0;
    }
}

/* The architecture (sm_XY as XY) from the ELF header: e_flags holds it in bits 8-15 from ABI
 * version 8 on, in bits 0-7 before. */
static unsigned elf_arch(const unsigned char *d)
{
    uint32_t flags = (uint32_t)rd(d + 0x30, 4);
    return d[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
}

int au_cubin_text(const void *data, size_t size, const char *mangled, size_t *off, size_t *len)
{
    const unsigned char *d = data;
    /* 64-bit little-endian ELF, CUDA's: ELFCLASS64, ELFDATA2LSB, e_machine EM_CUDA (190) */
    if (!d || !mangled || size < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1 || rd(d + 0x12, 2) != 190)
        return -1;
    uint64_t shoff = rd(d + 0x28, 8);
    size_t shentsize = (size_t)rd(d + 0x3a, 2), shnum = (size_t)rd(d + 0x3c, 2), shstrndx = (size_t)rd(d + 0x3e, 2);
    if (shentsize < 64 || shnum == 0 || shstrndx >= shnum || shoff > size || (size - shoff) / shentsize < shnum)
        return -1;
    const unsigned char *strsec = d + shoff + shstrndx * shentsize;
    uint64_t stroff = rd(strsec + 0x18, 8), strsize = rd(strsec + 0x20, 8);
    if (stroff > size || strsize > size - stroff)
        return -1;
    size_t ml = strlen(mangled);
    for (size_t i = 0; i < shnum; ++i) {
        const unsigned char *sh = d + shoff + i * shentsize;
        uint64_t name = rd(sh, 4), o = rd(sh + 0x18, 8), n = rd(sh + 0x20, 8);
        /* ".text.<mangled>\0" inside the section-name table */
        if (name >= strsize || strsize - name < 7 + ml)
            continue;
        const char *nm = (const char *)d + stroff + name;
        if (memcmp(nm, ".text.", 6) != 0 || memcmp(nm + 6, mangled, ml) != 0 || nm[6 + ml] != '\0')
            continue;
        if (o > size || n > size - o)
            return -1;
        if (off)
            *off = (size_t)o;
        if (len)
            *len = (size_t)n;
        return 0;
    }
    return -1;
}

int au_sass_scan(const void *data, size_t size, const char *mangled)
{
    size_t off, len;
    if (au_cubin_text(data, size, mangled, &off, &len) != 0 || elf_arch(data) < 70)
        return -1;
    const unsigned char *d = data;
    int forms = 0;
    for (size_t k = 0; k + 16 <= len; k += 16)
        forms |= au_sass_form((unsigned)rd(d + off + k, 2));
    return forms;
}
