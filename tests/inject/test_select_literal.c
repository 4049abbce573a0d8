/*
 * test_select_literal.c - au_select_literal (profile/inject/select.c): with -k a plain identifier
 * the module-load callback keeps only the modules whose cubin contains it, so the rule must hold
 * only for texts that every matching kernel's mangled name contains verbatim (docs/cli.md,
 * "Selection").  The library's other pieces that select.c calls are stubs here.
 */
#include "select.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void au_diag(au_cf_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", au_cf_word(kind));
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void au_error(au_cf_errcat cat, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "error: %s: ", au_cf_errcat_word(cat));
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

au_kernel_info *au_kernel_info_of(const void *func)
{
    (void)func;
    return NULL;
}

char *au_kernel_name(const void *func, const char *mangled)
{
    (void)func;
    return mangled ? strdup(mangled) : NULL;
}

char *au_demangle(const char *name)
{
    return name ? strdup(name) : NULL;
}

static int fails;

/* -k REGEX: the literal au_select_literal gives, or NULL */
static void expect(const char *regex, int literal, const char *why)
{
    if (regex)
        setenv("ATOMUTIL_KERNEL_REGEX", regex, 1);
    else
        unsetenv("ATOMUTIL_KERNEL_REGEX");
    au_select_init();
    const char *got = au_select_literal();
    int ok = literal ? got && strcmp(got, regex) == 0 : got == NULL;
    printf("%s -k %-22s %s (%s)\n", ok ? "ok  " : "FAIL", regex ? regex : "(none)",
           got ? "kept modules filtered" : "every module kept", why);
    fails += !ok;
}

int main(void)
{
    expect("kernelHistogram1D", 1, "a plain identifier, in every matching mangled name");
    expect("DeviceHistogramSweepKernel", 1, "CUB's kernel name");
    expect("triton_poi_fused_add_0", 1, "a Triton kernel's unmangled name");
    expect("Histogram1", 1, "part of an identifier");
    expect("kernelHisto.ram1D", 0, "a pattern");
    expect("^kernelHistogram1D", 0, "anchored: a pattern");
    expect("Histogram|Sort", 0, "an alternation");
    expect("at::cuda", 0, "spans the '::' that mangling does not spell");
    expect("ab", 0, "shorter than 3 characters");
    expect("128", 0, "digits alone (a lambda's '#2' is '0_' mangled)");
    expect("int", 0, "a builtin type: 'i' mangled");
    expect("unsign", 0, "inside 'unsigned': 'j' mangled");
    expect("string", 0, "std::string: 'Ss' mangled");
    expect("std", 0, "std:: is 'St' mangled");
    expect("lambda", 0, "a lambda is 'Ul...E_' mangled");
    expect("true", 0, "a template argument 'true' is 'Lb1E' mangled");
    expect("__restrict", 0, "a __restrict__ pointer is 'r' mangled");
    expect("Float16", 0, "_Float16 is 'DF16_' mangled");
    expect(NULL, 0, "no -k");
    printf("%s\n", fails ? "FAIL" : "all ok");
    return fails ? 1 : 0;
}
