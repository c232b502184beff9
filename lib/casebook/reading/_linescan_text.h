/* The bytes of a plog line: the slog header grammar (a subset of grammar.HEADER: ASCII digits and spaces
 * only), the strict UTF-8 test (what Python's decoder accepts), a line's shape (its bytes without its numbers) and
 * a system log's routine text. Included by _linescan.c. */
#ifndef CASEBOOK_LINESCAN_TEXT_H
#define CASEBOOK_LINESCAN_TEXT_H

#include <stdint.h>
#include <string.h>

#define TIME_LEN 27                      /* YYYY-MM-DD-hh:mm:ss.mmm.uuu */

static inline int is_digit(unsigned c) { return c - '0' < 10u; }
static inline int is_upper(unsigned c) { return c - 'A' < 26u; }
static inline int is_alpha_(unsigned c) { return is_upper(c) || c - 'a' < 26u || c == '_'; }
static inline int is_space(unsigned c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

/* Whether the bytes at q start with a plog time, YYYY-MM-DD-hh:mm:ss.mmm.uuu. */
static inline int is_time(const unsigned char *q, const unsigned char *e)
{
    if (e - q < TIME_LEN || q[4] != '-' || q[7] != '-' || q[10] != '-' || q[13] != ':' || q[16] != ':'
            || q[19] != '.' || q[23] != '.')
        return 0;
    return is_digit(q[0]) & is_digit(q[1]) & is_digit(q[2]) & is_digit(q[3]) & is_digit(q[5]) & is_digit(q[6])
           & is_digit(q[8]) & is_digit(q[9]) & is_digit(q[11]) & is_digit(q[12]) & is_digit(q[14])
           & is_digit(q[15]) & is_digit(q[17]) & is_digit(q[18]) & is_digit(q[20]) & is_digit(q[21])
           & is_digit(q[22]) & is_digit(q[24]) & is_digit(q[25]) & is_digit(q[26]);
}

/* Length of the level token when the line starts with an slog header, else 0; `body` is set to where the
 * header ends. The header is `[LEVEL]\s*MODULE(PID,PNAME):YYYY-MM-DD-hh:mm:ss.mmm.uuu` (grammar.HEADER). */
static Py_ssize_t header(const unsigned char *p, const unsigned char *e, const unsigned char **body)
{
    const unsigned char *q = p + 1, *level;
    Py_ssize_t level_len;
    if (p >= e || *p != '[')
        return 0;
    level = q;
    if (q < e && is_upper(*q))
        while (q < e && is_upper(*q)) q++;
    else
        while (q < e && is_digit(*q)) q++;
    level_len = q - level;
    if (level_len == 0 || q >= e || *q != ']')
        return 0;
    for (q++; q < e && is_space(*q); q++) {}
    if (q < e && is_alpha_(*q))
        while (q < e && (is_alpha_(*q) || is_digit(*q))) q++;
    else if (q < e && is_digit(*q))
        while (q < e && is_digit(*q)) q++;
    else
        return 0;
    if (q >= e || *q++ != '(')
        return 0;
    if (q < e && *q == '-')
        q++;
    if (q >= e || !is_digit(*q))
        return 0;
    while (q < e && is_digit(*q)) q++;
    if (q >= e || *q++ != ',')
        return 0;
    while (q < e && *q != ')') q++;
    if (e - q < 2 || q[0] != ')' || q[1] != ':')
        return 0;
    q += 2;
    if (!is_time(q, e))
        return 0;
    *body = q + TIME_LEN;
    return level_len;
}

/* Length of the UTF-8 sequence at p (at most `left` bytes there) if Python's strict decoder accepts it, else 0. */
static Py_ssize_t utf8_char(const unsigned char *p, Py_ssize_t left)
{
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    Py_ssize_t need;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c == 0xE0) { need = 2; lo = 0xA0; }          /* no overlong forms */
    else if (c == 0xED) { need = 2; hi = 0x9F; }          /* no surrogates */
    else if (c >= 0xE1 && c <= 0xEF) need = 2;
    else if (c == 0xF0) { need = 3; lo = 0x90; }
    else if (c == 0xF4) { need = 3; hi = 0x8F; }          /* nothing above U+10FFFF */
    else if (c >= 0xF1 && c <= 0xF3) need = 3;
    else return 0;
    if (need >= left || p[1] < lo || p[1] > hi)
        return 0;
    for (Py_ssize_t k = 2; k <= need; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    return need + 1;
}

/* Whether the bytes are strict UTF-8 with no NUL, no CR, no ESC (a terminal's colour code, which the line-by-line
 * reader leaves out) and no no-break space (which it reads as a space). ASCII is tested 64 bytes at a
 * time (the compiler vectorises the inner loop); only the blocks holding other bytes are decoded. */
static int plain_utf8(const unsigned char *p, Py_ssize_t n)
{
    if (memchr(p, 0, (size_t)n) || memchr(p, '\r', (size_t)n) || memchr(p, 0x1b, (size_t)n))
        return 0;
    Py_ssize_t i = 0;
    while (i < n) {
        if (i + 64 <= n) {
            uint64_t acc = 0, w[8];
            memcpy(w, p + i, 64);
            for (int k = 0; k < 8; k++)
                acc |= w[k];
            if (!(acc & 0x8080808080808080ULL)) {
                i += 64;
                continue;
            }
        }
        Py_ssize_t stop = i + 64 < n ? i + 64 : n;
        while (i < stop) {
            if (p[i] < 0x80) {
                i++;
                continue;
            }
            Py_ssize_t len = utf8_char(p + i, n - i);
            if (!len || (len == 2 && p[i] == 0xC2 && p[i + 1] == 0xA0))
                return 0;
            i += len;   /* may run past the block: the next one starts where the character ends */
        }
    }
    return 1;
}

static inline int is_hex(unsigned c) { return is_digit(c) || (c | 0x20) - 'a' < 6u; }

/* The next byte of the shape of the line bytes [*i, end), or -1 at their end: numbers are left out (`0x` and its hex
 * digits, runs of two digits or more), as flood.py's _NUMBERS does. */
static int shape_byte(const unsigned char *p, Py_ssize_t *i, Py_ssize_t end)
{
    for (;;) {
        Py_ssize_t k = *i;
        if (k >= end)
            return -1;
        if (p[k] == '0' && k + 2 < end && p[k + 1] == 'x' && is_hex(p[k + 2])) {
            for (k += 2; k < end && is_hex(p[k]); k++) {}
        } else if (is_digit(p[k]) && k + 1 < end && is_digit(p[k + 1])) {
            for (; k < end && is_digit(p[k]); k++) {}
        } else {
            *i = k + 1;
            return p[k];
        }
        *i = k;
    }
}

static uint64_t shape_hash(const unsigned char *p, Py_ssize_t start, Py_ssize_t end)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int c; (c = shape_byte(p, &start, end)) >= 0;)
        h = (h ^ (uint64_t)c) * 0x100000001b3ULL;
    return h | 1;   /* 0 marks an empty slot */
}

