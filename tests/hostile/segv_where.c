/*
 * segv_where.c - LD_PRELOAD helper of tests/hostile/exit_thread_census.sh: on SIGSEGV, prints one
 * line "SEGV tid T addr A pc P in OBJECT (SYMBOL+OFF)" on stderr, naming the shared object or
 * program that holds the faulting instruction (dladdr), then the faulting thread's stack (one frame
 * a line, backtrace_symbols_fd), then dies of the signal as before.  Also used by tools/stress.sh
 * (STRESS_PRELOAD) to say where a crash under profiling happened.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    char buf[768];
    void *pc = NULL;
#if defined(__x86_64__)
    pc = (void *)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#else
    (void)ctx;
#endif
    Dl_info di;
    int n = snprintf(buf, sizeof buf, "SEGV tid %ld addr %p pc %p", (long)gettid(), si->si_addr, pc);
    if (pc && dladdr(pc, &di) && n > 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " in %s (%s+%#lx)", di.dli_fname,
                      di.dli_sname ? di.dli_sname : "?",
                      (unsigned long)((char *)pc - (char *)(di.dli_saddr ? di.dli_saddr : di.dli_fbase)));
    if (n > 0 && (size_t)n < sizeof buf - 1) {
        buf[n++] = '\n';
        ssize_t w = write(2, buf, (size_t)n);
        (void)w;
    }
    void *frames[64];
    int nf = backtrace(frames, 64);
    backtrace_symbols_fd(frames, nf, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void)
{
    void *warm[1];
    backtrace(warm, 1); /* loads libgcc's unwinder now, not inside the handler */
    static char stack[1 << 16];
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
}
