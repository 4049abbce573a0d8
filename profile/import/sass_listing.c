/*
 * sass_listing.c - parser of nvdisasm's and cuobjdump's SASS listings (sass_listing.h): the
 * opcode at each PC of each function, and a function's shared-memory load sites.  Listings come
 * from tools the user installed: every line is read as untrusted input.
 */
#include "sass_listing.h"

#include "atomutil/model.h"
#include "atomutil/util.h"

#include <stdlib.h>
#include <string.h>

/* A header of the CUDA toolkit (where atomicAdd & co. are defined), not the user's code. */
static int toolkit_header(const char *path)
{
    return (strstr(path, "/targets/") && strstr(path, "/include/")) || strstr(path, "/cuda/include/") ||
           strstr(path, "/crt/") != NULL;
}

/* "file:line" of a '//## File "F", line N[ inlined at "G", line M]' comment: F:N, or G:M when F is
 * a toolkit header; file names without their directory.  Leaves out untouched if it does not
 * parse. */
static void line_info(const char *li, char *out, size_t size)
{
    const char *name = li + 12, *q = strchr(name, '"');
    const char *ln = q ? strstr(q, "line ") : NULL;
    if (!q || !ln)
        return;
    const char *at = strstr(ln, "inlined at \"");
    char file[400];
    int n = atoi(ln + 5);
    snprintf(file, sizeof file, "%.*s", (int)(q - name), name);
    if (at && toolkit_header(file)) {
        const char *g = at + 12, *gq = strchr(g, '"');
        const char *gl = gq ? strstr(gq, "line ") : NULL;
        if (gq && gl) {
            snprintf(file, sizeof file, "%.*s", (int)(gq - g), g);
            n = atoi(gl + 5);
        }
    }
    const char *base = strrchr(file, '/');
    /* a name too long for out is cut, never the line number */
    const int room = size > 12 ? (int)size - 12 : 0;
    snprintf(out, size, "%.*s:%d", room, base ? base + 1 : file, n);
}

/* The header of a function in a listing line ("Function : NAME" or ".text.NAME:"): NAME copied to
 * out, 1; 0 for other lines. */
static int function_header(const char *line, char *out, size_t size)
{
    const char *name = strstr(line, "Function : ");
    const char *t = line + strspn(line, " \t");
    size_t n;
    if (name) {
        name += 11;
        n = strcspn(name, " \t\r");
    } else if (strncmp(t, ".text.", 6) == 0 && (n = strcspn(t, " \t\r")) > 7 && t[n - 1] == ':' &&
               t[n + strspn(t + n, " \t\r")] == '\0') {
        name = t + 6;
        n -= 7;
    } else {
        return 0;
    }
    snprintf(out, size, "%.*s", (int)n, name);
    return 1;
}

/* The next line of text[..end) at *s, copied NUL-terminated into line (cut at size - 1); advances
 * *s past its line end. */
static void next_line(const char **s, const char *end, char *line, size_t size)
{
    const char *nl = memchr(*s, '\n', (size_t)(end - *s));
    size_t ll = nl ? (size_t)(nl - *s) : (size_t)(end - *s);
    if (ll >= size)
        ll = size - 1;
    memcpy(line, *s, ll);
    line[ll] = '\0';
    *s = nl ? nl + 1 : end;
}

/* An instruction line: the PC in a comment, an optional predicate "@P0", the opcode, operands,
 * ';', the encoding.  1 with *pc, the opcode at *op (not NUL-terminated) and its length *ol; 0 for
 * other lines. */
static int instruction(char *line, unsigned *pc, char **op, size_t *ol)
{
    char *c = strstr(line, "/*");
    int used = 0;
    if (!c || sscanf(c, "/*%x*/%n", pc, &used) != 1 || used == 0)
        return 0;
    char *o = c + used;
    o += strspn(o, " \t");
    if (*o == '@') {
        o += strcspn(o, " \t");
        o += strspn(o, " \t");
    }
    *op = o;
    *ol = strcspn(o, " \t;");
    return 1;
}

