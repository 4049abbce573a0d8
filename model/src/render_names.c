/*
 * render_names.c - kernel names for humans.  The short name (return type and parameter list
 * dropped) is the key that groups launches into kernels; the function name, as Nsight Compute's
 * --kernel-name-base function prints it (namespaces and template arguments dropped too), is what
 * the human tables show, numbered "[n]" where it is cut or shared by kernels of other short names,
 * with the short names in full after the table (docs/cli.md, "Names in the output").
 */
#include "internal.h"
#include "render.h"

#include <stdlib.h>
#include <string.h>

/* The short name inside kernel: without the return type "void " and the parameter list (the last
 * top-level '(' ... ')'); its length.  A CUDA graph launch's row ("graph N (K kernel nodes)",
 * profile/inject/inject.c) is its name whole. */
static size_t short_span(const char *kernel, const char **start)
{
    const char *s = kernel ? kernel : "";
    if (strncmp(s, "graph ", 6) == 0 && (s[6] == '(' || (s[6] >= '0' && s[6] <= '9'))) {
        *start = s;
        return strlen(s);
    }
    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    size_t len = strlen(s), cut = len;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        if (s[i] == ')')
            ++depth;
        else if (s[i] == '(' && --depth == 0) {
            cut = i;
            break;
        }
    }
    if (cut == 0)
        cut = len;
    *start = s;
    return cut;
}

size_t au_kernel_short_span(const char *kernel, const char **start)
{
    return short_span(kernel, start);
}

char *au_kernel_fit(const char *kernel, char *buf, size_t size, size_t width, int pad)
{
    const char *s;
    size_t n = short_span(kernel, &s);
    return au_text_fit_n(s, n, buf, size, width, pad);
}

char *au_kernel_short(const char *kernel, char *buf, size_t size, size_t width)
{
    return au_kernel_fit(kernel, buf, size, width, 0);
}

char *au_kernel_short_dup(const char *kernel)
{
    const char *s;
    size_t n = short_span(kernel, &s);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* At s[i] the keyword "operator" (a word of its own): the bytes of "operator" and of its symbol,
 * whose '<', '>', '(' and '[' are no brackets ("operator<<", "operator()", "operator->"); else 0. */
static size_t operator_len(const char *s, size_t i, size_t n)
{
    static const char *const symbols[] = {
        "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "->", "()", "[]", "<", ">"};
    if (n - i < 8 || memcmp(s + i, "operator", 8) != 0 || (i > 0 && ident_char(s[i - 1])) ||
        (i + 8 < n && ident_char(s[i + 8])))
        return 0;
    size_t j = i + 8;
    while (j < n && s[j] == ' ')
        ++j;
    for (size_t k = 0; k < sizeof symbols / sizeof symbols[0]; ++k) {
        size_t sl = strlen(symbols[k]);
        if (n - j >= sl && memcmp(s + j, symbols[k], sl) == 0)
            return j + sl - i;
    }
    return 8;
}

/* The function name inside the short name s[0..n): its last component at bracket depth 0 ("::"
 * apart), up to its template arguments; its length, *start where it begins. */
static size_t function_span(const char *s, size_t n, const char **start)
{
    size_t comp = 0, end = n;
    int depth = 0;
    for (size_t i = 0; i < n;) {
        size_t op = operator_len(s, i, n);
        if (op) {
            i += op;
            continue;
        }
        char c = s[i];
        if (depth == 0 && c == ':' && i + 1 < n && s[i + 1] == ':') {
            comp = i + 2;
            end = n;
            i += 2;
            continue;
        }
        if (c == '<' || c == '(' || c == '[' || c == '{') {
            if (depth++ == 0 && c == '<' && end == n)
                end = i;
        } else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) {
            --depth;
        }
        ++i;
    }
    while (end > comp && s[end - 1] == ' ')
        --end;
    if (end <= comp) { /* nothing left (a name of brackets only): the short name */
        *start = s;
        return n;
    }
    *start = s + comp;
    return end - comp;
}

size_t au_kernel_function(const char *kernel, const char **start)
{
    const char *s;
    size_t n = short_span(kernel, &s);
    return function_span(s, n, start);
}

/* ---------------------------------------------------------------- numbered name cells */

static size_t digits(size_t v)
{
    size_t d = 1;
    while (v >= 10)
        v /= 10, ++d;
    return d;
}

/* Orders kernel indices by their function names (ties by index). */
static const au_names *sort_names;
static int by_function(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const au_names *nm = sort_names;
    size_t la = nm->len[a], lb = nm->len[b];
    int c = memcmp(nm->base[a], nm->base[b], la < lb ? la : lb);
    if (c == 0 && la != lb)
        c = la < lb ? -1 : 1;
    return c ? c : (a < b ? -1 : a > b);
}

/* Marks the names shared by kernels of different short names (two CUTLASS device_kernel). */
static int mark_shared(au_names *nm)
{
    size_t *idx = malloc((nm->n ? nm->n : 1) * sizeof *idx);
    if (!idx)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t k = 0; k < nm->n; ++k)
        idx[k] = k;
    sort_names = nm;
    qsort(idx, nm->n, sizeof *idx, by_function);
    for (size_t k = 1; k < nm->n; ++k) {
        size_t a = idx[k - 1], b = idx[k];
        if (nm->len[a] == nm->len[b] && memcmp(nm->base[a], nm->base[b], nm->len[a]) == 0 &&
            strcmp(nm->full[a], nm->full[b]) != 0)
            nm->need[a] = nm->need[b] = 1;
    }
    free(idx);
    return AU_OK;
}

