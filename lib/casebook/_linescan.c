/* One pass over the bytes of a big plog file: count its lines, test each against the slog header grammar,
 * count the header lines per level, and pick the lines that need a record (scan.py states the contract).
 *
 * The scan runs without the GIL, so the reader's threads scan files on every core. It declines (returns
 * None) whenever its answer could differ from the line-by-line reader's: NUL or CR bytes, a byte-order
 * mark, bytes that are not strict UTF-8 (what Python's decoder accepts), or more distinct level tokens
 * than it tracks. Its header test accepts a subset of grammar.HEADER (ASCII digits and spaces only);
 * a line it does not accept is picked and parsed by the grammar itself, so the accounting stays exact.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_LEVELS 64
#define MAX_LITERALS 256
#define BLOCK (1 << 17)
#define SAMPLE_BYTES (1 << 16)
#define TIME_LEN 27                      /* YYYY-MM-DD-hh:mm:ss.mmm.uuu */
#define DEVICE_KEYS 1024                 /* twice the most device lines a file may have picked */

typedef struct { Py_ssize_t no, start, end; } Span;
typedef struct { Span *v; Py_ssize_t n, cap; } Spans;
typedef struct { const unsigned char *text; Py_ssize_t len, count; } Level;
typedef struct { int16_t lit, next; Py_ssize_t offset; } Anchor;   /* a literal's two bytes at `offset` */
/* who named which device in a device line: the line up to its time, and from its time to the device number */
typedef struct { uint64_t hash; Py_ssize_t at[2], len[2]; } DeviceKey;

typedef struct {
    /* inputs */
    const unsigned char *data;
    Py_ssize_t size;
    const unsigned char *lits[MAX_LITERALS];
    Py_ssize_t lit_len[MAX_LITERALS];
    Py_ssize_t nlits;            /* the keep literals, then the device literal last */
    Py_ssize_t device_sample, index_step;
    DeviceKey device_keys[DEVICE_KEYS];  /* device lines picked so far (a hash set of key ranges) */
    /* the literal search (tables()): anchors' marks, and the literals anchored on each two bytes */
    uint8_t marks[65536];
    int16_t head[65536];                   /* first anchor on each two-byte value */
    Anchor anchors[2 * MAX_LITERALS];
    /* outputs */
    Py_ssize_t lines, header_lines;
    Level levels[MAX_LEVELS];
    Py_ssize_t nlevels;
    Spans picked, context, index;       /* index: the start of every index_step-th line */
    Span first_header, last_header;
    int declined, failed;
} Scan;

static int push(Spans *s, Py_ssize_t no, Py_ssize_t start, Py_ssize_t end)
{
    if (s->n == s->cap) {
        Py_ssize_t cap = s->cap ? s->cap * 2 : 256;
        Span *v = PyMem_RawRealloc(s->v, (size_t)cap * sizeof(Span));
        if (v == NULL)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n].no = no;
    s->v[s->n].start = start;
    s->v[s->n].end = end;
    s->n++;
    return 0;
}

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

/* Whether the bytes are strict UTF-8 with no NUL and no CR. ASCII is tested 64 bytes at a time (the
 * compiler vectorises the inner loop); only the blocks holding other bytes are decoded. */
static int plain_utf8(const unsigned char *p, Py_ssize_t n)
{
    if (memchr(p, 0, (size_t)n) || memchr(p, '\r', (size_t)n))
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
            if (!len)
                return 0;
            i += len;   /* may run past the block: the next one starts where the character ends */
        }
    }
    return 1;
}

static inline unsigned pair(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }

/* Anchor each literal on two overlapping two-byte pieces, the pair rarest in the first part of this file:
 * one of them starts at an even distance from the message start in any occurrence, so only every second
 * position is tested against the marked two-byte values; whole literals are compared only where a mark is
 * hit, which seldom happens. */