int au_sass_ops_parse(const char *text, size_t len, au_sass_ops *ops)
{
    char *fn = NULL;
    char source[160] = "";
    int in_block = 0; /* inside the line-info lines before an instruction */
    const char *s = text, *end = text + len;
    while (s < end) {
        char line[512], name[sizeof line];
        next_line(&s, end, line, sizeof line);
        if (function_header(line, name, sizeof name)) {
            free(fn);
            source[0] = '\0';
            if (!(fn = strdup(name)))
                return au_set_error(AU_E_NOMEM, "out of memory");
            continue;
        }
        char *li = strstr(line, "//## File \"");
        if (li) {
            /* '//## File "/path/histogram.cu", line 64'; with nvdisasm -gi an instruction's block
             * starts with its innermost frame, e.g. '//## File ".../device_atomic_functions.hpp",
             * line 112 inlined at "/path/histogram.cu", line 66': the first frame outside the
             * toolkit's headers is the user's line */
            if (!in_block)
                line_info(li, source, sizeof source);
            in_block = 1;
            continue;
        }
        unsigned pc;
        char *op;
        size_t ol;
        if (!fn || !instruction(line, &pc, &op, &ol))
            continue;
        in_block = 0;
        if (!((ol >= 5 && strncmp(op, "ATOMS", 5) == 0) ||
              (ol >= 4 && strncmp(op, "ATOM", 4) == 0 && (op[4] == '.' || op[4] == ' ' || ol == 4))))
            continue;
        if (au_grow(&ops->v, &ops->cap, ops->count, sizeof *ops->v, 64) != 0) {
            free(fn);
            return au_set_error(AU_E_NOMEM, "out of memory");
        }
        au_sass_op *o = &ops->v[ops->count];
        if (!(o->function = strdup(fn))) {
            free(fn);
            return au_set_error(AU_E_NOMEM, "out of memory");
        }
        o->pc = pc;
        memcpy(o->source, source, sizeof o->source);
        if (ol >= sizeof o->opcode)
            ol = sizeof o->opcode - 1;
        memcpy(o->opcode, op, ol);
        o->opcode[ol] = '\0';
        ops->count++;
    }
    free(fn);
    return AU_OK;
}

const char *au_sass_ops_find(const au_sass_ops *ops, const char *function, uint32_t pc)
{
    for (size_t i = 0; i < ops->count; ++i)
        if (ops->v[i].pc == pc && strcmp(ops->v[i].function, function) == 0)
            return ops->v[i].opcode;
    return NULL;
}

void au_sass_ops_free(au_sass_ops *ops)
{
    for (size_t i = 0; i < ops->count; ++i)
        free(ops->v[i].function);
    free(ops->v);
    memset(ops, 0, sizeof *ops);
}

/* ------------------------------------------------------------------ load sites of CAS loops */

enum { SITE_OTHER = 0, SITE_LOAD, SITE_CAST, SITE_BRANCH };

typedef struct {
    uint32_t pc;
    int kind;
    long target;    /* SITE_BRANCH: target pc, -1 unknown */
    char label[48]; /* SITE_BRANCH: nvdisasm label of the target, "" when an address */
} site_ins;

typedef struct {
    char name[48];
    long pc; /* pc of the instruction after the label, -1 until seen */
} site_label;

