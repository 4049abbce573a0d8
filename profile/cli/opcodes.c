/*
 * opcodes.c - atomutil-profile --opcodes (docs/opcodes.md).  The live run's injection library keeps
 * the cubin of every measured kernel in BASE.cubins/ and names it on a "code:" line of the counters
 * file; here each kernel with shared-atomic jobs is disassembled alone (nvdisasm -gi of its symbol
 * index, for source lines; else cuobjdump -sass -fun), and au_launch_apply_opcodes prices the
 * launch by the families of the kernel's ATOMS opcodes.  A framework's cubins take seconds to list,
 * so listings are kept in a cache keyed by the cubin's content and the disassembler, and the cubins
 * that still need nvdisasm are listed concurrently.  (CUPTI's SASS metrics would count each
 * instruction, but on CUDA 13.0 they count only the first kernel a context launches:
 * tests/device/sass_api_check.cu.)
 */
#define _XOPEN_SOURCE 700 /* realpath, mkstemp */
#include "opcodes.h"

#include "atomutil/util.h"
#include "sass_file.h"

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


/* FNV-1a, 64 bits, continued from h (FNV_START for a new hash): the listing cache's hash of a
 * cubin's content, of a key and of an entry's listing. */
#define FNV_START 0xcbf29ce484222325ULL
static uint64_t fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
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

/* Writes data[0..len) to path; 0 on success, else -1 and no file. */
static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    if (fclose(f) != 0 || !ok) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* The ".text.NAME:" header line of function `name` in text[0..len) (blanks before it, nothing
 * after it but a '\r'): a pointer to its ".text.", or NULL. */
