/* Finding literals in a line's message, and the set of device lines a file has had: the two searches
 * _linescan.c runs on each line. A literal is anchored on two bytes that are rare in the file, so most
 * positions cost one table look-up. Included by _linescan.c. */
#ifndef CASEBOOK_LINESCAN_SEARCH_H
#define CASEBOOK_LINESCAN_SEARCH_H

#include <stdint.h>
#include <string.h>

#define MAX_LITERALS 512                 /* the keep literals, a system log's own words, the device one */
#define SAMPLE_BYTES (1 << 16)           /* the start of the file whose two-byte values are counted */
#define DEVICE_KEYS 1024                 /* twice the most device lines a file may have picked */

typedef struct { int16_t lit, next; Py_ssize_t offset; } Anchor;   /* a literal's two bytes at `offset` */

typedef struct {
    const unsigned char *lits[MAX_LITERALS];
    Py_ssize_t lit_len[MAX_LITERALS];
    Py_ssize_t nlits;                      /* the keep literals, then the device literal last */
    uint8_t marks[65536];                  /* two-byte values some literal is anchored on */
    int16_t head[65536];                   /* first anchor on each two-byte value */
    Anchor anchors[2 * MAX_LITERALS];
    uint16_t *freq;                        /* while it is built; kept here so a scan cut short can free it */
} Search;

/* who named which device in a device line: the line up to its time, and from its time to the device number */
typedef struct { uint64_t hash; Py_ssize_t at[2], len[2]; } DeviceKey;

static inline unsigned pair(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }

/* Anchor each literal on two overlapping two-byte pieces, the pair rarest in the first part of this file:
 * one of them starts at an even distance from the message start in any occurrence, so only every second
 * position is tested against the marked two-byte values; whole literals are compared only where a mark is
 * hit, which seldom happens. */
static int search_build(Search *s, const unsigned char *data, Py_ssize_t size)
{
    uint16_t *freq = s->freq = PyMem_RawCalloc(65536, sizeof(uint16_t));
    if (freq == NULL)
        return -1;
    Py_ssize_t sample = size < SAMPLE_BYTES ? size : SAMPLE_BYTES;
    for (Py_ssize_t i = 0; i + 1 < sample; i++)
        freq[pair(data + i)]++;
    memset(s->head, 0xff, sizeof s->head);
    for (Py_ssize_t l = 0, e = 0; l < s->nlits; l++) {
        const unsigned char *t = s->lits[l];
        Py_ssize_t best = 0;
        for (Py_ssize_t k = 1; k + 2 < s->lit_len[l]; k++)
            if (freq[pair(t + k)] + freq[pair(t + k + 1)] < freq[pair(t + best)] + freq[pair(t + best + 1)])
                best = k;
        for (Py_ssize_t j = best; j < best + 2; j++, e++) {
            unsigned key = pair(t + j);
            s->anchors[e].lit = (int16_t)l;
            s->anchors[e].offset = j;
            s->anchors[e].next = s->head[key];
            s->head[key] = (int16_t)e;
            s->marks[key] = 1;
        }
    }
    PyMem_RawFree(freq);
    s->freq = NULL;
    return 0;
}

/* The search's literals: the bytes objects of the tuple `literals`, then `last` (the device literal); -1 with an
 * exception set when there are too many, or one is no bytes or shorter than three bytes. */
static int search_literals(Search *s, PyObject *literals, const char *last, Py_ssize_t last_len)
{
    s->nlits = PyTuple_GET_SIZE(literals) + 1;
    if (s->nlits > MAX_LITERALS) {
        PyErr_Format(PyExc_ValueError, "at most %d literals", MAX_LITERALS - 1);
        return -1;
    }
    for (Py_ssize_t i = 0; i < s->nlits; i++) {
        PyObject *lit = i < s->nlits - 1 ? PyTuple_GET_ITEM(literals, i) : NULL;
        if (lit != NULL && !PyBytes_Check(lit)) {
            PyErr_SetString(PyExc_TypeError, "literals must be bytes");
            return -1;
        }
        s->lits[i] = (const unsigned char *)(lit ? PyBytes_AS_STRING(lit) : last);
        s->lit_len[i] = lit ? PyBytes_GET_SIZE(lit) : last_len;
        if (s->lit_len[i] < 3) {
            PyErr_SetString(PyExc_ValueError, "every literal needs at least three bytes");
            return -1;
        }
    }
    return 0;
}

/* The literals the bytes [start, end) hold, found from their anchors. Without `out`: bit 0 for any keep literal,
 * bit 1 for the device literal (the last one, whose end goes to `device_end`), stopping once all of `want` is found.
 * With `out`: each keep literal whose `last[l]` is not yet `line` gets `last[l] = line` and is written to `out`
 * (room for every keep literal), and the count is returned. Inlined into the two below, each keeps its own loop. */
