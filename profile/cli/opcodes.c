/*
 * opcodes.c - atomutil-profile --opcodes (docs/opcodes.md).  The live run's injection library keeps
 * the cubin of every measured kernel in BASE.cubins/ and names it on a "code:" line of the counters
 * file; here each kernel with shared-atomic jobs is disassembled alone (nvdisasm -g of its symbol
 * index, for source lines; else cuobjdump -sass -fun), and au_launch_apply_opcodes prices the
 * launch by the families of the kernel's ATOMS opcodes.  (CUPTI's SASS metrics would count each
 * instruction, but on CUDA 13.0 they count only the first kernel a context launches:
 * tests/device/sass_api_check.cu.)
 */
#define _POSIX_C_SOURCE 200809L
#include "opcodes.h"

#include "atomutil/util.h"
#include "sass_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *prog = "atomutil-profile";

/* A CUDA tool by name, from $CUDA_HOME/bin, /usr/local/cuda/bin or PATH ("" if none). */
static void find_tool(const char *name, char *out, size_t size)
{
    const char *home = getenv("CUDA_HOME");
    const char *dirs[] = {home, "/usr/local/cuda"};
    for (size_t i = 0; i < 2; ++i) {
        if (!dirs[i] || !*dirs[i])
            continue;
        snprintf(out, size, "%s/bin/%s", dirs[i], name);
        if (access(out, X_OK) == 0)
            return;
    }
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(out, size, "%.*s/%s", (int)dl, p, name);
        if (dl && access(out, X_OK) == 0)
            return;
        if (!colon)
            break;
        p = colon + 1;
    }
    out[0] = '\0';
}

/* Our own files in a cubin directory: "<crc>.cubin" and "<crc>-<symbol>.sass" (the listing of
 * one function). */
static int own_file(const char *name)
{
    size_t d = strspn(name, "0123456789");
    if (d == 0)
        return 0;
    if (strcmp(name + d, ".cubin") == 0)
        return 1;
    if (name[d] != '-')
        return 0;
    size_t e = strspn(name + d + 1, "0123456789");
    return e > 0 && strcmp(name + d + 1 + e, ".sass") == 0;
}