int au_names_init(au_names *nm, const char *const *full, size_t n, size_t width)
{
    memset(nm, 0, sizeof *nm);
    nm->n = n;
    nm->full = full;
    size_t m = n ? n : 1;
    nm->base = calloc(m, sizeof *nm->base);
    nm->len = calloc(m, sizeof *nm->len);
    nm->need = calloc(m, 1);
    nm->num = calloc(m, sizeof *nm->num);
    nm->order = calloc(m, sizeof *nm->order);
    if (!nm->base || !nm->len || !nm->need || !nm->num || !nm->order) {
        au_names_free(nm);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < n; ++k)
        nm->len[k] = function_span(full[k], strlen(full[k]), &nm->base[k]);
    if (mark_shared(nm) != AU_OK) {
        au_names_free(nm);
        return AU_E_NOMEM;
    }
    size_t widest = strlen("kernel"), tag = 2 + digits(n);
    for (size_t k = 0; k < n; ++k) {
        size_t w = au_text_width_n(nm->base[k], nm->len[k]);
        if (width && w > width)
            nm->need[k] = 1;
        if (w + (nm->need[k] ? tag : 0) > widest)
            widest = w + (nm->need[k] ? tag : 0);
    }
    nm->width = width && width < widest ? width : widest;
    nm->bufsize = nm->width * 4 + 16; /* a character takes 4 bytes at most */
    if (!(nm->buf = malloc(nm->bufsize))) {
        au_names_free(nm);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    return AU_OK;
}

void au_names_put(au_names *nm, size_t k, int pad, FILE *out)
{
    char tag[32] = "";
    if (nm->need[k]) {
        if (!nm->num[k]) {
            nm->order[nm->next++] = k;
            nm->num[k] = nm->next;
        }
        snprintf(tag, sizeof tag, "[%zu]", nm->num[k]);
    }
    size_t tl = strlen(tag), cols = nm->width > tl ? nm->width - tl : 1;
    au_text_fit_n(nm->base[k], nm->len[k], nm->buf, nm->bufsize, cols, 0);
    fputs(nm->buf, out);
    fputs(tag, out);
    for (size_t w = au_text_width(nm->buf) + tl; pad && w < nm->width; ++w)
        fputc(' ', out);
}

void au_put_wrapped(const char *s, size_t col, size_t indent, size_t wrap, FILE *out)
{
    char *text = malloc(strlen(s) * 3 + 4); /* as au_text_fit writes it: U+FFFD for a bad byte */
    if (!text || !wrap || wrap <= indent + 8) {
        au_fput_text(out, s, AU_TEXT_PLAIN);
        free(text);
        return;
    }
    au_text_fit(s, text, strlen(s) * 3 + 4, 0, 0);
    const char *p = text;
    while (*p) {
        size_t room = wrap - col, cut = 0, blank = 0, w = 0;
        while (p[cut] && w < room) { /* a character's bytes together; display columns counted */
            size_t n = 1;
            while ((p[cut + n] & 0xC0) == 0x80)
                ++n;
            if (p[cut] == ' ' && w > room / 2)
                blank = cut;
            w += au_text_width_n(p + cut, n);
            cut += n;
        }
        size_t skip = 0;
        if (p[cut] && blank) { /* the line ends before the blank, the next begins after it */
            cut = blank;
            skip = 1;
        }
        fwrite(p, 1, cut, out);
        p += cut + skip;
        if (*p)
            fprintf(out, "\n%*s", (int)indent, "");
        col = indent;
    }
    free(text);
}

void au_names_notes(const au_names *nm, size_t wrap, FILE *out)
{
    if (nm->next)
        fprintf(out, "\nkernel names numbered above, in full:\n");
    for (size_t i = 0; i < nm->next; ++i) {
        int n = fprintf(out, "[%zu] ", i + 1);
        au_put_wrapped(nm->full[nm->order[i]], (size_t)n, (size_t)n, wrap, out);
        fputc('\n', out);
    }
}

void au_names_free(au_names *nm)
{
    free(nm->base);
    free(nm->len);
    free(nm->need);
    free(nm->num);
    free(nm->order);
    free(nm->buf);
    memset(nm, 0, sizeof *nm);
}
