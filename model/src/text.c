/*
 * text.c - writing names that come from outside (kernel, GPU and program names, paths, notes of a
 * table) so that they cannot garble a terminal or break a parser (docs/cli.md, "Names in the
 * output"): valid UTF-8 is kept; each ill-formed UTF-8 sequence becomes U+FFFD; control characters
 * (C0, DEL, C1) and the bidirectional overrides become '?' in text and CSV and \uXXXX in JSON.
 */
#include "internal.h"

#include <stdint.h>
#include <string.h>

#define BAD 0xFFFFFFFFu
static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* The character at p (before end): its length in bytes and *cp its code point, or BAD for an
 * ill-formed sequence whose length is then that of its maximal subpart (Unicode, "U+FFFD
 * substitution of maximal subparts"): one U+FFFD per subpart, as Python and browsers decode. */
static size_t utf8_next(const unsigned char *p, const unsigned char *end, uint32_t *cp)
{
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    size_t n;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        v = c & 0x0F;
        if (c == 0xE0) /* no overlong forms */
            lo = 0xA0;
        else if (c == 0xED) /* no surrogates */
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4) /* nothing above U+10FFFF */
            hi = 0x8F;
    } else {
        *cp = BAD;
        return 1;
    }
    for (size_t i = 1; i < n; ++i) {
        if (p + i >= end || p[i] < lo || p[i] > hi) {
            *cp = BAD;
            return i;
        }
        v = v << 6 | (p[i] & 0x3Fu);
        lo = 0x80;
        hi = 0xBF;
    }
    *cp = v;
    return n;
}

/* Characters that move the cursor, change colours or reorder text on a terminal. */
static int unsafe(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

/* Display columns of a (safe) character: East Asian wide ones take two, combining marks none. */
static int columns(uint32_t c)
{
    static const uint32_t wide[][2] = {
        {0x1100, 0x115F}, {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},
        {0xA000, 0xA4CF}, {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},
        {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD},
    };
    if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F))
        return 0;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; ++i)
        if (c >= wide[i][0] && c <= wide[i][1])
            return 2;
    return 1;
}

/* The next character of s (before end) as written in mode: its bytes in piece[*plen], its display
 * columns in *cols (text); returns the input bytes it consumed. */
static size_t next_piece(const char *s, const char *end, au_text_mode mode, char piece[8], size_t *plen, int *cols)
{
    uint32_t c;
    size_t n = utf8_next((const unsigned char *)s, (const unsigned char *)end, &c);
    *cols = 1;
    if (c == BAD) {
        memcpy(piece, replacement, 3);
        *plen = 3;
    } else if (mode == AU_TEXT_JSON && (c == '"' || c == '\\')) {
        piece[0] = '\\';
        piece[1] = (char)c;
        *plen = 2;
    } else if (mode == AU_TEXT_CSV && c == '"') {
        memcpy(piece, "\"\"", 2);
        *plen = 2;
    } else if (unsafe(c)) {
        if (mode == AU_TEXT_JSON)
            *plen = (size_t)snprintf(piece, 8, "\\u%04x", (unsigned)c);
        else {
            piece[0] = '?';
            *plen = 1;
        }
    } else {
        memcpy(piece, s, n);
        *plen = n;
        *cols = columns(c);
    }
    return n;
}

void au_fput_text(FILE *out, const char *s, au_text_mode mode)
{
    if (!s)
        s = "";
    const char *end = s + strlen(s);
    if (mode != AU_TEXT_PLAIN)
        fputc('"', out);
    while (s < end) {
        const char *run = s;
        /* plain printable ASCII goes out in runs */
        while (s < end && (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7F &&
               !(mode == AU_TEXT_JSON && (*s == '"' || *s == '\\')) && !(mode == AU_TEXT_CSV && *s == '"'))
            ++s;
        if (s > run)
            fwrite(run, 1, (size_t)(s - run), out);
        if (s < end) {
            char piece[8];
            size_t pl;
            int cols;
            s += next_piece(s, end, mode, piece, &pl, &cols);
            fwrite(piece, 1, pl, out);
        }
    }
    if (mode != AU_TEXT_PLAIN)
        fputc('"', out);
}

static size_t width_n(const char *s, const char *end)
{
    size_t w = 0;
    while (s < end) {
        char piece[8];
        size_t pl;
        int cols;
        s += next_piece(s, end, AU_TEXT_PLAIN, piece, &pl, &cols);
        w += (size_t)cols;
    }
    return w;
}

size_t au_text_width_n(const char *s, size_t len)
{
    return s ? width_n(s, s + len) : 0;
}

size_t au_text_width(const char *s)
{
    return s ? width_n(s, s + strlen(s)) : 0;
}

char *au_text_fit_n(const char *s, size_t len, char *buf, size_t size, size_t width, int pad)
{
    if (size == 0)
        return buf;
    const char *end = s + len;
    /* a cut leaves one column for the '~' */
    size_t room = width && width_n(s, end) > width ? width - 1 : width;
    size_t o = 0, cols = 0;
    while (s < end) {
        char piece[8];
        size_t pl;
        int w;
        size_t n = next_piece(s, end, AU_TEXT_PLAIN, piece, &pl, &w);
        int more = s + n < end; /* a '~' may follow: keep a byte for it */
        if ((width && cols + (size_t)w > room) || o + pl + (size_t)more >= size) {
            if (o + 1 < size) {
                buf[o++] = '~';
                ++cols;
            }
            break;
        }
        memcpy(buf + o, piece, pl);
        o += pl;
        cols += (size_t)w;
        s += n;
    }
    while (pad && cols < width && o + 1 < size) {
        buf[o++] = ' ';
        ++cols;
    }
    buf[o] = '\0';
    return buf;
}

char *au_text_fit(const char *s, char *buf, size_t size, size_t width, int pad)
{
    if (!s)
        s = "";
    return au_text_fit_n(s, strlen(s), buf, size, width, pad);
}
