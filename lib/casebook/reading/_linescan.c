/* One pass over the bytes of a big plog file: count its lines, test each against the slog header grammar,
 * count the header lines per level, and pick the lines that need a record (scan.py states the contract).
 *
 * The scan runs without the GIL, so the reader's threads scan files on every core. It declines (returns
 * None) whenever its answer could differ from the line-by-line reader's: NUL, CR or ESC bytes, a no-break
 * space, a byte-order mark, bytes that are not strict UTF-8 (what Python's decoder accepts), or more distinct
 * level tokens than it tracks. Its header test accepts a subset of grammar.HEADER (ASCII digits and spaces only);
 * a line it does not accept is picked and parsed by the grammar itself, so the accounting stays exact.
 *
 * A file truncated while it is mapped raises SIGBUS at the first read of a page past its new end, which
 * would end the process without a word. Every read of the buffer (the scan, then the copies of the lines
 * handed back) runs under a guard: a SIGBUS in that thread jumps back out, and the scan returns False.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>
#include <string.h>

#include "_linescan_search.h"
#include "_linescan_text.h"

#define MAX_LEVELS 64
#define BLOCK (1 << 17)                  /* bytes tested for UTF-8 at once, then split while in the cache */
#define RELEASE (8 << 20)                /* bytes of a mapped file scanned past before their pages are let go */

typedef struct { Py_ssize_t no, start, end; } Span;
typedef struct { uint64_t hash; Py_ssize_t start, end; } Shape;   /* an ERROR line recorded, by its shape */
typedef struct { Span *v; Py_ssize_t n, cap; } Spans;
typedef struct { const unsigned char *text; Py_ssize_t len, count; } Level;

typedef struct {
    /* inputs */
    const unsigned char *data;
    Py_ssize_t size;
    Search search;                       /* the keep literals and the device literal */
    Py_ssize_t device_sample, index_step;
    int text;                            /* a machine-written text log (scan_doc): its plain lines need a literal */
    int release;                         /* the buffer is a file's memory map: pages scanned past are let go */
    int extended;                        /* an option was given: the result ends with routine, repeated, dumped */
    int dumps;                           /* a device dump's memory rows are counted, not picked */
    Py_ssize_t most;                     /* picked lines that are no header past which the scan gives up (0: none) */
    Py_ssize_t plain;                    /* picked lines that are no header */
    Py_ssize_t flood;                    /* ERROR header lines picked whatever they say (0: every one) */
    Py_ssize_t errors, repeated;         /* ERROR header lines, and those past `flood` left unpicked as repeats */
    Shape *shapes;                       /* the shapes of the ERROR lines picked: an open-addressed hash set */
    Py_ssize_t nshapes, shape_cap;
    DeviceKey device_keys[DEVICE_KEYS];  /* device lines picked so far (a hash set of key ranges) */
    /* outputs */
    Py_ssize_t lines, header_lines;
    Py_ssize_t routine;                  /* text mode: lines that are no header, hold no literal, and are not picked */
    Py_ssize_t dumped;                   /* with dumps: memory rows of device dumps, left unpicked */
    Level levels[MAX_LEVELS];
    Py_ssize_t nlevels;
    Spans picked, context, index;       /* index: the start of every index_step-th line */
    Span first_header, last_header;
    int declined, failed, shrank, over;
    char *scratch;                       /* a line copied out of the buffer before it is decoded */
    Py_ssize_t scratch_cap;
} Scan;

/* Where a thread reading the buffer goes back to on SIGBUS; NULL while it reads nothing mapped. Volatile: to the
 * compiler, `guard = &back; memcpy(...); guard = NULL;` is a dead store followed by a live one (memcpy reads no
 * global), and without it the store the signal handler needs may never be made. */
static _Thread_local sigjmp_buf *volatile guard;
/* The SIGBUS action before ours: a fault outside a guard is handed to it. */
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)info;
    (void)context;
    if (guard != NULL) {
        sigjmp_buf *back = guard;
        guard = NULL;
        siglongjmp(*back, 1);
    }
    /* not a read of a scanned buffer: what would have happened without this handler (SA_NODEFER delivers the
     * raised signal at once) */
    sigaction(SIGBUS, &previous, NULL);
    raise(sig);
}

