/*
 * test_sass_scan.c - sass_scan.c against nvdisasm and nvcc:
 *   test_sass_scan OPCODES_TXT [CUBIN...]
 * OPCODES_TXT (tests/data/sass-encodings/opcodes.txt): every mnemonic and opcode nvdisasm showed
 * for sm_75..sm_121; each must map to its form (ATOMS, ATOM: generic, ATOMG/RED/REDG: global, the
 * rest none).  Each CUBIN is tests/inject/sass_forms.cu for one architecture, whose kernels' forms
 * are known by construction.
 */
#include "sass_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

static int expected_form(const char *m, unsigned op)
{
    if (strncmp(m, "ATOMS", 5) == 0)
        return AU_SASS_ATOMS;
    if (strncmp(m, "ATOMG", 5) == 0 || strncmp(m, "RED.", 4) == 0 || strncmp(m, "REDG", 4) == 0)
        return AU_SASS_GLOBAL;
    if (strncmp(m, "ATOM.", 5) == 0)
        /* float adds never land in shared memory; before sm_90 they share the integer opcodes */
        return strstr(m, ".F32") && (op & 0x1ff) == 0x1a2 ? AU_SASS_GLOBAL : AU_SASS_GENERIC;
    return 0;
}

static void check_listing(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot read %s\n", path);
        fails++;
        return;
    }
    char line[512], arch[32], m[256];
    unsigned op;
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%31s %255s %x", arch, m, &op) == 3) {
            n++;
            int want = expected_form(m, op), got = au_sass_form(op);
            if (got != want) {
                printf("FAIL %s %s 0x%03x: form %d, want %d\n", arch, m, op, got, want);
                fails++;
            }
        }
    fclose(f);
    printf("%s: %d opcodes checked\n", path, n);
    if (n < 1000) {
        printf("FAIL too few opcodes in %s\n", path);
        fails++;
    }
}

static void check_cubin(const char *path)
{
    static const struct {
        const char *kernel;
        int forms;
    } want[] = {{"k_none", 0},
                {"k_shared", AU_SASS_ATOMS},
                {"k_generic", AU_SASS_GENERIC},
                {"k_global", AU_SASS_GLOBAL},
                {"k_both", AU_SASS_ATOMS | AU_SASS_GENERIC}};
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)size)) && fread(data, 1, (size_t)size, f) != (size_t)size)
        size = -1;
    if (f)
        fclose(f);
    if (!data || size <= 0) {
        printf("FAIL cannot read %s\n", path);
        fails++;
        free(data);
        return;
    }
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        int got = au_sass_scan(data, (size_t)size, want[i].kernel);
        printf("%s %s: forms %d%s\n", path, want[i].kernel, got, got == want[i].forms ? "" : "  FAIL");
        fails += got != want[i].forms;
    }
    /* the section lookup the code-keeping shares: the kernel's code, whole instructions */
    size_t off = 0, len = 0;
    fails += au_cubin_text(data, (size_t)size, "k_shared", &off, &len) != 0 || len == 0 || len % 16 != 0 ||
             off + len > (size_t)size;
    fails += au_cubin_text(data, (size_t)size, "k_share", NULL, NULL) != -1; /* a prefix is no name */
    /* a kernel the cubin does not hold, a truncated and a foreign file */
    fails += au_sass_scan(data, (size_t)size, "k_absent") != -1;
    fails += au_sass_scan(data, 40, "k_shared") != -1;
    fails += au_sass_scan("\177ELF not a cubin at all, long enough to read a header from", 64, "k_shared") != -1;
    free(data);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_sass_scan OPCODES_TXT [CUBIN...]\n");
        return 2;
    }
    check_listing(argv[1]);
    for (int i = 2; i < argc; ++i)
        check_cubin(argv[i]);
    printf("%s\n", fails ? "FAILED" : "all forms as expected");
    return fails != 0;
}