void au_opcodes_remove(const char *cubin_dir)
{
    DIR *d = opendir(cubin_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (own_file(e->d_name)) {
            char p[8192];
            snprintf(p, sizeof p, "%s/%s", cubin_dir, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
    rmdir(cubin_dir);
}

/* ------------------------------------------------------------------ ELF symbol lookup */

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Symbol-table index of the function `name` in a cubin (ELF64, little endian), for
 * nvdisasm --cuda-function-index; -1 if not found or not a cubin. */
static long elf_function_index(const unsigned char *f, size_t size, const char *name)
{
    if (size < 64 || memcmp(f, "\x7f" "ELF", 4) != 0 || f[4] != 2 || f[5] != 1)
        return -1;
    uint64_t shoff = le(f + 0x28, 8), shentsize = le(f + 0x3a, 2), shnum = le(f + 0x3c, 2);
    if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize)
        return -1;
    size_t nl = strlen(name);
    for (uint64_t i = 0; i < shnum; ++i) {
        const unsigned char *sh = f + shoff + i * shentsize;
        if (le(sh + 4, 4) != 2) /* SHT_SYMTAB */
            continue;
        uint64_t off = le(sh + 0x18, 8), sz = le(sh + 0x20, 8), link = le(sh + 0x28, 4), ent = le(sh + 0x38, 8);
        if (ent < 24 || off > size || sz > size - off || link >= shnum)
            continue;
        const unsigned char *st = f + shoff + link * shentsize;
        uint64_t soff = le(st + 0x18, 8), ssz = le(st + 0x20, 8);
        if (soff > size || ssz > size - soff)
            continue;
        for (uint64_t k = 0; k < sz / ent; ++k) {
            const unsigned char *sym = f + off + k * ent;
            uint64_t nm = le(sym, 4);
            if ((sym[4] & 0xf) != 2 || nm >= ssz || ssz - nm <= nl) /* STT_FUNC, room for name + NUL */
                continue;
            const char *sn = (const char *)f + soff + nm;
            if (memcmp(sn, name, nl) == 0 && sn[nl] == '\0')
                return (long)k;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------ listings */

/* Runs argv (argv[0] a path) with stdout to the file `out` and stderr discarded, no shell (paths
 * may hold any character); 0 if it exited with 0. */
static int run_to_file(char *const argv[], const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 1) < 0 || dup2(nul, 2) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Writes the listing of one function of dir/<crc>.cubin (symbol index sym) to `out`: nvdisasm -gi
 * (else -g) of just that function, else cuobjdump -sass -fun NAME (no source lines).  0 on
 * success. */
static int list_function(const char *dir, uint32_t crc, const char *mangled, long sym, const char *out)
{
    static char nvdisasm[1024], cuobjdump[1024];
    static int found;
    if (!found) {
        find_tool("nvdisasm", nvdisasm, sizeof nvdisasm);
        find_tool("cuobjdump", cuobjdump, sizeof cuobjdump);
        found = 1;
    }
    char path[8192], symtxt[32];
    snprintf(path, sizeof path, "%s/%u.cubin", dir, crc);
    snprintf(symtxt, sizeof symtxt, "%ld", sym);
    for (int gi = 1; nvdisasm[0] && gi >= 0; --gi) {
        char *argv[] = {nvdisasm, gi ? "-gi" : "-g", "-fun", symtxt, path, NULL};
        if (run_to_file(argv, out) == 0)
            return 0;
    }
    if (cuobjdump[0]) {
        char *argv[] = {cuobjdump, "-sass", "-fun", (char *)mangled, path, NULL};
        if (run_to_file(argv, out) == 0)
            return 0;
    }
    unlink(out);
    return -1;
}

/* Lists the functions names[0..n) of dir/<crc>.cubin that have no <crc>-<symbol>.sass yet with one
 * nvdisasm run (its start costs more than the listing) and splits its output at the ".text.NAME:"
 * section headers into one file per function.  Functions it could not list are left to
 * list_function. */
static void list_functions(const char *dir, uint32_t crc, const char *const *names, size_t n)
{
    char nvdisasm[1024];
    find_tool("nvdisasm", nvdisasm, sizeof nvdisasm);
    if (!nvdisasm[0] || n == 0)
        return;
    char cubin[8192], tmp[8300], *buf;
    size_t len;
    snprintf(cubin, sizeof cubin, "%s/%u.cubin", dir, crc);
    if (au_read_file(cubin, (size_t)1 << 31, &buf, &len) != AU_OK)
        return;
    long *sym = calloc(n, sizeof *sym);
    size_t listcap = 24 * n + 1, used = 0, missing = 0;
    char *list = malloc(listcap);
    if (!sym || !list) {
        free(sym);
        free(list);
        free(buf);
        return;
    }
    list[0] = '\0';
    for (size_t i = 0; i < n; ++i) {
        sym[i] = elf_function_index((const unsigned char *)buf, len, names[i]);
        char one[8300];
        snprintf(one, sizeof one, "%s/%u-%ld.sass", dir, crc, sym[i]);
        if (sym[i] < 0 || access(one, R_OK) == 0)
            continue;
        used += (size_t)snprintf(list + used, listcap - used, "%s%ld", missing ? "," : "", sym[i]);
        ++missing;
    }
    free(buf);
    snprintf(tmp, sizeof tmp, "%s/%u.part", dir, crc);
    /* -gi: line info with the inline frames, so that a source line can be the user's */
    char *argv[] = {nvdisasm, "-gi", "-fun", list, cubin, NULL};
    if (missing && run_to_file(argv, tmp) == 0 && au_read_file(tmp, (size_t)1 << 31, &buf, &len) == AU_OK) {
        /* split at the section headers: "\t.text.NAME:" lines */
        for (size_t i = 0; i < n; ++i) {
            if (sym[i] < 0)
                continue;
            char head[4200], one[8300];
            snprintf(head, sizeof head, ".text.%s:", names[i]);
            snprintf(one, sizeof one, "%s/%u-%ld.sass", dir, crc, sym[i]);
            if (access(one, R_OK) == 0)
                continue;
            char *at = NULL;
            for (char *p = buf; (p = strstr(p, head)) != NULL; p += 1) {
                char *eol = p + strlen(head);
                if ((p == buf || p[-1] == '\n' || p[-1] == '\t' || p[-1] == ' ') && (*eol == '\n' || *eol == '\r')) {
                    at = p;
                    break;
                }
            }
            if (!at)
                continue;
            char *end = strstr(at + strlen(head), ".text.");
            while (end && !(end[-1] == '\n' || end[-1] == '\t' || end[-1] == ' '))
                end = strstr(end + 1, ".text.");
            size_t sz = end ? (size_t)(end - at) : len - (size_t)(at - buf);
            FILE *f = fopen(one, "w");
            if (f) {
                int ok = fwrite(at, 1, sz, f) == sz;
                if (fclose(f) != 0 || !ok)
                    unlink(one);
            }
        }
        free(buf);
    }
    unlink(tmp);
    free(sym);
    free(list);
}

typedef struct {
    char path[8192];
    au_sass_ops ops;
    char *text; /* the listing files' text, for the load sites of CAS loops */
    size_t len;
} listing;

/* Appends the parse of one listing file to l's ops (a file that does not parse adds nothing) and
 * its text to l's text. */
static void add_listing(listing *l, const char *path)
{
    au_sass_ops *ops = &l->ops;
    char *buf;
    size_t len;
    if (au_read_file(path, (size_t)1 << 31, &buf, &len) != AU_OK)
        return;
    /* each file on lines of its own: a file need not end with a line end */
    char *nt = realloc(l->text, l->len + len + 2);
    if (nt) {
        memcpy(nt + l->len, buf, len);
        l->len += len;
        nt[l->len++] = '\n';
        nt[l->len] = '\0';
        l->text = nt;
    }
    au_sass_ops one;
    memset(&one, 0, sizeof one);
    if (au_sass_ops_parse(buf, len, &one) == AU_OK && one.count) {
        au_sass_op *nv = realloc(ops->v, (ops->count + one.count) * sizeof *nv);
        if (nv) {
            memcpy(nv + ops->count, one.v, one.count * sizeof *nv);
            ops->v = nv;
            ops->count += one.count;
            ops->cap = ops->count;
            free(one.v); /* the ops' strings moved to ops */
            one.v = NULL;
            one.count = 0;
        }
    }
    au_sass_ops_free(&one);
    free(buf);
}

/* The parsed listing that holds `mangled` of cubin crc: with the cubin, the function's
 * <crc>-<symbol>.sass (made now if missing); without it (an --import of kept listings), every
 * <crc>-*.sass of dir together.  NULL if none can be had. */
static const listing *listing_for(listing **cache, size_t *n, size_t *cap, const char *dir,
                                   uint32_t crc, const char *mangled)
{
    char path[8192], cubin[8192];
    snprintf(cubin, sizeof cubin, "%s/%u.cubin", dir, crc);
    char *buf;
    size_t len;
    int have_cubin = au_read_file(cubin, (size_t)1 << 31, &buf, &len) == AU_OK;
    if (have_cubin) {
        long sym = elf_function_index((const unsigned char *)buf, len, mangled);
        free(buf);
        if (sym < 0)
            return NULL;
        snprintf(path, sizeof path, "%s/%u-%ld.sass", dir, crc, sym);
        if (access(path, R_OK) != 0 && list_function(dir, crc, mangled, sym, path) != 0)
            return NULL;
    } else {
        snprintf(path, sizeof path, "%s/%u-*.sass", dir, crc);
    }
    for (size_t i = 0; i < *n; ++i)
        if (strcmp((*cache)[i].path, path) == 0)
            return &(*cache)[i];
    if (au_grow(cache, cap, *n, sizeof **cache, 8) != 0)
        return NULL;
    listing *l = &(*cache)[(*n)++];
    memset(l, 0, sizeof *l);
    au_strlcpy(l->path, path, sizeof l->path);
    if (have_cubin) {
        add_listing(l, path);
        return l;
    }
    DIR *d = opendir(dir);
    if (!d)
        return l;
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "%u-", crc);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)pl) != 0 || !own_file(e->d_name))
            continue;
        char one[8192];
        snprintf(one, sizeof one, "%s/%s", dir, e->d_name);
        add_listing(l, one);
    }
    closedir(d);
    return l;
}