static inline Py_ssize_t search_core(const Search *s, const unsigned char *p, Py_ssize_t start, Py_ssize_t end,
                                     int want, Py_ssize_t *device_end, Py_ssize_t line, Py_ssize_t *last,
                                     Py_ssize_t *out)
{
    const Py_ssize_t device = s->nlits - 1;
    const uint8_t *m = s->marks;
    Py_ssize_t found = 0;
    Py_ssize_t i = start;
    while (i + 1 < end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* eight bytes at a time while none of their four even positions is marked */
        if (i + 8 <= end) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            if (!(m[v & 0xffff] | m[(v >> 16) & 0xffff] | m[(v >> 32) & 0xffff] | m[v >> 48])) {
                i += 8;
                continue;
            }
        }
#endif
        for (Py_ssize_t stop = i + 8; i < stop && i + 1 < end; i += 2) {
            unsigned key = pair(p + i);
            if (!m[key])
                continue;
            for (int16_t e = s->head[key]; e >= 0; e = s->anchors[e].next) {
                Py_ssize_t l = s->anchors[e].lit, at = i - s->anchors[e].offset, len = s->lit_len[l];
                if (at < start || at + len > end)
                    continue;
                if (out != NULL) {
                    if (l < device && last[l] != line && memcmp(p + at, s->lits[l], (size_t)len) == 0) {
                        last[l] = line;
                        out[found++] = l;
                    }
                    continue;
                }
                int flag = l == device ? 2 : 1;
                if ((want & flag) && !(found & flag) && memcmp(p + at, s->lits[l], (size_t)len) == 0) {
                    found |= flag;
                    if (flag == 2)
                        *device_end = at + len;
                }
            }
            if (out == NULL && (found & want) == want)
                return found;
        }
    }
    return found;
}

/* Which literals the bytes [start, end) hold: bit 0 any keep literal, bit 1 the device literal (the last
 * one, whose end goes to `device_end`); stops once all of `want` is found. */
static int search_line(const Search *s, const unsigned char *p, Py_ssize_t start, Py_ssize_t end, int want,
                       Py_ssize_t *device_end)
{
    return (int)search_core(s, p, start, end, want, device_end, 0, NULL, NULL);
}

/* Each keep literal the bytes [start, end) hold whose `last[l]` is not yet `line`: `last[l]` is set to `line` and
 * `l` written to `out` (room for every keep literal); returns how many were written. */
static Py_ssize_t search_each(const Search *s, const unsigned char *p, Py_ssize_t start, Py_ssize_t end,
                              Py_ssize_t line, Py_ssize_t *last, Py_ssize_t *out)
{
    return search_core(s, p, start, end, 0, NULL, line, last, out);
}

static inline uint64_t word(const unsigned char *p, Py_ssize_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, (size_t)(n < 8 ? n : 8));
    return v;
}

/* A hash of two byte ranges: their lengths and the eight bytes at each end of each (where the process,
 * thread and device numbers of a device line are); remember() compares the whole ranges. */
static uint64_t key_hash(const unsigned char *p, const DeviceKey *k)
{
    const uint64_t mul = 0x9E3779B97F4A7C15ULL;
    uint64_t h = ((uint64_t)k->len[0] << 32 | (uint64_t)k->len[1]) * mul;
    for (int r = 0; r < 2; r++) {
        const unsigned char *q = p + k->at[r];
        Py_ssize_t n = k->len[r];
        h = ((h ^ word(q, n)) * mul) ^ (h >> 29);
        h = ((h ^ word(n > 8 ? q + n - 8 : q, n)) * mul) ^ (h >> 29);
    }
    return h | 1;   /* 0 marks an empty slot */
}

/* Whether the file (bytes at p) has not had a device line with this key yet (it is added). */
static int remember(DeviceKey *keys, const unsigned char *p, DeviceKey k)
{
    k.hash = key_hash(p, &k);
    for (size_t i = k.hash & (DEVICE_KEYS - 1);; i = (i + 1) & (DEVICE_KEYS - 1)) {
        const DeviceKey *o = &keys[i];
        if (o->hash == 0) {
            keys[i] = k;
            return 1;
        }
        if (o->hash == k.hash && o->len[0] == k.len[0] && o->len[1] == k.len[1]
                && memcmp(p + o->at[0], p + k.at[0], (size_t)k.len[0]) == 0
                && memcmp(p + o->at[1], p + k.at[1], (size_t)k.len[1]) == 0)
            return 0;
    }
}

#endif
