/*
 * live.c - atomutil-profile's live mode: checks that a GPU, the injection library and profiling
 * permission are there, writes the counters file's header, runs the target with
 * CUDA_INJECTION64_PATH set and waits for it; then relays the injection library's diagnostics from
 * the counters file as read once for the report (run.h).
 * The target gets the terminal and the signals; atomutil-profile ignores SIGINT/SIGQUIT while it
 * waits, so that a Ctrl-C that ends the target still leaves a report of what was measured.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "live.h"

#include "atomutil/util.h"
#include "counters_file.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef ATOMUTIL_INJECT_RELPATH
#define ATOMUTIL_INJECT_RELPATH "../lib/atomutil/libatomutil_inject.so"
#endif

static const char *prog = "atomutil-profile";

/* PATH search as execvp does it; 0 found (path in out), -1 not found, -2 found but not executable. */
static int resolve_target(const char *name, char *out, size_t size)
{
    if (strchr(name, '/')) {
        if (access(name, F_OK) != 0)
            return -1;
        struct stat st;
        if (access(name, X_OK) != 0 || stat(name, &st) != 0 || S_ISDIR(st.st_mode))
            return -2;
        au_strlcpy(out, name, size);
        return 0;
    }
    const char *path = getenv("PATH");
    int seen_noexec = 0;
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(out, size, "%.*s/%s", (int)dl, dl ? p : ".", name);
        struct stat st;
        if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            seen_noexec = 1;
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    return seen_noexec ? -2 : -1;
}

/* The injection library: $ATOMUTIL_INJECTION_LIB, else next to this binary's install layout. */
static int find_injection(char *out, size_t size)
{
    const char *env = getenv("ATOMUTIL_INJECTION_LIB");
    if (env && *env) {
        au_strlcpy(out, env, size);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s/%s", exe, ATOMUTIL_INJECT_RELPATH);
    if (!realpath(joined, out) || access(out, R_OK) != 0) {
        au_strlcpy(out, joined, size);
        return -1;
    }
    return 0;
}

/* The driver's library: loading it is cheap (about 2 ms), so a machine without a driver is told
 * before the program runs.  NULL after printing the error. */
static void *load_driver(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda)
        fprintf(stderr, "%s: no NVIDIA driver: cannot load libcuda.so.1 (%s)\n", prog, dlerror());
    return cuda;
}

/* Whether a GPU is usable and the injection library loads: cuInit alone takes 0.1-0.2 s on an
 * H100, so these run while the program starts (au_live_run_pass), and what they find is said only
 * if the run measured nothing (live_files.c: nothing_measured).  The cause goes to err; 0 when all
 * is well. */
static int late_checks(void *cuda, const char *inject, char *err, size_t cap)
{
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    typedef int (*errstr_fn)(int, const char **);
    init_fn cu_init = (init_fn)dlsym(cuda, "cuInit");
    count_fn cu_count = (count_fn)dlsym(cuda, "cuDeviceGetCount");
    errstr_fn cu_err = (errstr_fn)dlsym(cuda, "cuGetErrorString");
    int count = 0;
    if (!cu_init || !cu_count) {
        snprintf(err, cap, "libcuda.so.1 lacks cuInit/cuDeviceGetCount");
        return -1;
    }
    int e = cu_init(0);
    if (e == 0)
        e = cu_count(&count);
    const char *msg = "unknown error";
    if (e != 0 && cu_err)
        cu_err(e, &msg);
    if (e != 0) {
        snprintf(err, cap, "no usable CUDA GPU: cuInit: %s", msg);
        return -1;
    }
    if (count == 0) {
        snprintf(err, cap, "no CUDA GPU found");
        return -1;
    }
    /* the driver stays loaded: unloading it while initialized is not supported */
    void *h = dlopen(inject, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        snprintf(err, cap, "cannot load the injection library (is CUPTI installed?): %s", dlerror());
        return -1;
    }
    dlclose(h);
    return 0;
}

/* Device 0's name and compute capability, as the injection library names a launch's GPU (for
 * live_pass.while_running); 0 when known. */