static int tables(Scan *s)
{
    uint16_t *freq = PyMem_RawCalloc(65536, sizeof(uint16_t));
    if (freq == NULL)
        return -1;
    Py_ssize_t sample = s->size < SAMPLE_BYTES ? s->size : SAMPLE_BYTES;
    for (Py_ssize_t i = 0; i + 1 < sample; i++)
        freq[pair(s->data + i)]++;
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
    return 0;
}

/* Which literals the bytes [start, end) hold: bit 0 any keep literal, bit 1 the device literal (the last
 * one, whose end goes to `device_end`); stops once all of `want` is found. */
static int literals_in(const Scan *s, const unsigned char *p, Py_ssize_t start, Py_ssize_t end, int want,
                       Py_ssize_t *device_end)
{
    const Py_ssize_t device = s->nlits - 1;
    const uint8_t *m = s->marks;
    int found = 0;
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
                int flag = l == device ? 2 : 1;
                if ((want & flag) && !(found & flag) && at >= start && at + len <= end
                        && memcmp(p + at, s->lits[l], (size_t)len) == 0) {
                    found |= flag;
                    if (flag == 2)
                        *device_end = at + len;
                }
            }
            if ((found & want) == want)
                return found;
        }
    }
    return found;
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

/* Whether the file has not had a device line with this key yet (it is added). */
static int remember(Scan *s, DeviceKey k)
{
    const unsigned char *p = s->data;
    k.hash = key_hash(p, &k);
    for (size_t i = k.hash & (DEVICE_KEYS - 1);; i = (i + 1) & (DEVICE_KEYS - 1)) {
        const DeviceKey *o = &s->device_keys[i];
        if (o->hash == 0) {
            s->device_keys[i] = k;
            return 1;
        }
        if (o->hash == k.hash && o->len[0] == k.len[0] && o->len[1] == k.len[1]
                && memcmp(p + o->at[0], p + k.at[0], (size_t)k.len[0]) == 0
                && memcmp(p + o->at[1], p + k.at[1], (size_t)k.len[1]) == 0)
            return 0;
    }
}

/* Count one header line of this level; its slot in s->levels, or -1 when there are too many levels. */
static Py_ssize_t count_level(Scan *s, const unsigned char *text, Py_ssize_t len)
{
    for (Py_ssize_t i = 0; i < s->nlevels; i++)
        if (s->levels[i].len == len && memcmp(s->levels[i].text, text, (size_t)len) == 0) {
            s->levels[i].count++;
            return i;
        }
    if (s->nlevels == MAX_LEVELS)
        return -1;
    s->levels[s->nlevels].text = text;
    s->levels[s->nlevels].len = len;
    s->levels[s->nlevels].count = 1;
    return s->nlevels++;
}

