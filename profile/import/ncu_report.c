/*
 * ncu_report.c - an Nsight Compute report read through ncu (ncu_report.h): told by its first bytes
 * (or its name), then `ncu --import FILE --csv --page raw` run without a shell and its stdout taken
 * whole, as a file's text is read.  stderr is read at the same time (so that ncu never blocks on a
 * full pipe) and kept only for its error line.
 */
#include "ncu_report.h"

#include "ncu_import.h"
#include "ncu_opcodes.h"

#include "atomutil/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define REPORT_EXT "ncu-rep"
/* The first bytes of a report ("NVR" and a NUL; the file header's size follows). */
static const unsigned char report_magic[4] = {'N', 'V', 'R', 0};
/* What is kept of ncu's stderr: its error line is near the start. */
#define ERR_KEEP 8192

int au_ncu_is_report(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0; /* a pipe or a device is never peeked at: its bytes would be gone */
    unsigned char b[sizeof report_magic];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n == sizeof b && memcmp(b, report_magic, sizeof b) == 0)
        return 1;
    const char *dot = strrchr(path, '.');
    return dot && strcmp(dot + 1, REPORT_EXT) == 0;
}

/* What a stream of ncu's gave: its bytes up to lim, and whether there were more. */
typedef struct {
    char *b;
    size_t len, cap, lim;
    int over;
} sink;

/* n bytes more into s (those beyond s->lim dropped, s->over set): 0, or -1 out of memory. */
static int sink_add(sink *s, const char *p, size_t n)
{
    if (n > s->lim - s->len) {
        s->over = 1;
        n = s->lim - s->len;
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *b = realloc(s->b, cap);
        if (!b)
            return -1;
        s->b = b;
        s->cap = cap;
    }
    memcpy(s->b + s->len, p, n);
    s->len += n;
    s->b[s->len] = '\0';
    return 0;
}

/* Reads fds[0] (stdout) into out and fds[1] (stderr) into err until ncu closes both.  0, or -1
 * (errno: out of memory, or poll's error). */
static int collect(int fds[2], sink *out, sink *err)
{
    struct pollfd pf[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
    sink *to[2] = {out, err};
    char chunk[16384];
    for (int open = 2; open > 0;) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (int i = 0; i < 2; ++i) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            ssize_t n = read(pf[i].fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) { /* closed (or unreadable: what came is kept) */
                pf[i].fd = -1;
                --open;
            } else if (sink_add(to[i], chunk, (size_t)n) != 0) {
                errno = ENOMEM;
                return -1;
            }
        }
    }
    return 0;
}

/* The line after p's; NULL at the end. */
static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl && nl[1] ? nl + 1 : NULL;
}

/* ncu's error line: the last "==ERROR==" line of its stderr, else of its stdout (ncu says
 * "Failed to load report file ..." first and the cause after it: "The report file version is not
 * compatible with this version of Nsight Compute."), else stderr's last line that is not blank;
 * cleaned for the terminal into buf ("no message" if none). */
static const char *error_line(const sink *out, const sink *err, char *buf, size_t size)
{
    const sink *in[2] = {err, out};
    const char *line = NULL;
    for (int i = 0; i < 2 && !line; ++i)
        for (const char *p = in[i]->len ? in[i]->b : NULL; p; p = next_line(p))
            if (strncmp(p, "==ERROR==", 9) == 0)
                line = p; /* the last one wins */
    for (const char *p = err->len && !line ? err->b : NULL; p; p = next_line(p))
        if (strspn(p, " \t\r") < strcspn(p, "\n"))
            line = p; /* the last one wins */
    if (!line)
        line = "no message";
    char one[512];
    size_t n = strcspn(line, "\r\n");
    snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), line);
    return au_text_fit(one, buf, size, 0, 0);
}

/* The arguments after `ncu --import FILE --csv --page raw` of the page of per-opcode counts. */
static const char *const opcode_args[] = {"--print-metric-instances", "details", "--metrics", AU_NCU_OPCODE_METRIC,
                                          NULL};

/* Starts `ncu --import path --csv --page PAGE` and the arguments of extra (NULL-terminated; NULL:
 * none) (ncu a path, or a name looked up in PATH), stdin from /dev/null, stdout and stderr to
 * pipes whose reading ends go to fds[0] and fds[1].  0 (*pid set), or an errno value: why it could
 * not be started (ENOENT: no such ncu). */
static int start_ncu(const char *ncu, const char *path, const char *page, const char *const *extra, pid_t *pid,
                     int fds[2])
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = 0;
    if (pipe(po) != 0 || pipe(pe) != 0)
        rc = errno;
    for (int i = 0; i < 2 && rc == 0; ++i) /* the child keeps only its dup2'ed copies */
        if (fcntl(po[i], F_SETFD, FD_CLOEXEC) != 0 || fcntl(pe[i], F_SETFD, FD_CLOEXEC) != 0)
            rc = errno;
    posix_spawn_file_actions_t fa;
    if (rc == 0 && (rc = posix_spawn_file_actions_init(&fa)) == 0) {
        char *argv[12] = {(char *)ncu, "--import", (char *)path, "--csv", "--page", (char *)page, NULL};
        for (int i = 0; extra && extra[i] && i < 5; ++i)
            argv[6 + i] = (char *)extra[i];
        if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
            (rc = posix_spawn_file_actions_adddup2(&fa, po[1], 1)) == 0 &&
            (rc = posix_spawn_file_actions_adddup2(&fa, pe[1], 2)) == 0)
            rc = posix_spawnp(pid, ncu, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    for (int i = 0; i < 2; ++i) {
        if (po[i] >= 0 && (i == 1 || rc != 0))
            close(po[i]);
        if (pe[i] >= 0 && (i == 1 || rc != 0))
            close(pe[i]);
    }
    fds[0] = po[0];
    fds[1] = pe[0];
    return rc;
}