/* Install on_sigbus unless it is the SIGBUS action already (faulthandler, say, may have replaced it since);
 * called with the GIL held, so two threads never install it at once. SA_NODEFER leaves SIGBUS unblocked
 * inside the handler, so the jump out (sigsetjmp without the mask) leaves the thread's mask as it was. */
static int watch_sigbus(void)
{
    struct sigaction now, ours;
    if (sigaction(SIGBUS, NULL, &now) < 0)
        return -1;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus)
        return 0;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_sigbus;
    ours.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    return sigaction(SIGBUS, &ours, &previous);
}

/* Copy n bytes out of the buffer; -1 when its file shrank under the copy. */
static int copy_out(void *to, const void *from, size_t n)
{
    sigjmp_buf back;
    if (sigsetjmp(back, 0)) {
        guard = NULL;
        return -1;
    }
    guard = &back;
    memcpy(to, from, n);
    guard = NULL;
    return 0;
}

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

/* Whether an ERROR header line is a repeat to leave unpicked: past the first s->flood ERROR lines, one whose shape
 * an ERROR line picked before had (a new shape is remembered); -1 when out of memory. */
static int repeated_error(Scan *s, const unsigned char *p, Py_ssize_t start, Py_ssize_t end)
{
    s->errors++;
    if (2 * (s->nshapes + 1) > s->shape_cap) {
        Py_ssize_t cap = s->shape_cap ? 2 * s->shape_cap : 1024;
        Shape *grown = PyMem_RawCalloc((size_t)cap, sizeof(Shape));
        if (grown == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < s->shape_cap; i++)
            if (s->shapes[i].hash)
                for (size_t j = s->shapes[i].hash & (size_t)(cap - 1);; j = (j + 1) & (size_t)(cap - 1))
                    if (!grown[j].hash) {
                        grown[j] = s->shapes[i];
                        break;
                    }
        PyMem_RawFree(s->shapes);
        s->shapes = grown;
        s->shape_cap = cap;
    }
    uint64_t h = shape_hash(p, start, end);
    for (size_t j = h & (size_t)(s->shape_cap - 1);; j = (j + 1) & (size_t)(s->shape_cap - 1)) {
        Shape *slot = &s->shapes[j];
        if (!slot->hash) {
            *slot = (Shape){h, start, end};
            s->nshapes++;
            return 0;
        }
        if (slot->hash == h && same_shape(p, slot->start, slot->end, start, end))
            return s->errors > s->flood;
    }
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
    if (search_build(&s->search, p, n) < 0) {
        s->failed = 1;
        return;
    }
    Py_ssize_t checked = 0;   /* [0, checked) is known to be plain UTF-8 */
    Py_ssize_t released = 0;  /* of a memory map: [0, released) is out of this process's resident pages */
    const Py_ssize_t page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    while (start < n) {
        if (s->release && start - released >= RELEASE) {
            /* the file's pages stay in the page cache: the picked lines copied out at the end fault theirs back
             * in, and the rest is not held by this process, however big the file */
            Py_ssize_t upto = start / page * page;
            madvise((void *)(p + released), (size_t)(upto - released), MADV_DONTNEED);
            released = upto;
        }
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
        int picked = !level && !(s->text && routine_text(p + start, p + end));
        /* a dump's memory words, and its registers that hold none of the literals (the few a family reads) */
        Py_ssize_t unused_end;
        int dumped = picked && s->dumps && (memory_row(p + start, p + end)
                                            || (register_row(p + start, p + end)
                                                && !(search_line(&s->search, p, start, end, 1, &unused_end) & 1)));
        if (dumped) {   /* counted, and neither searched nor picked */
            s->dumped++;
            picked = 0;
        }
        if (level) {
            s->header_lines++;
            picked = level == 5 && memcmp(p + start + 1, "ERROR", 5) == 0;
            if (!s->first_header.no)
                s->first_header = (Span){no, start, end};
            s->last_header = (Span){no, start, end};
        }
        int repeat = picked && level && s->flood ? repeated_error(s, p, start, end) : 0;
        if (repeat < 0) {
            s->failed = 1;
            return;
        }
        if (repeat) {   /* counted, and neither searched nor picked */
            s->repeated++;
            picked = 0;
        }
        int want = repeat || dumped ? 0 : (picked ? 0 : 1) | (level && devices < s->device_sample ? 2 : 0);
        if (want) {
            /* the families read the message, so the header is not searched */
            Py_ssize_t device_end = 0;
            int found = search_line(&s->search, p, body - p, end, want, &device_end);
            if (found & 2) {
                /* the line up to its time and from its time to the device number say who (level, module,
                 * process, call site, thread) named which device: only the first line of each is kept */
                while (device_end < end && is_digit(p[device_end]))
                    device_end++;
                DeviceKey key = {0, {start, body - p}, {body - TIME_LEN - (p + start), device_end - (body - p)}};
                if (remember(s->device_keys, p, key)) {
                    devices++;
                    picked = 1;
                }
            }
            picked = picked || (found & 1);
        }
        s->routine += !level && !picked && !dumped;
        if (picked && !level && s->most && ++s->plain > s->most) {
            s->over = 1;
            return;
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

/* The text of bytes of the buffer, copied out first (a shrunk file sets s->shrank and raises). */
static PyObject *decoded(Scan *s, const unsigned char *from, Py_ssize_t len, int ascii)
{
    if (len > s->scratch_cap) {
        char *more = PyMem_RawRealloc(s->scratch, (size_t)len);
        if (more == NULL)
            return PyErr_NoMemory();
        s->scratch = more;
        s->scratch_cap = len;
    }
    if (len && copy_out(s->scratch, from, (size_t)len) < 0) {
        s->shrank = 1;
        PyErr_SetString(PyExc_BufferError, "the buffer's file shrank while it was read");
        return NULL;
    }
    return ascii ? PyUnicode_DecodeASCII(s->scratch, len, "strict") : PyUnicode_DecodeUTF8(s->scratch, len, "strict");
}

/* run() under the guard: a SIGBUS while it reads the buffer ends it with s->shrank set (what it had allocated
 * is still in s, freed by the caller). */
static void guarded_run(Scan *s)
{
    sigjmp_buf back;
    if (sigsetjmp(back, 0)) {
        guard = NULL;
        s->shrank = 1;
        return;
    }
    guard = &back;
    run(s);
    guard = NULL;
}

static PyObject *text_of(Scan *s, Span span)
{
    return decoded(s, s->data + span.start, span.end - span.start, 0);
}

static PyObject *spans_list(Scan *s, const Spans *spans)
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

static PyObject *result(Scan *s)
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
        PyObject *key = decoded(s, s->levels[i].text, s->levels[i].len, 1);
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
    if (first != NULL && last != NULL && s->extended)
        out = Py_BuildValue("(nnOOOOOOnnn)", s->lines, s->header_lines, levels, picked, context, first, last, index,
                            s->routine, s->repeated, s->dumped);
    else if (first != NULL && last != NULL)
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
"scan(data, literals, device, device_sample, index_step, text=0, most=0, flood=0, release=0, dumps=0) -> (lines,\n"
"header_lines, levels, picked, context, first_header, last_header, index[, routine, repeated, dumped]) or None\n\n"
"Scan the bytes of one plog file (any buffer, a memory map included). `picked` lists (line, text) for the\n"
"lines that are not slog headers, ERROR header lines, lines holding one of `literals` (bytes) in their\n"
"message, and up to `device_sample` header lines holding `device`, the first for each distinct line start\n"
"(without the time) up to the device number; `context` the unpicked header line just before a non-header\n"
"line; `index` the byte offset of lines 1, 1 + index_step, ... None when the bytes need the line-by-line\n"
"reader; False when the buffer is a memory map whose file was truncated while it was read (SIGBUS).\n\n"
"With `text` (a machine-written text log: an OS, install or kernel log), a line that is no header is picked only\n"
"when it holds one of `literals` or may not be routine text (empty, blank, indented, not ASCII, or starting like\n"
"a header); `routine` counts the others. With `most`, OverflowError once more lines that are no header than\n"
"that are to be picked (their texts are never made). With `flood`, an ERROR header line past the first `flood`\n"
"of them is left unpicked when an ERROR line picked before has its shape (the line without its numbers);\n"
"`repeated` counts them. With `release` (only for a memory map of a file), the pages scanned past are let go\n"
"as the scan goes on (madvise), so the process does not hold the whole file. With `dumps`, a line that is one\n"
"row of a device dump's memory words (`<exception_print> 0x16500: 0x0 ...`), or one of its registers\n"
"(`<exception_print>NAME[0]=0x...`) that holds none of `literals`, is not picked; `dumped` counts them.\n"
"The last three counts are given whenever an option is.");

static PyObject *scan(PyObject *module, PyObject *args)
{
    Py_buffer view;
    PyObject *literals, *out = NULL;
    const char *device;
    Py_ssize_t device_len, device_sample, index_step;
    int text = 0;
    Py_ssize_t most = 0, flood = 0;
    int release = 0, dumps = 0;
    if (!PyArg_ParseTuple(args, "y*O!y#nn|pnnpp:scan", &view, &PyTuple_Type, &literals, &device, &device_len,
                          &device_sample, &index_step, &text, &most, &flood, &release, &dumps))
        return NULL;
    Scan *s = PyMem_RawCalloc(1, sizeof(Scan));
    if (s == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    s->data = view.buf;
    s->text = text;
    s->dumps = dumps;
    s->extended = PyTuple_GET_SIZE(args) > 5;
    s->most = most > 0 ? most : 0;
    s->flood = flood > 0 ? flood : 0;
    /* only a page-aligned buffer of a file's map: let go, the pages of any other buffer would be lost */
    s->release = release && ((uintptr_t)view.buf % (uintptr_t)sysconf(_SC_PAGESIZE)) == 0;
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
    if (search_literals(&s->search, literals, device, device_len) < 0)
        goto done;
    if (watch_sigbus() < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    guarded_run(s);
    Py_END_ALLOW_THREADS
    if (s->shrank)
        out = Py_NewRef(Py_False);
    else if (s->failed)
        PyErr_NoMemory();
    else if (s->declined)
        out = Py_NewRef(Py_None);
    else if (s->over)
        PyErr_Format(PyExc_OverflowError, "more than %zd lines that are no header to pick", s->most);
    else if ((out = result(s)) == NULL && s->shrank) {
        PyErr_Clear();
        out = Py_NewRef(Py_False);
    }
done:
    PyMem_RawFree(s->search.freq);
    PyMem_RawFree(s->scratch);
    PyMem_RawFree(s->picked.v);
    PyMem_RawFree(s->context.v);
    PyMem_RawFree(s->index.v);
    PyMem_RawFree(s->shapes);
    PyMem_RawFree(s);
    PyBuffer_Release(&view);
    return out;
}

/* A search of `literals` (a tuple of bytes objects of at least three bytes each) whose device slot holds the first
 * literal again, which the searches below never report; NULL with an exception set when it cannot be had. */
static Search *literal_search(PyObject *literals)
{
    if (PyTuple_GET_SIZE(literals) < 1) {
        PyErr_SetString(PyExc_ValueError, "at least one literal");
        return NULL;
    }
    PyObject *first = PyTuple_GET_ITEM(literals, 0);
    if (!PyBytes_Check(first)) {
        PyErr_SetString(PyExc_TypeError, "literals must be bytes");
        return NULL;
    }
    Search *search = PyMem_RawCalloc(1, sizeof(Search));
    if (search == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (search_literals(search, literals, PyBytes_AS_STRING(first), PyBytes_GET_SIZE(first)) < 0) {
        PyMem_RawFree(search);
        return NULL;
    }
    return search;
}

/* A list of the `n` numbers of `v`; NULL with an exception set when it cannot be made. */
static PyObject *int_list(const Py_ssize_t *v, Py_ssize_t n)
{
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *no = PyLong_FromSsize_t(v[i]);
        if (no == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, no);
    }
    return out;
}

/* Room in `*v` (capacity `*cap`) for `more` numbers after its first `n`: 0, or -1 when memory runs out. */
static int reserve(Py_ssize_t **v, Py_ssize_t *cap, Py_ssize_t n, Py_ssize_t more)
{
    if (n + more <= *cap)
        return 0;
    Py_ssize_t want = *cap ? *cap * 2 : 1024;
    while (want < n + more)
        want *= 2;
    Py_ssize_t *grown = PyMem_RawRealloc(*v, (size_t)want * sizeof *grown);
    if (grown == NULL)
        return -1;
    *v = grown;
    *cap = want;
    return 0;
}

static int ascending(const void *x, const void *y)
{
    Py_ssize_t a = *(const Py_ssize_t *)x, b = *(const Py_ssize_t *)y;
    return (a > b) - (a < b);
}

/* What a search of literals over many texts joined by newlines reports: the lines holding one of the literals, a
 * (literal, line) pair for each literal each line holds, or the literals the whole holds. */
enum { WALK_LINES, WALK_PAIRS, WALK_HELD };

PyDoc_STRVAR(find_doc,
"find(data, literals, what) -> list of int\n\n"
"`literals` (a tuple of 1 to 511 bytes objects of at least three bytes each) in `data` (bytes split at newlines):\n"
"the search the scan runs on each line, over many texts joined by newlines at once. `what` says what it reports:\n"
"0, the 0-based numbers, ascending, of the lines that hold one of the literals; 1, for each line, ascending, and\n"
"each literal it holds, the literal's position and the line's number one after the other in a flat list (literal,\n"
"line, literal, line, ...); 2, the positions, ascending, of the literals that occur somewhere (none may hold a\n"
"newline).");

static PyObject *find(PyObject *module, PyObject *args)
{
    Py_buffer view;
    PyObject *literals, *out = NULL;
    int mode;
    if (!PyArg_ParseTuple(args, "y*O!i:find", &view, &PyTuple_Type, &literals, &mode))
        return NULL;
    if (mode < WALK_LINES || mode > WALK_HELD) {
        PyErr_SetString(PyExc_ValueError, "what must be 0, 1 or 2");
        PyBuffer_Release(&view);
        return NULL;
    }
    Search *search = literal_search(literals);
    Py_ssize_t n = PyTuple_GET_SIZE(literals), nfound = 0, cap = 0, unused;
    size_t slots = (size_t)(n > 0 ? n : 1);
    Py_ssize_t *last = PyMem_RawMalloc(slots * sizeof *last), *held = PyMem_RawMalloc(slots * sizeof *held);
    Py_ssize_t *found = NULL;
    int failed = 0;
    if (search == NULL)
        goto done;
    if (last == NULL || held == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t l = 0; l < n; l++)
        last[l] = -1;
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    Py_BEGIN_ALLOW_THREADS
    failed = search_build(search, data, size) < 0;
    /* the literals the whole holds: one "line", the whole (no literal holds a newline, so none is found across) */
    for (Py_ssize_t line = 0, start = 0; !failed && start <= size; line++) {
        const unsigned char *nl = mode == WALK_HELD ? NULL : memchr(data + start, '\n', (size_t)(size - start));
        Py_ssize_t end = nl ? nl - data : size;
        Py_ssize_t k = mode == WALK_LINES ? (search_line(search, data, start, end, 1, &unused) & 1)
                                          : search_each(search, data, start, end, line, last, held);
        if (reserve(&found, &cap, nfound, mode == WALK_PAIRS ? 2 * k : k) < 0) {
            failed = 1;
            break;
        }
        for (Py_ssize_t j = 0; j < k; j++) {
            if (mode != WALK_LINES)
                found[nfound++] = held[j];
            if (mode != WALK_HELD)
                found[nfound++] = line;
        }
        start = end + 1;
    }
    if (!failed && mode == WALK_HELD && nfound > 1)   /* with none found, `found` was never allocated */
        qsort(found, (size_t)nfound, sizeof *found, ascending);
    Py_END_ALLOW_THREADS
    if (failed)
        PyErr_NoMemory();
    else
        out = int_list(found, nfound);
done:
    if (search != NULL)
        PyMem_RawFree(search->freq);
    PyMem_RawFree(search);
    PyMem_RawFree(last);
    PyMem_RawFree(held);
    PyMem_RawFree(found);
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, scan_doc},
    {"find", find, METH_VARARGS, find_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_linescan", "Line scanner for big plog files (see scan.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__linescan(void)
{
    return PyModule_Create(&module);
}
