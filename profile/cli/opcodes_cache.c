/*
 * opcodes_cache.c - the listing disk cache of --opcodes (docs/cli.md): kernels' listings kept by
 * the cubin's content, the function's symbol and the disassembler, so that a framework's cubins
 * are not listed again on every run.
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

static const char *prog = "atomutil-profile";

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
void au_op_tool_identity(const char *path, char *out, size_t size)
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
 * that cannot be used is a note (L->note, said with the warnings; not with -q), and the kernels are
 * listed without it. */
int au_op_cache_open(lister *L)
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
            snprintf(L->note, sizeof L->note,
                     "%s: note: no listing cache (neither ATOMUTIL_CACHE_DIR nor HOME is set)\n", prog);
        return 0;
    }
    const char *why = n < 0 || (size_t)n >= sizeof L->cache_dir ? "path too long" : NULL;
    if (!why && (make_dirs(L->cache_dir) != 0 || access(L->cache_dir, R_OK | W_OK | X_OK) != 0))
        why = strerror(errno);
    if (why) {
        if (!L->quiet)
            snprintf(L->note, sizeof L->note, "%s: note: listing cache %s cannot be used (%s); listing without it\n",
                     prog, L->cache_dir, why);
        return 0;
    }
    L->cache = 1;
    return 1;
}

/* The key of k's listing made with `flags` (the cubin's content, the function's symbol index, the
 * disassembler and its flags) and the path of its entry; -1 if k's listings are not cached. */
static int cache_entry(const lister *L, const code_line *k, const char *flags, char *key, size_t ksize, char *path,
                       size_t psize)
{
    if (L->cache <= 0 || !k->hashed || k->sym < 0 || !L->nvdisasm_id[0])
        return -1;
    int n = snprintf(key, ksize, "cubin %016" PRIx64 " %zu sym %ld tool %s flags %s", k->hash, k->size, k->sym,
                     L->nvdisasm_id, flags);
    if (n < 0 || (size_t)n >= ksize)
        return -1;
    n = snprintf(path, psize, "%s/%016" PRIx64 "-%ld-%016" PRIx64 ".listing", L->cache_dir, k->hash, k->sym,
                 au_op_fnv1a(key, (size_t)n, FNV_START));
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
    if (errno || end == sum_at || *end != '\n' || sum != au_op_fnv1a(b, (size_t)n, FNV_START))
        return 0;
    b[n] = '\0';
    *body = b;
    *blen = (size_t)n;
    return 1;
}

/* Copies k's listing made with `flags` from the cache to `out`, as the disassembler would have
 * written it; 1 if done.  An entry that fails its checks is removed. */
int au_op_cache_get(lister *L, const code_line *k, const char *flags, const char *out)
{
    char key[1700], path[4400], *buf, *body;
    size_t len, blen;
    if (cache_entry(L, k, flags, key, sizeof key, path, sizeof path) != 0 ||
        au_op_read_code_file(path, &buf, &len) != AU_OK)
        return 0;
    int hit = 0;
    if (entry_body(buf, len, key, &body, &blen) && au_op_listing_ok(body, blen, k->mangled)) {
        hit = au_op_write_file(out, body, blen) == 0;
    } else {
        unlink(path); /* made again by this run */
        L->st->cache_bad++;
    }
    free(buf);
    L->st->cache_hits += hit;
    return hit;
}

/* Keeps listing[0..len), k's listing made with `flags`, in the cache (if it is one). */
void au_op_cache_put(lister *L, const code_line *k, const char *flags, const char *listing, size_t len)
{
    char key[1700], path[4400], tmp[4200];
    if (cache_entry(L, k, flags, key, sizeof key, path, sizeof path) != 0 ||
        !au_op_listing_ok(listing, len, k->mangled))
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
             fprintf(f, "\n%s%zu %016" PRIx64 "\n", CACHE_TAIL, len, au_op_fnv1a(listing, len, FNV_START)) > 0;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}