/* ncu could not be started (errno value e; 0: not known): which ncu is needed, and the command
 * that exports the report's CSV by hand. */
static int no_ncu(const char *path, const char *env, int e)
{
    char why[600];
    if (env)
        snprintf(why, sizeof why, "ATOMUTIL_NCU=%s: %s", env, e ? strerror(e) : "cannot be run");
    else
        snprintf(why, sizeof why, "%s", e == ENOENT || !e ? "no ncu on PATH" : strerror(e));
    return au_set_error(AU_E_IO,
                        "%s: an Nsight Compute report: reading it needs ncu, Nsight Compute's command line (%s): put "
                        "ncu on PATH or its path in ATOMUTIL_NCU, or export the CSV by hand and import that: ncu "
                        "--import %s --csv --page raw > %s.csv",
                        path, why, path, path);
}

/* The source page's first line: its first launch's kernel name. */
#define SOURCE_HEAD "\"Kernel Name\","

/* After ncu ended (status: waitpid's; got: collect's result, e its errno): AU_OK when it exited
 * with 0 and wrote a CSV table of at most max bytes (the raw page's, or with source set the
 * source page's), else the error; cmd: its arguments after the report's name, for the message. */
static int ncu_result(const char *path, const char *cmd, int source, int got, int e, int status, const sink *out,
                      const sink *err)
{
    char line[600];
    if (got != 0)
        return e == ENOMEM ? au_set_error(AU_E_NOMEM, "%s: out of memory", path)
                           : au_set_error(AU_E_IO, "%s: reading ncu's output: %s", path, strerror(e));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return au_set_error(AU_E_IO,
                            "%s: ncu --import %s %s failed (%s %d): %s (a damaged report, or one "
                            "made by a newer Nsight Compute than this ncu: ncu --version)",
                            path, path, cmd, WIFEXITED(status) ? "exit status" : "signal",
                            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                            error_line(out, err, line, sizeof line));
    if (out->over)
        return au_set_error(AU_E_PARSE, "%s: ncu's CSV of the report is larger than %zu bytes", path, out->lim);
    if (source ? !(out->len >= strlen(SOURCE_HEAD) && strncmp(out->b, SOURCE_HEAD, strlen(SOURCE_HEAD)) == 0)
               : !au_ncu_has_header(out->b, out->len))
        return au_set_error(AU_E_IO, "%s: ncu --import %s %s wrote no CSV table (%s)", path, path, cmd,
                            err->len || out->len ? error_line(out, err, line, sizeof line)
                                                 : "no kernel launch in the report?");
    return AU_OK;
}

/* ncu --import path --csv --page PAGE, and extra (cmd: the arguments after the report's name as
 * words, for messages): au_ncu_report_csv's result. */
static int report_page(const char *path, const char *page, const char *const *extra, const char *cmd, size_t max,
                       char **buf, size_t *len)
{
    const char *env = getenv("ATOMUTIL_NCU");
    env = env && *env ? env : NULL;
    *buf = NULL;
    *len = 0;
    pid_t pid;
    int fds[2], status = 0;
    /* a path that is not there is said so also where the spawn cannot tell (below) */
    int e = env && strchr(env, '/') && access(env, X_OK) != 0 ? errno : 0;
    if (e == 0)
        e = start_ncu(env ? env : "ncu", path, page, extra, &pid, fds);
    if (e != 0)
        return no_ncu(path, env, e);
    sink out = {.lim = max}, err = {.lim = ERR_KEEP};
    int got = collect(fds, &out, &err);
    e = errno;
    close(fds[0]);
    close(fds[1]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* where posix_spawn cannot report a failed exec (valgrind, some C libraries) the child exits
     * with 127, as a shell does for a command not found, and writes nothing */
    int not_run = got == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 && !out.len && !err.len;
    int rc =
        not_run ? no_ncu(path, env, 0) : ncu_result(path, cmd, strcmp(page, "source") == 0, got, e, status, &out, &err);
    free(err.b);
    if (rc != AU_OK) {
        free(out.b);
        return rc;
    }
    *buf = out.b; /* not NULL: it holds the CSV header */
    *len = out.len;
    return AU_OK;
}

int au_ncu_report_csv(const char *path, size_t max, char **buf, size_t *len)
{
    return report_page(path, "raw", NULL, "--csv --page raw", max, buf, len);
}

int au_ncu_report_opcodes(const char *path, size_t max, char **buf, size_t *len)
{
    return report_page(path, "raw", opcode_args,
                       "--csv --page raw --print-metric-instances details --metrics " AU_NCU_OPCODE_METRIC, max, buf,
                       len);
}

int au_ncu_report_source(const char *path, size_t max, char **buf, size_t *len)
{
    static const char *const source_args[] = {"--print-source", "sass", NULL};
    return report_page(path, "source", source_args, "--csv --page source --print-source sass", max, buf, len);
}