static void run(Scan *s)
{
    const unsigned char *p = s->data;
    Py_ssize_t n = s->size, start = 0, no = 0, devices = 0;
    int prev_header = 0, prev_picked = 0;
    Py_ssize_t prev_start = 0, prev_end = 0;
    Py_ssize_t known_at = 0, known_len = 0, known_slot = 0;   /* the last header line parsed in full */
    s->first_header.no = s->last_header.no = 0;
    if (n == 0)
        return;
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        s->declined = 1;
        return;
    }
    if (tables(s) < 0) {
        s->failed = 1;
        return;
    }
    Py_ssize_t checked = 0;   /* [0, checked) is known to be plain UTF-8 */
    while (start < n) {
        if (start >= checked) {
            /* test the next block of whole lines, then split it while it is still in the cache */
            Py_ssize_t stop = start + BLOCK < n ? start + BLOCK : n;
            const unsigned char *last = memchr(p + stop - 1, '\n', (size_t)(n - stop + 1));
            checked = last ? last - p + 1 : n;
            if (!plain_utf8(p + start, checked - start)) {
                s->declined = 1;
                return;
            }
        }
        const unsigned char *nl = memchr(p + start, '\n', (size_t)(n - start));
        Py_ssize_t end = nl ? nl - p : n;
        no++;
        if ((no - 1) % s->index_step == 0 && push(&s->index, no, start, start) < 0) {
            s->failed = 1;
            return;
        }
        const unsigned char *body = p + start;
        Py_ssize_t level;
        if (known_len && end - start > known_len && memcmp(p + start, p + known_at, (size_t)known_len) == 0
                && is_time(p + start + known_len, p + end)) {
            /* the level, module and process of the header line before, which the grammar accepted: only
             * the time is new */
            level = s->levels[known_slot].len;
            body = p + start + known_len + TIME_LEN;
            s->levels[known_slot].count++;
        } else if ((level = header(p + start, p + end, &body))) {
            if ((known_slot = count_level(s, p + start + 1, level)) < 0) {
                s->declined = 1;
                return;
            }
            known_at = start;
            known_len = body - TIME_LEN - (p + start);
        }
        int picked = !level;
        if (level) {
            s->header_lines++;
            picked = level == 5 && memcmp(p + start + 1, "ERROR", 5) == 0;
            if (!s->first_header.no)
                s->first_header = (Span){no, start, end};
            s->last_header = (Span){no, start, end};
        }
        int want = (picked ? 0 : 1) | (level && devices < s->device_sample ? 2 : 0);
        if (want) {
            /* the families read the message, so the header is not searched */
            Py_ssize_t device_end = 0;
            int found = literals_in(s, p, body - p, end, want, &device_end);
            if (found & 2) {
                /* the line up to its time and from its time to the device number say who (level, module,
                 * process, call site, thread) named which device: only the first line of each is kept */
                while (device_end < end && is_digit(p[device_end]))
                    device_end++;
                DeviceKey key = {0, {start, body - p}, {body - TIME_LEN - (p + start), device_end - (body - p)}};
                if (remember(s, key)) {
                    devices++;
                    picked = 1;
                }
            }
            picked = picked || (found & 1);
        }
        if ((picked && push(&s->picked, no, start, end) < 0)
                || (!level && prev_header && !prev_picked && push(&s->context, no - 1, prev_start, prev_end) < 0)) {
            s->failed = 1;
            return;
        }
        prev_header = level != 0;
        prev_picked = picked;
        prev_start = start;
        prev_end = end;
        start = end + 1;
    }
    s->lines = no;
}

static PyObject *text_of(const Scan *s, Span span)
{
    return PyUnicode_DecodeUTF8((const char *)s->data + span.start, span.end - span.start, "strict");
}