/* "code:" lines of a counters file: kernel (demangled) -> cubin CRC and mangled name. */
typedef struct {
    char *demangled, *mangled;
    uint32_t crc;
    au_load_sites sites; /* where the kernel's shared loads sit (found once, at its first launch) */
    int have_sites;
} code_line;

static int read_code_lines(const char *path, code_line **out, size_t *nout)
{
    char *buf;
    size_t len;
    int rc = au_read_file(path, (size_t)1 << 31, &buf, &len);
    if (rc)
        return rc;
    code_line *v = NULL;
    size_t n = 0, cap = 0;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *p;
        if (strncmp(line, "==ATOMUTIL== ", 13) == 0 && (p = strstr(line, " code: ")) != NULL) {
            p += 7;
            char *end;
            unsigned long crc = strtoul(p, &end, 10);
            char *mangled = end;
            while (*mangled == ' ')
                ++mangled;
            char *sp = strchr(mangled, ' ');
            if (end != p && sp && sp[1]) {
                *sp = '\0';
                size_t k;
                for (k = 0; k < n; ++k)
                    if (strcmp(v[k].demangled, sp + 1) == 0)
                        break;
                if (k == n) {
                    if (au_grow(&v, &cap, n, sizeof *v, 16) != 0)
                        break;
                    memset(&v[n], 0, sizeof v[n]);
                    v[n].demangled = strdup(sp + 1);
                    v[n].mangled = strdup(mangled);
                    v[n].crc = (uint32_t)crc;
                    if (v[n].demangled && v[n].mangled)
                        ++n;
                    else {
                        free(v[n].demangled);
                        free(v[n].mangled);
                    }
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
    *out = v;
    *nout = n;
    return AU_OK;
}

/* The kernel's instructions from its listing (ATOMS and ATOM; the model keeps ATOMS). */
static int kernel_instructions(const au_sass_ops *ops, const char *mangled, au_instr **out, size_t *nout)
{
    au_instr *v = calloc(ops->count ? ops->count : 1, sizeof *v);
    if (!v)
        return au_set_error(AU_E_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < ops->count; ++i) {
        const au_sass_op *op = &ops->v[i];
        if (strcmp(op->function, mangled) != 0)
            continue;
        au_strlcpy(v[n].function, op->function, sizeof v[n].function);
        v[n].pc = op->pc;
        au_strlcpy(v[n].opcode, op->opcode, sizeof v[n].opcode);
        au_strlcpy(v[n].source, op->source, sizeof v[n].source);
        ++n;
    }
    *out = v;
    *nout = n;
    return AU_OK;
}

int au_opcodes_have_code(const char *cubin_dir)
{
    DIR *d = opendir(cubin_dir);
    if (!d)
        return 0;
    closedir(d);
    return 1;
}

int au_opcodes_attach(au_report *rep, const au_table *t, const char *counters_path, const char *cubin_dir,
                      int quiet)
{
    code_line *code = NULL;
    size_t ncode = 0;
    int rc = read_code_lines(counters_path, &code, &ncode);
    if (rc)
        return rc;
    if (ncode == 0) {
        free(code);
        return au_set_error(AU_E_NOTFOUND, "%s: names no kernel code (made by a live run of atomutil-profile?)",
                            counters_path);
    }
    listing *cache = NULL;
    size_t ncache = 0, capcache = 0, nocode = 0, unlisted = 0;
    /* one nvdisasm run per cubin for the kernels that need a listing */
    const char **names = calloc(ncode ? ncode : 1, sizeof *names);
    int *want = calloc(ncode ? ncode : 1, sizeof *want);
    if (!names || !want) {
        free(names);
        free(want);
        rc = au_set_error(AU_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < rep->count && rc == AU_OK; ++i) {
        const au_launch *l = &rep->launches[i];
        if (!(l->ctr.jobs > 0) || (l->res.flags & AU_F_MISSING) || !l->kernel)
            continue;
        for (size_t j = 0; j < ncode; ++j)
            if (strcmp(code[j].demangled, l->kernel) == 0) {
                want[j] = 1;
                break;
            }
    }
    for (size_t j = 0; j < ncode && rc == AU_OK; ++j) {
        if (want[j] != 1)
            continue;
        size_t n = 0;
        for (size_t k = j; k < ncode; ++k)
            if (want[k] == 1 && code[k].crc == code[j].crc) {
                names[n++] = code[k].mangled;
                want[k] = 2;
            }
        list_functions(cubin_dir, code[j].crc, names, n);
    }
    free(names);
    free(want);
    for (size_t i = 0; i < rep->count && rc == AU_OK; ++i) {
        au_launch *l = &rep->launches[i];
        if (!(l->ctr.jobs > 0) || (l->res.flags & AU_F_MISSING))
            continue; /* no shared-atomic jobs to price: no listing needed */
        code_line *k = NULL;
        for (size_t j = 0; j < ncode && !k && l->kernel; ++j)
            if (strcmp(code[j].demangled, l->kernel) == 0)
                k = &code[j];
        if (!k) {
            ++nocode;
            continue;
        }
        const listing *ls = listing_for(&cache, &ncache, &capcache, cubin_dir, k->crc, k->mangled);
        const au_sass_ops *ops = ls ? &ls->ops : NULL;
        if (!ops || ops->count == 0) {
            ++unlisted;
            continue;
        }
        au_instr *v;
        size_t n;
        if ((rc = kernel_instructions(ops, k->mangled, &v, &n)) != AU_OK)
            break;
        /* where the kernel's shared loads sit, for the loads of its CAS loops */
        if (!k->have_sites && ls->text) {
            if ((rc = au_sass_load_sites(ls->text, ls->len, k->mangled, &k->sites)) != AU_OK) {
                free(v);
                break;
            }
            k->have_sites = 1;
        }
        l->sites = k->sites;
        rc = au_launch_apply_opcodes(l, t, v, n, &rep->thr, rep->busy);
        free(v);
    }
    for (size_t i = 0; i < ncache; ++i) {
        au_sass_ops_free(&cache[i].ops);
        free(cache[i].text);
    }
    free(cache);
    for (size_t j = 0; j < ncode; ++j) {
        free(code[j].demangled);
        free(code[j].mangled);
    }
    free(code);
    if (rc)
        return rc;
    if (!quiet && nocode)
        fprintf(stderr, "%s: warning: %zu launches with shared-atomic jobs have no kernel code in %s: priced as "
                        "'%s'\n", prog, nocode, counters_path, rep->family);
    if (!quiet && unlisted)
        fprintf(stderr, "%s: warning: %zu launches with shared-atomic jobs: their kernel could not be listed from "
                        "%s (nvdisasm and cuobjdump of the CUDA toolkit missing?): priced as '%s'\n", prog, unlisted,
                cubin_dir, rep->family);
    return AU_OK;
}