int au_sass_load_sites(const char *text, size_t len, const char *function, au_load_sites *out)
{
    memset(out, 0, sizeof *out);
    site_ins *ins = NULL;
    site_label *lab = NULL;
    size_t nins = 0, capins = 0, nlab = 0, caplab = 0, pending = 0;
    int in_fn = 0, rc = AU_OK;
    const char *s = text, *end = text + len;
    while (s < end && rc == AU_OK) {
        char line[512], name[sizeof line];
        next_line(&s, end, line, sizeof line);
        if (function_header(line, name, sizeof name)) {
            if (in_fn)
                break; /* the next function: ours is complete */
            in_fn = strcmp(name, function) == 0;
            out->known = in_fn;
            continue;
        }
        if (!in_fn)
            continue;
        char *t = line + strspn(line, " \t");
        size_t tl = strcspn(t, " \t\r");
        if (t[0] == '.' && tl > 1 && t[tl - 1] == ':' && t[tl + strspn(t + tl, " \t\r")] == '\0') {
            /* a label: it names the next instruction */
            if (au_grow(&lab, &caplab, nlab, sizeof *lab, 64) != 0) {
                rc = AU_E_NOMEM;
                break;
            }
            snprintf(lab[nlab].name, sizeof lab[nlab].name, "%.*s", (int)(tl - 1), t);
            lab[nlab++].pc = -1;
            ++pending;
            continue;
        }
        unsigned pc;
        char *op;
        size_t ol;
        if (!instruction(line, &pc, &op, &ol) || ol == 0)
            continue;
        for (size_t k = nlab - pending; k < nlab; ++k)
            lab[k].pc = pc;
        pending = 0;
        if (au_grow(&ins, &capins, nins, sizeof *ins, 256) != 0) {
            rc = AU_E_NOMEM;
            break;
        }
        site_ins *x = &ins[nins++];
        memset(x, 0, sizeof *x);
        x->pc = pc;
        x->target = -1;
        if ((ol >= 3 && strncmp(op, "LDS", 3) == 0 && (ol == 3 || op[3] == '.' || op[3] == 'M')))
            x->kind = SITE_LOAD; /* LDS, LDS.64, LDSM...: shared loads */
        else if (ol >= 15 && strncmp(op, "ATOMS.CAST.SPIN", 15) == 0)
            x->kind = SITE_CAST;
        else if (ol == 3 && strncmp(op, "BRA", 3) == 0) {
            x->kind = SITE_BRANCH;
            const char *arg = op + ol, *lq = strstr(arg, "(."), *hx = strstr(arg, "0x");
            if (lq) {
                lq += 1;
                snprintf(x->label, sizeof x->label, "%.*s", (int)strcspn(lq, ")` ;"), lq);
            } else if (hx) {
                x->target = strtol(hx, NULL, 16);
            }
        }
    }
    if (rc == AU_OK && out->known) {
        for (size_t i = 0; i < nins; ++i)
            if (ins[i].kind == SITE_BRANCH && ins[i].label[0])
                for (size_t k = 0; k < nlab; ++k)
                    if (strcmp(lab[k].name, ins[i].label) == 0)
                        ins[i].target = lab[k].pc;
        /* each load: inside a CAS loop, inside another loop, or in none */
        int *where = calloc(nins ? nins : 1, sizeof *where); /* 0 none, 1 other loop, 2 CAS loop */
        if (!where)
            rc = AU_E_NOMEM;
        for (size_t b = 0; b < nins && rc == AU_OK; ++b) {
            if (ins[b].kind != SITE_BRANCH || ins[b].target < 0 || ins[b].target > (long)ins[b].pc)
                continue;
            size_t first = b;
            while (first > 0 && (long)ins[first - 1].pc >= ins[b].target)
                --first;
            /* a CAS loop: an innermost loop (no other backward branch inside) that holds the CAS */
            int cas = 0, inner = 1;
            for (size_t i = first; i <= b; ++i) {
                cas |= ins[i].kind == SITE_CAST;
                if (i != b && ins[i].kind == SITE_BRANCH && ins[i].target >= 0 && ins[i].target <= (long)ins[i].pc &&
                    ins[i].target >= (long)ins[first].pc)
                    inner = 0;
            }
            cas = cas && inner && b - first + 1 <= 24;
            out->cas_loops += cas;
            for (size_t i = first; i <= b; ++i)
                if (ins[i].kind == SITE_LOAD && where[i] < 1 + cas)
                    where[i] = 1 + cas;
        }
        for (size_t i = 0; i < nins && rc == AU_OK; ++i) {
            if (ins[i].kind != SITE_LOAD)
                continue;
            if (where[i] == 2)
                out->loop_loads++;
            else if (where[i] == 1)
                out->hot_loads++;
            else
                out->cold_loads++;
        }
        free(where);
    }
    free(ins);
    free(lab);
    if (rc != AU_OK) {
        memset(out, 0, sizeof *out);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    return AU_OK;
}
