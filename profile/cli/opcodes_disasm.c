/*
 * opcodes_disasm.c - the disassembler side of --opcodes (docs/opcodes.md): finding nvdisasm and
 * cuobjdump, a function's symbol index in its cubin, and listing the kernels: one function at a
 * time, or one nvdisasm run per cubin with the runs concurrent, split into one file per function.
 */
#define _XOPEN_SOURCE 700 /* realpath, mkstemp */
#include "opcodes_internal.h"

#include "atomutil/util.h"
#include "sass_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A CUDA tool by name, from $CUDA_HOME/bin, /usr/local/cuda/bin or PATH ("" if none). */
void au_op_find_tool(const char *name, char *out, size_t size)
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
int au_op_own_file(const char *name)
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
        if (au_op_own_file(e->d_name)) {
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
    if (size < 64 ||
        memcmp(f,
               "\x7f"
               "ELF",
               4) != 0 ||
        f[4] != 2 || f[5] != 1)
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

/* Starts argv (argv[0] a path) with stdout to the file `out` and stderr discarded, no shell (paths
 * may hold any character).  Its pid, or -1. */
static pid_t spawn_to_file(char *const argv[], const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 1) < 0 || dup2(nul, 2) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static int exited_ok(int status)
{
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Runs argv as spawn_to_file does and waits for it; 0 if it exited with 0. */
static int run_to_file(char *const argv[], const char *out)
{
    pid_t pid = spawn_to_file(argv, out);
    int st = 0;
    if (pid < 0)
        return -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return exited_ok(st) ? 0 : -1;
}

/* Where a function's listing that goes on at `from` ends: at the next ".text." after a blank or a
 * line end (the next function's .section line), else at `end`. */
static const char *section_end(const char *from, const char *end)
{
    for (const char *p = from; p < end; ++p) {
        if (!(p = memchr(p, '.', (size_t)(end - p))) || end - p < 6)
            break;
        if (memcmp(p, ".text.", 6) == 0 && (p[-1] == '\n' || p[-1] == '\t' || p[-1] == ' '))
            return p;
    }
    return end;
}

/* BASE.cubins/<crc>-<symbol>.sass: the listing of one function. */
void au_op_sass_path(char *out, size_t size, const char *dir, const code_line *k)
{
    snprintf(out, size, "%s/%u-%ld.sass", dir, k->crc, k->sym);
}

/* ------------------------------------------------------------------ listings */

/* Writes the listing of code line k (its cubin dir/<crc>.cubin read, symbol index known) to `out`:
 * nvdisasm -gi (else -g) of just that function, else cuobjdump -sass -fun NAME (no source lines).
 * 0 on success. */
int au_op_list_function(lister *L, const char *dir, const code_line *k, const char *out)
{
    char path[8192], symtxt[32];
    snprintf(path, sizeof path, "%s/%u.cubin", dir, k->crc);
    snprintf(symtxt, sizeof symtxt, "%ld", k->sym);
    for (int gi = 1; L->nvdisasm[0] && gi >= 0; --gi) {
        char *flags = gi ? "-gi" : "-g";
        char *argv[] = {L->nvdisasm, flags, "-fun", symtxt, path, NULL};
        L->st->nvdisasm_runs++;
        if (run_to_file(argv, out) == 0) {
            char *buf;
            size_t len;
            if (au_read_file(out, (size_t)1 << 31, &buf, &len) == AU_OK) {
                au_op_cache_put(L, k, flags, buf, len);
                free(buf);
            }
            return 0;
        }
    }
    if (L->cuobjdump[0]) {
        char *argv[] = {L->cuobjdump, "-sass", "-fun", k->mangled, path, NULL};
        L->st->cuobjdump_runs++;
        if (run_to_file(argv, out) == 0)
            return 0;
    }
    unlink(out);
    return -1;
}

/* One nvdisasm run for the functions of one cubin that have no listing yet (its start costs more
 * than the listing): nvdisasm -gi -fun I,J,... CUBIN > <crc>.part. */
typedef struct {
    char cubin[8192], part[8300];
    char *list; /* the symbol indices, "I,J,..." */
    size_t *fn; /* its functions: indices of code lines */
    size_t n;
    pid_t pid;
    int ok; /* nvdisasm exited with 0 */
} batch;

static void batch_free(batch *b)
{
    free(b->list);
    free(b->fn);
}

/* For the code lines of cubin code[first].crc that a launch needs (want == 1): reads the cubin
 * once, finds their symbol indices, and takes the listings they lack from the cache; the
 * functions left go into b (b->n == 0: none).  AU_OK, or AU_E_NOMEM. */
static int prepare_cubin(lister *L, const char *dir, code_line *code, size_t ncode, size_t first, batch *b)
{
    uint32_t crc = code[first].crc;
    char *buf = NULL, one[8300];
    size_t len = 0, need = 0;
    memset(b, 0, sizeof *b);
    snprintf(b->cubin, sizeof b->cubin, "%s/%u.cubin", dir, crc);
    int have = au_op_read_code_file(b->cubin, &buf, &len) == AU_OK;
    for (size_t j = first; j < ncode; ++j) {
        code_line *k = &code[j];
        if (k->want != 1 || k->crc != crc)
            continue;
        k->want = 2;
        k->have_cubin = have;
        k->sym = have ? elf_function_index((const unsigned char *)buf, len, k->mangled) : -1;
        k->size = len;
        au_op_sass_path(one, sizeof one, dir, k);
        need += k->sym >= 0 && access(one, R_OK) != 0;
    }
    if (need == 0) {
        free(buf);
        return AU_OK;
    }
    L->st->cubins++;
    uint64_t hash = 0;
    int hashed = L->nvdisasm_id[0] && au_op_cache_open(L);
    if (hashed)
        hash = au_op_fnv1a(buf, len, FNV_START);
    free(buf);
    b->list = malloc(24 * need + 1);
    b->fn = calloc(need, sizeof *b->fn);
    if (!b->list || !b->fn) {
        batch_free(b);
        memset(b, 0, sizeof *b);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    size_t used = 0;
    b->list[0] = '\0';
    for (size_t j = first; j < ncode; ++j) {
        code_line *k = &code[j];
        if (k->want != 2 || k->crc != crc || k->sym < 0)
            continue;
        k->hash = hash;
        k->hashed = hashed;
        au_op_sass_path(one, sizeof one, dir, k);
        if (access(one, R_OK) == 0 || au_op_cache_get(L, k, "-gi", one) || au_op_cache_get(L, k, "-g", one))
            continue;
        used += (size_t)snprintf(b->list + used, 24 * need + 1 - used, "%s%ld", b->n ? "," : "", k->sym);
        b->fn[b->n++] = j;
    }
    snprintf(b->part, sizeof b->part, "%s/%u.part", dir, crc);
    return AU_OK;
}

/* Runs the batches' nvdisasm concurrently, as many at a time as there are online CPUs (at most 8),
 * and waits for all.  A batch that cannot start, or fails, leaves its functions to
 * list_function. */
static void run_batches(lister *L, batch *b, size_t nb)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t most = cpus < 1 ? 1 : cpus > 8 ? 8 : (size_t)cpus, next = 0, running = 0;
    while (next < nb || running > 0) {
        while (next < nb && running < most) {
            /* -gi: line info with the inline frames, so that a source line can be the user's */
            char *argv[] = {L->nvdisasm, "-gi", "-fun", b[next].list, b[next].cubin, NULL};
            b[next].pid = spawn_to_file(argv, b[next].part);
            if (b[next].pid > 0) {
                ++running;
                L->st->nvdisasm_runs++;
            }
            ++next;
        }
        if (running == 0)
            continue;
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0) /* no child left to wait for: none of ours can still finish */
            break;
        for (size_t i = 0; i < next; ++i)
            if (b[i].pid == pid) {
                b[i].ok = exited_ok(st);
                b[i].pid = 0;
                --running;
            }
    }
}

/* Splits a batch's nvdisasm output at the functions' ".text.NAME:" section headers into one
 * <crc>-<symbol>.sass each, and keeps each in the cache.  Functions it does not hold are left to
 * list_function. */
static void split_batch(lister *L, const char *dir, const code_line *code, const batch *b)
{
    char *buf;
    size_t len;
    if (b->ok && au_read_file(b->part, (size_t)1 << 31, &buf, &len) == AU_OK) {
        for (size_t i = 0; i < b->n; ++i) {
            const code_line *k = &code[b->fn[i]];
            const char *at = au_op_find_section(buf, len, k->mangled);
            if (!at)
                continue;
            size_t sz = (size_t)(section_end(at + 7 + strlen(k->mangled), buf + len) - at);
            char one[8300];
            au_op_sass_path(one, sizeof one, dir, k);
            if (au_op_write_file(one, at, sz) == 0)
                au_op_cache_put(L, k, "-gi", at, sz);
        }
        free(buf);
    }
    unlink(b->part);
}
/* Makes the listings of the code lines that a launch needs (want == 1) that dir lacks: from the
 * cache, else with one nvdisasm run per cubin, the runs concurrent.  AU_OK, or AU_E_NOMEM. */
int au_op_list_wanted(lister *L, const char *cubin_dir, code_line *code, size_t ncode)
{
    batch *b = calloc(ncode, sizeof *b); /* at most one per cubin */
    size_t nb = 0;
    int rc = b ? AU_OK : au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t j = 0; j < ncode && rc == AU_OK; ++j) {
        if (code[j].want != 1)
            continue;
        rc = prepare_cubin(L, cubin_dir, code, ncode, j, &b[nb]);
        if (rc == AU_OK && b[nb].n > 0)
            ++nb;
        else
            batch_free(&b[nb]);
    }
    if (rc == AU_OK && L->nvdisasm[0]) {
        run_batches(L, b, nb);
        for (size_t i = 0; i < nb; ++i)
            split_batch(L, cubin_dir, code, &b[i]);
    }
    for (size_t i = 0; i < nb; ++i)
        batch_free(&b[i]);
    free(b);
    return rc;
}