static PyObject *spans_list(const Scan *s, const Spans *spans)
{
    PyObject *out = PyList_New(spans->n);
    for (Py_ssize_t i = 0; out != NULL && i < spans->n; i++) {
        PyObject *item = Py_BuildValue("(nN)", spans->v[i].no, text_of(s, spans->v[i]));
        if (item == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

static PyObject *result(const Scan *s)
{
    PyObject *levels = PyDict_New(), *picked = NULL, *context = NULL, *first = NULL, *last = NULL, *out = NULL;
    PyObject *index = PyList_New(s->index.n);
    if (levels == NULL || index == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < s->index.n; i++) {
        PyObject *offset = PyLong_FromSsize_t(s->index.v[i].start);
        if (offset == NULL)
            goto done;
        PyList_SET_ITEM(index, i, offset);
    }
    for (Py_ssize_t i = 0; i < s->nlevels; i++) {
        PyObject *key = PyUnicode_DecodeASCII((const char *)s->levels[i].text, s->levels[i].len, "strict");
        PyObject *count = PyLong_FromSsize_t(s->levels[i].count);
        int bad = key == NULL || count == NULL || PyDict_SetItem(levels, key, count) < 0;
        Py_XDECREF(key);
        Py_XDECREF(count);
        if (bad)
            goto done;
    }
    if ((picked = spans_list(s, &s->picked)) == NULL || (context = spans_list(s, &s->context)) == NULL)
        goto done;
    first = s->first_header.no ? text_of(s, s->first_header) : Py_NewRef(Py_None);
    last = s->last_header.no ? text_of(s, s->last_header) : Py_NewRef(Py_None);
    if (first != NULL && last != NULL)
        out = Py_BuildValue("(nnOOOOOO)", s->lines, s->header_lines, levels, picked, context, first, last, index);
done:
    Py_XDECREF(levels);
    Py_XDECREF(index);
    Py_XDECREF(picked);
    Py_XDECREF(context);
    Py_XDECREF(first);
    Py_XDECREF(last);
    return out;
}

PyDoc_STRVAR(scan_doc,
"scan(data, literals, device, device_sample, index_step) -> (lines, header_lines, levels, picked, context,\n"
"first_header, last_header, index) or None\n\n"
"Scan the bytes of one plog file (any buffer, a memory map included). `picked` lists (line, text) for the\n"
"lines that are not slog headers, ERROR header lines, lines holding one of `literals` (bytes) in their\n"
"message, and up to `device_sample` header lines holding `device`, the first for each distinct line start\n"
"(without the time) up to the device number; `context` the unpicked header line just before a non-header\n"
"line; `index` the byte offset of lines 1, 1 + index_step, ... None when the bytes need the line-by-line\n"
"reader.");

static PyObject *scan(PyObject *module, PyObject *args)
{
    Py_buffer view;
    PyObject *literals, *out = NULL;
    const char *device;
    Py_ssize_t device_len, device_sample, index_step;
    if (!PyArg_ParseTuple(args, "y*O!y#nn:scan", &view, &PyTuple_Type, &literals, &device, &device_len,
                          &device_sample, &index_step))
        return NULL;
    Scan *s = PyMem_RawCalloc(1, sizeof(Scan));
    if (s == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    s->data = view.buf;
    s->size = view.len;
    if (device_sample < 0 || device_sample > DEVICE_KEYS / 2) {
        PyErr_Format(PyExc_ValueError, "device_sample must be within 0..%d", DEVICE_KEYS / 2);
        goto done;
    }
    s->device_sample = device_sample;
    if (index_step < 1) {
        PyErr_SetString(PyExc_ValueError, "index_step must be at least 1");
        goto done;
    }
    s->index_step = index_step;
    s->nlits = PyTuple_GET_SIZE(literals) + 1;
    if (s->nlits > MAX_LITERALS) {
        PyErr_Format(PyExc_ValueError, "at most %d literals", MAX_LITERALS - 1);
        goto done;
    }
    for (Py_ssize_t i = 0; i < s->nlits; i++) {
        PyObject *lit = i < s->nlits - 1 ? PyTuple_GET_ITEM(literals, i) : NULL;
        if (lit != NULL && !PyBytes_Check(lit)) {
            PyErr_SetString(PyExc_TypeError, "literals must be bytes");
            goto done;
        }
        s->lits[i] = lit ? (const unsigned char *)PyBytes_AS_STRING(lit) : (const unsigned char *)device;
        s->lit_len[i] = lit ? PyBytes_GET_SIZE(lit) : device_len;
        if (s->lit_len[i] < 3) {
            PyErr_SetString(PyExc_ValueError, "every literal needs at least three bytes");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    run(s);
    Py_END_ALLOW_THREADS
    if (s->failed)
        PyErr_NoMemory();
    else if (s->declined)
        out = Py_NewRef(Py_None);
    else
        out = result(s);
done:
    PyMem_RawFree(s->picked.v);
    PyMem_RawFree(s->context.v);
    PyMem_RawFree(s->index.v);
    PyMem_RawFree(s);
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, scan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_linescan", "Line scanner for big plog files (see scan.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__linescan(void)
{
    return PyModule_Create(&module);
}