static int first_device(void *cuda, live_result *res)
{
    typedef int (*get_fn)(int *, int);
    typedef int (*name_fn)(char *, int, int);
    typedef int (*attr_fn)(int *, int, int);
    get_fn cu_get = (get_fn)dlsym(cuda, "cuDeviceGet");
    name_fn cu_name = (name_fn)dlsym(cuda, "cuDeviceGetName");
    attr_fn cu_attr = (attr_fn)dlsym(cuda, "cuDeviceGetAttribute");
    int dev = 0;
    enum { CC_MAJOR = 75, CC_MINOR = 76 }; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_* */
    if (!cu_get || !cu_name || !cu_attr || cu_get(&dev, 0) != 0 ||
        cu_name(res->gpu_name, (int)sizeof res->gpu_name, dev) != 0 || cu_attr(&res->cc_major, CC_MAJOR, dev) != 0 ||
        cu_attr(&res->cc_minor, CC_MINOR, dev) != 0) {
        res->gpu_name[0] = '\0';
        return -1;
    }
    return 0;
}

/* What runs beside the program (au_live_run_pass): the late checks, then pass->while_running. */
typedef struct {
    void *cuda;
    const char *inject;
    const live_pass *pass;
    live_result *res;
} beside_args;

static void *beside_run(void *arg)
{
    beside_args *a = arg;
    live_result *res = a->res;
    if (late_checks(a->cuda, a->inject, res->check_error, sizeof res->check_error) == 0 && a->pass->while_running &&
        first_device(a->cuda, res) == 0)
        a->pass->while_running(a->pass->ud, res);
    return NULL;
}

/* Profiling counters are root-only when the driver says RmProfilingAdminOnly: 1. */
static int check_permission(void)
{
    if (geteuid() == 0)
        return 0;
    FILE *f = fopen("/proc/driver/nvidia/params", "r");
    if (!f)
        return 0; /* cannot tell: the injection library will report it */
    char line[256];
    int admin_only = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "RmProfilingAdminOnly: 1", 23) == 0)
            admin_only = 1;
    fclose(f);
    if (!admin_only)
        return 0;
    fprintf(stderr,
            "%s: GPU performance counters are restricted to administrators "
            "(RmProfilingAdminOnly: 1): run as root, or set 'options nvidia "
            "NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d and reload the driver\n",
            prog);
    return -1;
}

/* Relays the injection library's lines that run holds (each distinct text once, read with the
 * rest of the counters file), counts the errors and takes the rows' count. */
void au_live_relay(const au_cf_run *run, int quiet, live_result *res)
{
    res->rows = run->rows;
    for (size_t i = 0; i < run->ndiags; ++i) {
        const au_cf_diag *d = &run->diags[i];
        int is_err = d->relay == 2;
        const char *hint = "";
        if (is_err) {
            res->tool_errors++;
            res->permission |= au_cf_errcat_of(d->text, &hint) == AU_CF_E_PERMISSION;
        }
        if (is_err || !quiet) { /* its kernel names come from the program: cleaned */
            fprintf(stderr, "%s: ", prog);
            au_fput_text(stderr, d->level, AU_TEXT_PLAIN);
            fprintf(stderr, "%s\n", hint);
        }
    }
}

/* The injection library's environment (cf_env.def), inherited by the program: each variable that
 * atomutil-profile decides set from pass->env or unset, the counters file and the cubins' folder
 * by their absolute paths.  0, or -1 with errno set. */
static int pass_environment(const live_pass *pass, const char *counters_abs, const char *cubins_abs)
{
    for (int e = 0; e < AU_ENV_COUNT; ++e) {
        if (!au_cf_env_set_by_cli((au_cf_env)e))
            continue;
        const char *v = e == AU_ENV_COUNTERS_FILE ? counters_abs : e == AU_ENV_CUBIN_DIR ? cubins_abs : pass->env[e];
        if ((v ? setenv(au_cf_env_name((au_cf_env)e), v, 1) : unsetenv(au_cf_env_name((au_cf_env)e))) != 0)
            return -1;
    }
    return 0;
}

/* The program (PATH searched as execvp does) into target and the injection library into inject.
 * 0, or the exit status after the error line. */
static int find_programs(const char *name_arg, char *target, char *inject)
{
    int r = resolve_target(name_arg, target, PATH_MAX);
    char name[1024]; /* the program's name, cleaned for the terminal */
    au_text_fit(name_arg, name, sizeof name, 0, 0);
    if (r == -1) {
        fprintf(stderr, "%s: %s: command not found\n", prog, name);
        return LIVE_EXIT_NOTFOUND;
    }
    if (r == -2) {
        fprintf(stderr, "%s: %s: not an executable file\n", prog, name);
        return LIVE_EXIT_NOEXEC;
    }
    if (find_injection(inject, PATH_MAX) != 0) {
        fprintf(stderr, "%s: injection library not found at %s (set ATOMUTIL_INJECTION_LIB)\n", prog, inject);
        return LIVE_EXIT_SETUP;
    }
    return 0;
}