static const char *find_section(const char *text, size_t len, const char *name)
{
    size_t nl = strlen(name);
    const char *end = text + len;
    for (const char *s = text; s < end;) {
        const char *eol = memchr(s, '\n', (size_t)(end - s)), *le = eol ? eol : end, *t = s;
        while (t < le && (*t == ' ' || *t == '\t'))
            ++t;
        if (le > t && le[-1] == '\r')
            --le;
        if ((size_t)(le - t) == nl + 7 && memcmp(t, ".text.", 6) == 0 && memcmp(t + 6, name, nl) == 0 &&
            t[6 + nl] == ':')
            return t;
        s = eol ? eol + 1 : end;
    }
    return NULL;
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

/* 1 if text[0..len) can be the listing of function `name`: it holds the function's ".text.NAME:"
 * header and parses. */
static int listing_ok(const char *text, size_t len, const char *name)
{
    if (!find_section(text, len, name))
        return 0;
    au_sass_ops ops;
    memset(&ops, 0, sizeof ops);
    int ok = au_sass_ops_parse(text, len, &ops) == AU_OK;
    au_sass_ops_free(&ops);
    return ok;
}

/* "code:" lines of a counters file: kernel (demangled) -> cubin CRC and mangled name; and what
 * listing the kernel gets. */
typedef struct {
    char *demangled, *mangled;
    uint32_t crc;
    int want;            /* a launch with shared-atomic jobs needs its listing (2: cubin read) */
    int have_cubin;      /* its cubin could be read */
    long sym;            /* its symbol index in the cubin, -1 if not found */
    uint64_t hash;       /* FNV-1a of the cubin's bytes (hashed: for the listing cache) */
    size_t size;         /* the cubin's size */
    int hashed;
    au_load_sites sites; /* where the kernel's shared loads sit (found once, at its first launch) */
    int have_sites;
    int warned;          /* its listing's lack of atomics was said */
} code_line;

/* What lists the kernels: the tools, the listing cache, the counts for --timing. */
typedef struct {
    char nvdisasm[1024], cuobjdump[1024];
    char nvdisasm_id[1400]; /* "PATH SIZE MTIME" of nvdisasm for cache keys ("": nothing cached) */
    int cache;              /* 0: not opened yet, 1: in use, -1: off */
    char cache_dir[4096];
    int quiet;
    au_opcodes_stats *st;
} lister;

/* BASE.cubins/<crc>-<symbol>.sass: the listing of one function. */
static void sass_path(char *out, size_t size, const char *dir, const code_line *k)
{
    snprintf(out, size, "%s/%u-%ld.sass", dir, k->crc, k->sym);
}

/* The largest cubin, listing or cache entry read (docs/opcodes.md): a kernel's listing is a few
 * MB at most; a file in the way (a link to /dev/zero, a sparse file) must not be read for seconds. */
#define CODE_FILE_MAX_BYTES ((size_t)256 << 20)

/* au_read_file for the kernels' code: regular files of at most CODE_FILE_MAX_BYTES only. */
static int read_code_file(const char *path, char **buf, size_t *len)
{
    struct stat st;
    *buf = NULL;
    *len = 0;
    if (stat(path, &st) != 0)
        return au_set_error(AU_E_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return au_set_error(AU_E_IO, "%s: not a regular file", path);
    if ((unsigned long long)st.st_size > CODE_FILE_MAX_BYTES)
        return au_set_error(AU_E_PARSE, "%s: larger than %zu MiB", path, CODE_FILE_MAX_BYTES >> 20);
    return au_read_file(path, CODE_FILE_MAX_BYTES, buf, len);
}

/* ------------------------------------------------------------------ listing cache */

/* An entry is one file, <cubin hash>-<symbol>-<key hash>.listing:
 *     atomutil listing cache 1: KEY
 *     LISTING
 *     atomutil listing end: LENGTH CHECKSUM
 * written to a temporary file of the directory and renamed into place, so that a reader sees a
 * whole entry or none; one that fails its checks (a crashed writer's, a disk error's, another
 * key's) is removed and made again. */
#define CACHE_HEAD "atomutil listing cache 1: "
#define CACHE_TAIL "atomutil listing end: "

/* A tool's identity for cache keys, "PATH SIZE MTIME" (the path resolved, unprintable bytes as
 * '?'): a toolkit installed over another never reuses its listings.  "" if it cannot be stat'ed. */
static void tool_identity(const char *path, char *out, size_t size)
{
    char real[PATH_MAX];
    struct stat st;
    out[0] = '\0';
    if (!realpath(path, real))
        au_strlcpy(real, path, sizeof real);
    if (stat(real, &st) != 0)
        return;
    int n = snprintf(out, size, "%s %lld %lld.%09ld", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                     (long)st.st_mtim.tv_nsec);
    if (n < 0 || (size_t)n >= size) {
        out[0] = '\0';
        return;
    }
    for (char *p = out; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* mkdir -p, the directories made private to the user. */
static int make_dirs(const char *path)
{
    char p[4096];
    au_strlcpy(p, path, sizeof p);
    for (char *s = p + 1;; ++s) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return -1;
        *s = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Opens the cache once (docs/cli.md): $ATOMUTIL_CACHE_DIR ("off": none), else
 * $XDG_CACHE_HOME/atomutil/listings, else $HOME/.cache/atomutil/listings, made if missing.  One
 * that cannot be used is a note (not with -q), and the kernels are listed without it. */
static int cache_open(lister *L)
{
    if (L->cache)
        return L->cache > 0;
    L->cache = -1;
    const char *env = getenv("ATOMUTIL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (env && strcmp(env, "off") == 0)
        return 0;
    if (env && *env)
        n = snprintf(L->cache_dir, sizeof L->cache_dir, "%s", env);
    else if (xdg && xdg[0] == '/')
        n = snprintf(L->cache_dir, sizeof L->cache_dir, "%s/atomutil/listings", xdg);
    else if (home && *home)
        n = snprintf(L->cache_dir, sizeof L->cache_dir, "%s/.cache/atomutil/listings", home);
    else {
        if (!L->quiet)
            fprintf(stderr, "%s: note: no listing cache (neither ATOMUTIL_CACHE_DIR nor HOME is set)\n", prog);
        return 0;
    }
    const char *why = n < 0 || (size_t)n >= sizeof L->cache_dir ? "path too long" : NULL;
    if (!why && (make_dirs(L->cache_dir) != 0 || access(L->cache_dir, R_OK | W_OK | X_OK) != 0))
        why = strerror(errno);
    if (why) {
        if (!L->quiet)
            fprintf(stderr, "%s: note: listing cache %s cannot be used (%s); listing without it\n", prog,
                    L->cache_dir, why);
        return 0;
    }
    L->cache = 1;
    return 1;
}

/* The key of k's listing made with `flags` (the cubin's content, the function's symbol index, the
 * disassembler and its flags) and the path of its entry; -1 if k's listings are not cached. */
static int cache_entry(const lister *L, const code_line *k, const char *flags, char *key, size_t ksize,
                       char *path, size_t psize)
{
    if (L->cache <= 0 || !k->hashed || k->sym < 0 || !L->nvdisasm_id[0])
        return -1;
    int n = snprintf(key, ksize, "cubin %016" PRIx64 " %zu sym %ld tool %s flags %s", k->hash, k->size, k->sym,
                     L->nvdisasm_id, flags);
    if (n < 0 || (size_t)n >= ksize)
        return -1;
    n = snprintf(path, psize, "%s/%016" PRIx64 "-%ld-%016" PRIx64 ".listing", L->cache_dir, k->hash, k->sym,
                 fnv1a(key, (size_t)n, FNV_START));
    return n < 0 || (size_t)n >= psize ? -1 : 0;
}

/* The listing in an entry buf[0..len) of key `key`: 1 with body/blen set (body NUL-terminated in
 * buf), 0 if the entry is not whole or not this key's. */
static int entry_body(char *buf, size_t len, const char *key, char **body, size_t *blen)
{
    size_t hl = strlen(CACHE_HEAD), kl = strlen(key), tl = strlen(CACHE_TAIL);
    if (len < hl + kl + 1 || memcmp(buf, CACHE_HEAD, hl) != 0 || memcmp(buf + hl, key, kl) != 0 ||
        buf[hl + kl] != '\n' || buf[len - 1] != '\n')
        return 0;
    char *b = buf + hl + kl + 1, *t = buf + len - 1;
    while (t > b && t[-1] != '\n')
        --t; /* t: the last line, the trailer; a '\n' of its own before it */
    if (t <= b || (size_t)(buf + len - t) <= tl || memcmp(t, CACHE_TAIL, tl) != 0)
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(t + tl, &end, 10);
    if (errno || end == t + tl || *end != ' ' || n != (unsigned long long)(t - 1 - b))
        return 0;
    char *sum_at = end + 1;
    unsigned long long sum = strtoull(sum_at, &end, 16);
    if (errno || end == sum_at || *end != '\n' || sum != fnv1a(b, (size_t)n, FNV_START))
        return 0;
    b[n] = '\0';
    *body = b;
    *blen = (size_t)n;
    return 1;
}

/* Copies k's listing made with `flags` from the cache to `out`, as the disassembler would have
 * written it; 1 if done.  An entry that fails its checks is removed. */
static int cache_get(lister *L, const code_line *k, const char *flags, const char *out)
{
    char key[1700], path[4400], *buf, *body;
    size_t len, blen;
    if (cache_entry(L, k, flags, key, sizeof key, path, sizeof path) != 0 || read_code_file(path, &buf, &len) != AU_OK)
        return 0;
    int hit = 0;
    if (entry_body(buf, len, key, &body, &blen) && listing_ok(body, blen, k->mangled)) {
        hit = write_file(out, body, blen) == 0;
    } else {
        unlink(path); /* made again by this run */
        L->st->cache_bad++;
    }
    free(buf);
    L->st->cache_hits += hit;
    return hit;
}

/* Keeps listing[0..len), k's listing made with `flags`, in the cache (if it is one). */
static void cache_put(lister *L, const code_line *k, const char *flags, const char *listing, size_t len)
{
    char key[1700], path[4400], tmp[4200];
    if (cache_entry(L, k, flags, key, sizeof key, path, sizeof path) != 0 || !listing_ok(listing, len, k->mangled))
        return;
    snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", L->cache_dir);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return;
    }
    int ok = fprintf(f, "%s%s\n", CACHE_HEAD, key) > 0 && fwrite(listing, 1, len, f) == len &&
             fprintf(f, "\n%s%zu %016" PRIx64 "\n", CACHE_TAIL, len, fnv1a(listing, len, FNV_START)) > 0;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* ------------------------------------------------------------------ listings */

/* Writes the listing of code line k (its cubin dir/<crc>.cubin read, symbol index known) to `out`:
 * nvdisasm -gi (else -g) of just that function, else cuobjdump -sass -fun NAME (no source lines).
 * 0 on success. */
static int list_function(lister *L, const char *dir, const code_line *k, const char *out)
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
                cache_put(L, k, flags, buf, len);
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
    int ok;     /* nvdisasm exited with 0 */
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
    int have = read_code_file(b->cubin, &buf, &len) == AU_OK;
    for (size_t j = first; j < ncode; ++j) {
        code_line *k = &code[j];
        if (k->want != 1 || k->crc != crc)
            continue;
        k->want = 2;
        k->have_cubin = have;
        k->sym = have ? elf_function_index((const unsigned char *)buf, len, k->mangled) : -1;
        k->size = len;
        sass_path(one, sizeof one, dir, k);
        need += k->sym >= 0 && access(one, R_OK) != 0;
    }
    if (need == 0) {
        free(buf);
        return AU_OK;
    }
    L->st->cubins++;
    uint64_t hash = 0;
    int hashed = L->nvdisasm_id[0] && cache_open(L);
    if (hashed)
        hash = fnv1a(buf, len, FNV_START);
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
        sass_path(one, sizeof one, dir, k);
        if (access(one, R_OK) == 0 || cache_get(L, k, "-gi", one) || cache_get(L, k, "-g", one))
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
            const char *at = find_section(buf, len, k->mangled);
            if (!at)
                continue;
            size_t sz = (size_t)(section_end(at + 7 + strlen(k->mangled), buf + len) - at);
            char one[8300];
            sass_path(one, sizeof one, dir, k);
            if (write_file(one, at, sz) == 0)
                cache_put(L, k, "-gi", at, sz);
        }
        free(buf);
    }
    unlink(b->part);
}

typedef struct {
    char path[8192];
    au_sass_ops ops;
    char *text; /* the listing files' text, for the load sites of CAS loops */
    size_t len;
    char unread[512]; /* why the first of its files that could not be read was not: "" if none */
} listing;

/* Appends the parse of one listing file to l's ops (a file that does not parse adds nothing) and
 * its text to l's text. */
static void add_listing(listing *l, const char *path)
{
    au_sass_ops *ops = &l->ops;
    char *buf;
    size_t len;
    if (read_code_file(path, &buf, &len) != AU_OK) {
        if (!l->unread[0])
            au_strlcpy(l->unread, au_last_error(), sizeof l->unread);
        return;
    }
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

/* The parsed listing that holds k's kernel: with its cubin, the function's <crc>-<symbol>.sass
 * (made now if missing); without it (an --import of kept listings), every <crc>-*.sass of dir
 * together.  NULL if none can be had. */
static const listing *listing_for(lister *L, listing **parsed, size_t *n, size_t *cap, const char *dir,
                                   const code_line *k)
{
    char path[8192];
    if (k->have_cubin) {
        if (k->sym < 0)
            return NULL;
        sass_path(path, sizeof path, dir, k);
        if (access(path, R_OK) != 0 && list_function(L, dir, k, path) != 0)
            return NULL;
    } else {
        snprintf(path, sizeof path, "%s/%u-*.sass", dir, k->crc);
    }
    for (size_t i = 0; i < *n; ++i)
        if (strcmp((*parsed)[i].path, path) == 0)
            return &(*parsed)[i];
    if (au_grow(parsed, cap, *n, sizeof **parsed, 8) != 0)
        return NULL;
    listing *l = &(*parsed)[(*n)++];
    memset(l, 0, sizeof *l);
    au_strlcpy(l->path, path, sizeof l->path);
    if (k->have_cubin) {
        add_listing(l, path);
        return l;
    }
    DIR *d = opendir(dir);
    if (!d)
        return l;
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "%u-", k->crc);
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

/* A kernel with shared-atomic jobs whose listing has no atomic instruction of it: says whether the
 * listing holds the kernel at all (else it is unreadable or another kernel's, and which of its
 * files could not be read) or holds it without atomics (atomics in a called function). */
static void warn_no_atomics(const listing *ls, const code_line *k, const au_launch *l, const char *family)
{
    /* nvdisasm's ".text.NAME:" header, or cuobjdump's "Function : NAME" */
    size_t hl = strlen(k->mangled) + 12;
    char *head = malloc(hl);
    int holds = ls->text && (find_section(ls->text, ls->len, k->mangled) ||
                             (head && snprintf(head, hl, "Function : %s", k->mangled) > 0 && strstr(ls->text, head)));
    free(head);
    if (holds)
        fprintf(stderr, "%s: warning: %s: the listing %s has no shared-atomic instruction of kernel %s, though the "
                        "counters show %.0f jobs per SM (atomics in a called, not inlined function?): priced as '%s'\n",
                prog, k->demangled, ls->path, k->mangled, l->res.jobs, family);
    else
        fprintf(stderr, "%s: warning: %s: the listing %s does not hold kernel %s, though the counters show %.0f "
                        "shared-atomic jobs per SM (listing unreadable or not this kernel's%s%s): priced as '%s'\n",
                prog, k->demangled, ls->path, k->mangled, l->res.jobs, ls->unread[0] ? ": " : "", ls->unread, family);
}

/* "graph:" lines of a counters file: a graph launch's row (process, launch id) and the mangled
 * names of the graph's kernels (docs/live-profiling.md). */
typedef struct {
    long long pid, id;
    char **mangled;
    size_t n;
} graph_line;

static void free_graph_lines(graph_line *g, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < g[i].n; ++k)
            free(g[i].mangled[k]);
        free(g[i].mangled);
    }
    free(g);
}

/* Adds the graph: line `line` (NUL-terminated) to v, if it is one. */
static void parse_graph_line(char *line, graph_line **v, size_t *n, size_t *cap)
{
    char *p, *end;
    if (strncmp(line, "==ATOMUTIL== ", 13) != 0 || (p = strstr(line, " graph: ")) == NULL)
        return;
    long long pid = strtoll(line + 13, &end, 10);
    long long id = strtoll(p + 8, &end, 10);
    if (end == p + 8 || au_grow(v, cap, *n, sizeof **v, 8) != 0)
        return;
    graph_line g = {pid, id, NULL, 0};
    size_t gcap = 0;
    for (char *tok = strtok(end, " "); tok; tok = strtok(NULL, " ")) {
        char *m = strdup(tok);
        if (!m || au_grow(&g.mangled, &gcap, g.n, sizeof *g.mangled, 8) != 0) {
            free(m);
            break;
        }
        g.mangled[g.n++] = m;
    }
    (*v)[(*n)++] = g;
}

/* The "code:" and "graph:" lines of a counters file, in one read. */
static int read_code_lines(const char *path, code_line **out, size_t *nout, graph_line **gout, size_t *ngout)
{
    *gout = NULL;
    *ngout = 0;
    size_t gcap = 0;
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
                    v[n].sym = -1;
                    if (v[n].demangled && v[n].mangled)
                        ++n;
                    else {
                        free(v[n].demangled);
                        free(v[n].mangled);
                    }
                }
            }
        } else {
            parse_graph_line(line, gout, ngout, &gcap);
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

/* The code line of a launch's kernel, NULL if none. */
static code_line *code_for(code_line *code, size_t ncode, const au_launch *l)
{
    for (size_t j = 0; j < ncode && l->kernel; ++j)
        if (strcmp(code[j].demangled, l->kernel) == 0)
            return &code[j];
    return NULL;
}

static const graph_line *graph_for(const graph_line *g, size_t ng, const au_launch *l)
{
    for (size_t i = 0; i < ng; ++i)
        if (g[i].id == l->id && (l->pid < 0 || g[i].pid == l->pid))
            return &g[i];
    return NULL;
}

static code_line *code_by_mangled(code_line *code, size_t ncode, const char *mangled)
{
    for (size_t j = 0; j < ncode; ++j)
        if (strcmp(code[j].mangled, mangled) == 0)
            return &code[j];
    return NULL;
}

/* Makes the listings the launches of rep need that cubin_dir lacks: from the cache, else with one
 * nvdisasm run per cubin, the runs concurrent.  AU_OK, or AU_E_NOMEM. */
static int make_listings(lister *L, const au_report *rep, const char *cubin_dir, code_line *code, size_t ncode)
{
    for (size_t i = 0; i < rep->count; ++i) {
        const au_launch *l = &rep->launches[i];
        code_line *k;
        if (l->ctr.jobs > 0 && !(l->res.flags & AU_F_UNUSABLE) && (k = code_for(code, ncode, l)) != NULL &&
            !k->want)
            k->want = 1;
    }
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

int au_opcodes_attach(au_report *rep, const au_table *t, const char *counters_path, const char *cubin_dir,
                      unsigned flags, au_opcodes_stats *stats)
{
    au_opcodes_stats unused;
    lister L;
    memset(&L, 0, sizeof L);
    L.st = stats ? stats : &unused;
    memset(L.st, 0, sizeof *L.st);
    L.quiet = (flags & AU_OPCODES_QUIET) != 0;
    L.cache = flags & AU_OPCODES_NO_CACHE ? -1 : 0;
    code_line *code = NULL;
    size_t ncode = 0;
    graph_line *graphs = NULL;
    size_t ngraphs = 0;
    int rc = read_code_lines(counters_path, &code, &ncode, &graphs, &ngraphs);
    if (rc)
        return rc;
    if (ncode == 0) {
        free(code);
        free_graph_lines(graphs, ngraphs);
        return au_set_error(AU_E_NOTFOUND, "%s: names no kernel code (made by a live run of atomutil-profile?)",
                            counters_path);
    }
    find_tool("nvdisasm", L.nvdisasm, sizeof L.nvdisasm);
    find_tool("cuobjdump", L.cuobjdump, sizeof L.cuobjdump);
    if (L.nvdisasm[0])
        tool_identity(L.nvdisasm, L.nvdisasm_id, sizeof L.nvdisasm_id);
    /* a graph launch's row needs the listings of the graph's kernels */
    for (size_t i = 0; i < rep->count && ngraphs; ++i) {
        const au_launch *l = &rep->launches[i];
        const graph_line *g;
        if (!(l->ctr.jobs > 0) || (l->res.flags & AU_F_UNUSABLE) || code_for(code, ncode, l) ||
            !(g = graph_for(graphs, ngraphs, l)))
            continue;
        for (size_t m = 0; m < g->n; ++m) {
            code_line *k = code_by_mangled(code, ncode, g->mangled[m]);
            if (k && !k->want)
                k->want = 1;
        }
    }
    rc = make_listings(&L, rep, cubin_dir, code, ncode);
    listing *parsed = NULL;
    size_t nparsed = 0, capparsed = 0, nocode = 0, unlisted = 0;
    for (size_t i = 0; i < rep->count && rc == AU_OK; ++i) {
        au_launch *l = &rep->launches[i];
        if (!(l->ctr.jobs > 0) || (l->res.flags & AU_F_UNUSABLE))
            continue; /* no shared-atomic jobs to price: no listing needed */
        code_line *k = code_for(code, ncode, l);
        const graph_line *g = k ? NULL : graph_for(graphs, ngraphs, l);
        if (g) {
            /* a graph launch: priced by the instructions of all its kernels together */
            au_instr *all = NULL;
            size_t nall = 0, listed = 0;
            for (size_t m = 0; m < g->n && rc == AU_OK; ++m) {
                code_line *gk = code_by_mangled(code, ncode, g->mangled[m]);
                const listing *gl = gk ? listing_for(&L, &parsed, &nparsed, &capparsed, cubin_dir, gk) : NULL;
                au_instr *v = NULL;
                size_t n = 0;
                if (!gl || gl->ops.count == 0)
                    continue;
                ++listed;
                if ((rc = kernel_instructions(&gl->ops, gk->mangled, &v, &n)) != AU_OK)
                    break;
                au_instr *grown = n ? realloc(all, (nall + n) * sizeof *all) : all;
                if (n && !grown) {
                    free(v);
                    rc = au_set_error(AU_E_NOMEM, "out of memory");
                    break;
                }
                all = grown;
                if (n)
                    memcpy(all + nall, v, n * sizeof *v);
                nall += n;
                free(v);
            }
            if (rc == AU_OK && listed)
                rc = au_launch_apply_opcodes(l, t, all, nall, &rep->thr, rep->busy);
            else if (rc == AU_OK)
                ++unlisted;
            free(all);
            continue;
        }
        if (!k) {
            ++nocode;
            continue;
        }
        const listing *ls = listing_for(&L, &parsed, &nparsed, &capparsed, cubin_dir, k);
        const au_sass_ops *ops = ls ? &ls->ops : NULL;
        /* no listing file at all: unlisted; one with no atomics, or unreadable: said below */
        if (!ops || (ops->count == 0 && !ls->len && !ls->unread[0])) {
            ++unlisted;
            continue;
        }
        au_instr *v = NULL;
        size_t n = 0;
        if ((rc = kernel_instructions(ops, k->mangled, &v, &n)) != AU_OK)
            break;
        if (n == 0 && !k->warned && !L.quiet) {
            k->warned = 1;
            warn_no_atomics(ls, k, l, rep->family);
        }
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
    free_graph_lines(graphs, ngraphs);
    for (size_t i = 0; i < nparsed; ++i) {
        au_sass_ops_free(&parsed[i].ops);
        free(parsed[i].text);
    }
    free(parsed);
    for (size_t j = 0; j < ncode; ++j) {
        free(code[j].demangled);
        free(code[j].mangled);
    }
    free(code);
    if (rc)
        return rc;
    if (!L.quiet && nocode)
        fprintf(stderr, "%s: warning: %zu launches with shared-atomic jobs have no kernel code in %s: priced as "
                        "'%s'\n", prog, nocode, counters_path, rep->family);
    if (!L.quiet && unlisted)
        fprintf(stderr, "%s: warning: %zu launches with shared-atomic jobs: their kernel could not be listed from "
                        "%s (nvdisasm and cuobjdump of the CUDA toolkit missing?): priced as '%s'\n", prog, unlisted,
                cubin_dir, rep->family);
    return AU_OK;
}