static int same_shape(const unsigned char *p, Py_ssize_t a, Py_ssize_t a_end, Py_ssize_t b, Py_ssize_t b_end)
{
    for (;;) {
        int x = shape_byte(p, &a, a_end), y = shape_byte(p, &b, b_end);
        if (x != y)
            return 0;
        if (x < 0)
            return 1;
    }
}

/* Text mode: whether a line that is no slog header may be routine text, known unparsed without the grammar once
 * it holds no literal: it starts with printable ASCII that is not a space (an empty, blank or indented line, or
 * one starting with other text, is left to the grammar), and not like a header the grammar may still accept
 * (its level, module and the `(` after it; system_log.py has the same test in Python). */
static int routine_text(const unsigned char *p, const unsigned char *e)
{
    if (p >= e || *p <= ' ' || *p >= 0x7f)
        return 0;
    if (*p != '[')
        return 1;
    /* `[LEVEL]\s*MODULE(`, where grammar.HEADER's `\d` and `\s` also take characters past ASCII: a byte past
     * ASCII where one of them may go on leaves the line to the grammar */
    const unsigned char *q = p + 1;
    if (q < e && is_upper(*q))
        while (q < e && is_upper(*q)) q++;
    else
        while (q < e && is_digit(*q)) q++;
    if (q < e && *q >= 0x80)
        return 0;
    if (q >= e || *q != ']' || q == p + 1)
        return 1;
    for (q++; q < e && (is_space(*q) || *q == '\r' || (*q >= 0x1c && *q <= 0x1f)); q++) {}
    if (q < e && *q >= 0x80)
        return 0;
    if (q < e && is_alpha_(*q))
        while (q < e && (is_alpha_(*q) || is_digit(*q))) q++;
    else if (q < e && is_digit(*q))
        while (q < e && is_digit(*q)) q++;
    else
        return 1;
    return !(q < e && (*q == '(' || *q >= 0x80));
}

/* `<exception_print> 0x16500: 0x0 0x0 ...`: one row of the memory words a device dump prints, the whole line
 * (device_text.memory_row is the same rule) */
static int memory_row(const unsigned char *p, const unsigned char *e)
{
    static const char lead[] = "<exception_print> 0x";
    const Py_ssize_t n = sizeof lead - 1;
    if (e - p < n || memcmp(p, lead, (size_t)n) != 0)
        return 0;
    const unsigned char *q = p + n, *at = q;
    while (q < e && is_hex(*q)) q++;
    if (q == at || q >= e || *q != ':')
        return 0;
    q++;
    int words = 0;
    while (e - q >= 3 && q[0] == ' ' && q[1] == '0' && q[2] == 'x') {
        at = q += 3;
        while (q < e && is_hex(*q)) q++;
        if (q == at)
            return 0;
        words++;
    }
    while (q < e && *q == ' ') q++;
    return words > 0 && q == e;
}

/* `<exception_print>HWS_REG_AIC_BASE_ADDR[0]=0x6000b0000000`, `<exception_print>HWS_REG_SQ_STATUS(sq_head)=0x1`: one
 * register of a device dump, its name in capitals, an index or a field in brackets after it (device_text.register_row
 * is the same rule) */
static int register_row(const unsigned char *p, const unsigned char *e)
{
    static const char lead[] = "<exception_print>";
    const Py_ssize_t n = sizeof lead - 1;
    if (e - p < n + 2 || memcmp(p, lead, (size_t)n) != 0)
        return 0;
    const unsigned char *q = p + n;
    if (!(*q >= 'A' && *q <= 'Z'))
        return 0;
    while (q < e && ((*q >= 'A' && *q <= 'Z') || is_digit(*q) || *q == '_')) q++;
    if (q < e && (*q == '[' || *q == '(')) {
        const unsigned char close = *q == '[' ? ']' : ')';
        q++;
        while (q < e && (*q == '_' || is_digit(*q) || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))) q++;
        if (q >= e || *q != close)
            return 0;
        q++;
    }
    return q < e && *q == '=';
}

#endif