/* The counters file with its header and the cubins' folder, made; the injection library's
 * environment set with their absolute paths.  0, or LIVE_EXIT_SETUP after the error line. */
static int make_files(const live_pass *pass)
{
    const char *counters_path = pass->path;
    char counters_abs[PATH_MAX], cubins_abs[PATH_MAX];
    int fd = open(counters_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "%s: %s: cannot create: %s\n", prog, counters_path, strerror(errno));
        return LIVE_EXIT_SETUP;
    }
    size_t hl = strlen(pass->header);
    if (write(fd, pass->header, hl) != (ssize_t)hl) {
        fprintf(stderr, "%s: %s: write error: %s\n", prog, counters_path, strerror(errno));
        close(fd);
        return LIVE_EXIT_SETUP;
    }
    close(fd);
    if (!realpath(counters_path, counters_abs))
        au_strlcpy(counters_abs, counters_path, sizeof counters_abs);
    if (pass->cubin_dir) {
        mkdir(pass->cubin_dir, 0755);
        if (!realpath(pass->cubin_dir, cubins_abs))
            au_strlcpy(cubins_abs, pass->cubin_dir, sizeof cubins_abs);
    }
    if (pass_environment(pass, counters_abs, pass->cubin_dir ? cubins_abs : NULL) != 0) {
        fprintf(stderr, "%s: cannot pass the options to the program: %s\n", prog, strerror(errno));
        return LIVE_EXIT_SETUP;
    }
    return 0;
}

/* Starts target with the injection library and waits for it, SIGINT and SIGQUIT ignored meanwhile;
 * the checks (cuda: the driver, NULL: none) run beside it.  res gets its pid, time and status.
 * 0, or LIVE_EXIT_SETUP when it could not be started. */
static int run_and_wait(char *const argv[], const char *target, const char *inject, void *cuda, const live_pass *pass,
                        live_result *res)
{
    struct sigaction ign = {0}, old_int, old_quit;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(NULL);
    double t0 = au_monotonic_s();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        return LIVE_EXIT_SETUP;
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        setenv("CUDA_INJECTION64_PATH", inject, 1);
        execv(target, argv);
        fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
        _exit(errno == ENOENT ? LIVE_EXIT_NOTFOUND : LIVE_EXIT_NOEXEC);
    }
    res->pid = (long)pid;
    /* the checks on a thread of ours, so that the run's end is seen when it comes */
    beside_args ba = {cuda, inject, pass, res};
    pthread_t th;
    int threaded = cuda && pthread_create(&th, NULL, beside_run, &ba) == 0;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    double t1 = au_monotonic_s();
    if (threaded)
        pthread_join(th, NULL);
    else if (cuda) /* no thread to be had: the same work, after the run */
        beside_run(&ba);
    res->run_s = t1 - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    res->started = 1;
    if (WIFSIGNALED(status)) {
        res->signal = WTERMSIG(status);
        res->exit_status = 128 + res->signal;
    } else {
        res->exit_status = WEXITSTATUS(status);
    }
    return 0;
}

int au_live_run_pass(char *const argv[], const live_pass *pass, live_result *res)
{
    char target[PATH_MAX], inject[PATH_MAX];
    memset(res, 0, sizeof *res);
    int st = find_programs(argv[0], target, inject);
    if (st != 0)
        return st;
    /* our own process must not load an injection library a caller may have set */
    unsetenv("CUDA_INJECTION64_PATH");
    /* ATOMUTIL_TEST_NO_GPU_CHECK=1 lets the CPU-only tests run a stand-in target through this
     * path (tests/cli); it skips the driver, library and permission checks, nothing else */
    const char *nocheck = getenv("ATOMUTIL_TEST_NO_GPU_CHECK");
    void *cuda = NULL;
    if (!(nocheck && strcmp(nocheck, "1") == 0)) {
        if (!(cuda = load_driver()) || check_permission() != 0)
            return LIVE_EXIT_SETUP;
    }
    if ((st = make_files(pass)) != 0)
        return st;
    return run_and_wait(argv, target, inject, cuda, pass, res);
}
