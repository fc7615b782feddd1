/* npy.h - read and write numpy .npy files as tc_tensor (tools and tests only)

   Include after tc.h (the header part is enough: the dtype table is the
   TC_DTYPES X-macro). Every function is static, so any number of tools may
   include it.

       int npy_load(const char *path, tc_tensor *out, char *err, size_t errcap);
       int npy_save(const char *path, const tc_tensor *t, char *err, size_t errcap);
       void npy_free(tc_tensor *t);

   Both return 0 on success and -1 on failure, with a one-line message in err
   (without the path: callers print "PATH: error: MSG"). npy_load allocates
   out->data with malloc, or NPY_MALLOC/NPY_REALLOC/NPY_FREE when defined
   before the include (free it with npy_free, or free by default); it never
   leaves memory behind on failure, and never allocates more than the file
   holds: the size a header claims is checked against the bytes left in the
   file (from a pipe, the block grows as the data comes).

   Supported: format versions 1.0, 2.0 and 3.0; C order; every dtype of
   TC_DTYPES; 0-d arrays (rank 0, one element). Byte order '<', '|' and '='
   is the host's order on little-endian hosts; '>' is accepted only for
   1-byte items. On a big-endian host '<' data is byte-swapped. Rejected with
   a clear message: Fortran order, big-endian multi-byte data, other dtypes,
   a bad magic or header, rank above TC_MAX_RANK, negative or overflowing
   shapes, and a file shorter than its header says.
   npy_save writes format 1.0 with the header padded to a multiple of 64
   bytes (numpy's own layout), C order, little-endian. A strided tensor is
   written as its logical C-order contents. */
#ifndef NPY_H_INCLUDED
#define NPY_H_INCLUDED

#ifndef TC_H_INCLUDED
#error "include tc.h before tools/npy.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define NPY__FN static __attribute__((unused))
#else
#define NPY__FN static
#endif

/* What npy_load allocates with (a test counts the requests); npy_free frees with NPY_FREE. */
#ifndef NPY_MALLOC
#define NPY_MALLOC(n) malloc(n)
#define NPY_REALLOC(p, n) realloc(p, n)
#define NPY_FREE(p) free(p)
#endif

#define NPY__MAX_HEADER (1u << 20) /* numpy itself refuses headers above 10 KiB by default */

/* The dtype table, from tc.h's X-macro: descr without its byte-order mark. */
typedef struct npy__dtype_row {
    tc_dtype dtype;
    const char *descr;
    size_t size;
} npy__dtype_row;
#define NPY__DTYPE_ROW(name, str, size, kind, npy) {TC_##name, npy, size},
static const npy__dtype_row npy__dtypes[] = {{TC_DTYPE_UNSET, "", 0}, TC_DTYPES(NPY__DTYPE_ROW)};
#undef NPY__DTYPE_ROW
#define NPY__N_DTYPES ((int)(sizeof npy__dtypes / sizeof npy__dtypes[0]))

NPY__FN size_t npy__dtype_size(tc_dtype t) {
    return (int)t >= 0 && (int)t < NPY__N_DTYPES ? npy__dtypes[t].size : 0;
}

NPY__FN void npy__err(char *err, size_t cap, const char *fmt, ...) {
    va_list ap;
    if (!err || cap == 0) return;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

NPY__FN int npy__host_is_little(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

NPY__FN void npy__swap(unsigned char *p, size_t count, size_t size) {
    size_t i, j;
    for (i = 0; i < count; i++, p += size)
        for (j = 0; j < size / 2; j++) {
            unsigned char t = p[j];
            p[j] = p[size - 1 - j];
            p[size - 1 - j] = t;
        }
}

/* ---- header parsing: a Python dict literal such as
   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } ---- */

NPY__FN const char *npy__skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    return s;
}

NPY__FN int npy__parse_descr(const char *v, tc_dtype *dt, char *order, const char **end, char *err,
                             size_t cap) {
    char buf[16];
    size_t n = 0;
    char quote;
    int i;
    if (*v == '[') {
        npy__err(err, cap, "structured dtypes are not supported");
        return -1;
    }
    if (*v != '\'' && *v != '"') {
        npy__err(err, cap, "bad .npy header: 'descr' is not a string");
        return -1;
    }
    quote = *v++;
    while (*v && *v != quote && n + 1 < sizeof buf) buf[n++] = *v++;
    buf[n] = '\0';
    if (*v != quote || n < 2) {
        npy__err(err, cap, "bad .npy header: 'descr' value");
        return -1;
    }
    *end = v + 1;
    *order = buf[0];
    if (*order != '<' && *order != '>' && *order != '|' && *order != '=') {
        npy__err(err, cap, "unsupported dtype '%s'", buf);
        return -1;
    }
    for (i = 1; i < NPY__N_DTYPES; i++) /* row 0: TC_DTYPE_UNSET */
        if (strcmp(buf + 1, npy__dtypes[i].descr + 1) == 0) {
            *dt = npy__dtypes[i].dtype;
            return 0;
        }
    npy__err(err, cap, "unsupported dtype '%s' (supported: bool, int8..int64, uint8..uint64, "
                       "float16, float32, float64)",
             buf);
    return -1;
}

/* A Python tuple of non-negative integers: (), (3,), (2, 3) (a trailing
   comma allowed); (3) is not a tuple. */
NPY__FN int npy__parse_shape(const char *v, tc_tensor *t, const char **end, char *err, size_t cap) {
    int rank = 0, comma = 0;
    if (*v != '(') {
        npy__err(err, cap, "bad .npy header: 'shape' is not a tuple");
        return -1;
    }
    v = npy__skip_ws(v + 1);
    while (*v != ')') {
        int64_t dim = 0;
        if (*v < '0' || *v > '9') {
            npy__err(err, cap, "bad .npy header: 'shape' entry is not a non-negative integer");
            return -1;
        }
        while (*v >= '0' && *v <= '9') {
            if (dim > (INT64_MAX - 9) / 10) {
                npy__err(err, cap, "bad .npy header: dimension too large");
                return -1;
            }
            dim = dim * 10 + (*v++ - '0');
        }
        if (*v == 'L') v++; /* Python 2 longs */
        if (rank == TC_MAX_RANK) {
            npy__err(err, cap, "rank above TC_MAX_RANK (%d)", TC_MAX_RANK);
            return -1;
        }
        t->shape[rank++] = dim;
        v = npy__skip_ws(v);
        comma = *v == ',';
        if (comma) v = npy__skip_ws(v + 1);
        else if (*v != ')') {
            npy__err(err, cap, "bad .npy header: 'shape' tuple");
            return -1;
        }
    }
    if (rank == 1 && !comma) {
        npy__err(err, cap, "bad .npy header: 'shape' is not a tuple (one dimension is (N,))");
        return -1;
    }
    t->rank = rank;
    *end = v + 1;
    return 0;
}

/* The header dict as numpy reads it: the keys descr, fortran_order and
   shape, each once, in any order, and after the closing brace only the
   padding. (A key found by searching the text would take the first of two
   where numpy takes the last, and accept what numpy refuses.) */
NPY__FN int npy__parse_header(const char *h, tc_tensor *t, char *order, char *err, size_t cap) {
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    const char *v = npy__skip_ws(h);
    int seen[3] = {0, 0, 0}, k;
    memset(t, 0, sizeof *t);
    if (*v != '{') {
        npy__err(err, cap, "bad .npy header: not a dict");
        return -1;
    }
    v = npy__skip_ws(v + 1);
    while (*v != '}') {
        char quote = *v;
        size_t n = 0;
        for (k = 0; k < 3 && (quote == '\'' || quote == '"'); k++) {
            n = strlen(keys[k]);
            if (strncmp(v + 1, keys[k], n) == 0 && v[1 + n] == quote) break;
        }
        if (quote != '\'' && quote != '"') {
            npy__err(err, cap, "bad .npy header: %s", *v ? "a key is not a string" : "no closing '}'");
            return -1;
        }
        if (k == 3) {
            npy__err(err, cap, "bad .npy header: a key other than 'descr', 'fortran_order', 'shape'");
            return -1;
        }
        if (seen[k]++) {
            npy__err(err, cap, "bad .npy header: '%s' given twice", keys[k]);
            return -1;
        }
        v = npy__skip_ws(v + 2 + n);
        if (*v != ':') {
            npy__err(err, cap, "bad .npy header: no ':' after '%s'", keys[k]);
            return -1;
        }
        v = npy__skip_ws(v + 1);
        if (k == 0 && npy__parse_descr(v, &t->dtype, order, &v, err, cap)) return -1;
        if (k == 1 && strncmp(v, "True", 4) == 0) {
            npy__err(err, cap, "Fortran-order arrays are not supported (save with np.ascontiguousarray)");
            return -1;
        }
        if (k == 1 && strncmp(v, "False", 5) != 0) {
            npy__err(err, cap, "bad .npy header: 'fortran_order' is not True or False");
            return -1;
        }
        if (k == 1) v += 5;
        if (k == 2 && npy__parse_shape(v, t, &v, err, cap)) return -1;
        v = npy__skip_ws(v);
        if (*v == ',') v = npy__skip_ws(v + 1);
        else if (*v != '}') {
            npy__err(err, cap, "bad .npy header: after '%s', neither ',' nor '}'", keys[k]);
            return -1;
        }
    }
    if (*npy__skip_ws(v + 1)) {
        npy__err(err, cap, "bad .npy header: text after the dict");
        return -1;
    }
    for (k = 0; k < 3; k++)
        if (!seen[k]) {
            npy__err(err, cap, "bad .npy header: no '%s'", keys[k]);
            return -1;
        }
    return 0;
}

/* Bytes of t's data in C order; -1 on overflow or a negative dimension. */
NPY__FN int64_t npy__nbytes(const tc_tensor *t) {
    int64_t n = (int64_t)npy__dtype_size(t->dtype);
    int d;
    if (n <= 0 || t->rank < 0 || t->rank > TC_MAX_RANK) return -1;
    for (d = 0; d < t->rank; d++) {
        if (t->shape[d] < 0) return -1;
        if (t->shape[d] != 0 && n > INT64_MAX / t->shape[d]) return -1;
        n *= t->shape[d];
    }
    return n;
}

/* ---- load ---- */

NPY__FN int npy__read_preamble(FILE *f, size_t *hlen, char *err, size_t cap) {
    unsigned char pre[12];
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        npy__err(err, cap, "not a .npy file (bad magic)");
        return -1;
    }
    if (pre[6] == 1) {
        *hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            npy__err(err, cap, "truncated .npy header");
            return -1;
        }
        *hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) |
                ((size_t)pre[11] << 24);
    } else {
        npy__err(err, cap, "unsupported .npy format version %d.%d", pre[6], pre[7]);
        return -1;
    }
    if (*hlen == 0 || *hlen > NPY__MAX_HEADER) {
        npy__err(err, cap, "bad .npy header length %lu", (unsigned long)*hlen);
        return -1;
    }
    return 0;
}

/* Bytes from f's position to its end; -1 when f cannot seek (a pipe). The
   position is left where it was. */
NPY__FN int64_t npy__remaining(FILE *f) {
    long here = ftell(f), end;
    if (here < 0 || fseek(f, 0, SEEK_END) != 0) return -1;
    end = ftell(f);
    if (fseek(f, here, SEEK_SET) != 0) return -1;
    return end >= here ? (int64_t)(end - here) : -1;
}

/* Reads nbytes of data into a block it allocates. From a file that cannot
   seek, the block grows as the data comes (a header's claim alone never
   reserves memory). */
NPY__FN void *npy__read_data(FILE *f, int64_t nbytes, int64_t avail, char *err, size_t cap) {
    unsigned char *p;
    size_t have = 0, want = (size_t)nbytes, room;
    if (avail >= 0 && avail < nbytes) {
        npy__err(err, cap, "truncated .npy data: expected %lld bytes, the file holds %lld",
                 (long long)nbytes, (long long)avail);
        return NULL;
    }
    room = avail >= 0 || want < ((size_t)1 << 20) ? want : (size_t)1 << 20;
    p = (unsigned char *)NPY_MALLOC(room > 0 ? room : 1);
    for (;;) {
        if (!p) {
            npy__err(err, cap, "out of memory (%lld bytes)", (long long)nbytes);
            return NULL;
        }
        have += fread(p + have, 1, room - have, f);
        if (have == want) return p;
        if (have < room) { /* end of file (or a read error) before the data's end */
            NPY_FREE(p);
            npy__err(err, cap, "truncated .npy data: expected %lld bytes", (long long)nbytes);
            return NULL;
        }
        {
            unsigned char *q;
            room = room > want / 2 ? want : room * 2;
            q = (unsigned char *)NPY_REALLOC(p, room);
            if (!q) NPY_FREE(p);
            p = q;
        }
    }
}

/* Loads from f's position; seek 0 reads it as a pipe (no size asked). */
NPY__FN int npy__load_stream(FILE *f, int seek, tc_tensor *out, char *err, size_t cap) {
    size_t hlen, size;
    char *h, order = '|';
    int64_t nbytes, avail;
    tc_tensor t;
    if (npy__read_preamble(f, &hlen, err, cap)) return -1;
    avail = seek ? npy__remaining(f) : -1;
    if (avail >= 0 && (uint64_t)avail < (uint64_t)hlen) {
        npy__err(err, cap, "truncated .npy header");
        return -1;
    }
    h = (char *)NPY_MALLOC(hlen + 1);
    if (!h) {
        npy__err(err, cap, "out of memory");
        return -1;
    }
    if (fread(h, 1, hlen, f) != hlen) {
        NPY_FREE(h);
        npy__err(err, cap, "truncated .npy header");
        return -1;
    }
    h[hlen] = '\0';
    if (memchr(h, '\0', hlen)) { /* the parse below stops at a NUL: what follows would go unchecked */
        NPY_FREE(h);
        npy__err(err, cap, "bad .npy header: it holds a NUL byte");
        return -1;
    }
    if (npy__parse_header(h, &t, &order, err, cap)) {
        NPY_FREE(h);
        return -1;
    }
    NPY_FREE(h);
    if (avail >= 0) avail -= (int64_t)hlen;
    size = npy__dtype_size(t.dtype);
    if (order == '>' && size > 1) {
        npy__err(err, cap, "big-endian arrays are not supported (convert with "
                           "a.astype(a.dtype.newbyteorder('<')))");
        return -1;
    }
    nbytes = npy__nbytes(&t);
    if (nbytes < 0 || (uint64_t)nbytes > (uint64_t)SIZE_MAX) {
        npy__err(err, cap, "array too large");
        return -1;
    }
    t.data = npy__read_data(f, nbytes, avail, err, cap);
    if (!t.data) return -1;
    if (!npy__host_is_little() && (order == '<' || order == '|') && size > 1)
        npy__swap((unsigned char *)t.data, (size_t)nbytes / size, size);
    *out = t;
    return 0;
}

NPY__FN int npy__load_file(FILE *f, tc_tensor *out, char *err, size_t cap) {
    return npy__load_stream(f, 1, out, err, cap);
}

NPY__FN int npy_load(const char *path, tc_tensor *out, char *err, size_t errcap) {
    FILE *f;
    int rc;
    if (!path || !out) {
        npy__err(err, errcap, "invalid argument");
        return -1;
    }
    f = fopen(path, "rb");
    if (!f) {
        npy__err(err, errcap, "cannot open: %s", strerror(errno));
        return -1;
    }
    rc = npy__load_file(f, out, err, errcap);
    fclose(f);
    return rc;
}

NPY__FN void npy_free(tc_tensor *t) {
    if (!t) return;
    NPY_FREE(t->data);
    t->data = NULL;
}

/* ---- save ---- */

/* Element offset of C-order element number `flat` in a (possibly strided) t. */
NPY__FN int64_t npy__strided_offset(const tc_tensor *t, int64_t flat) {
    int64_t off = 0;
    int d;
    for (d = t->rank - 1; d >= 0; d--) {
        int64_t i = t->shape[d] ? flat % t->shape[d] : 0;
        flat = t->shape[d] ? flat / t->shape[d] : 0;
        off += i * t->strides[d];
    }
    return off;
}

NPY__FN int npy__write_data(FILE *f, const tc_tensor *t, int64_t nbytes) {
    size_t size = npy__dtype_size(t->dtype);
    int64_t count = nbytes / (int64_t)size, i;
    unsigned char tmp[8];
    int swap = !npy__host_is_little() && size > 1;
    if (!t->strides && !swap) return fwrite(t->data, 1, (size_t)nbytes, f) == (size_t)nbytes ? 0 : -1;
    for (i = 0; i < count; i++) {
        int64_t off = t->strides ? npy__strided_offset(t, i) : i;
        memcpy(tmp, (const unsigned char *)t->data + off * (int64_t)size, size);
        if (swap) npy__swap(tmp, 1, size);
        if (fwrite(tmp, 1, size, f) != size) return -1;
    }
    return 0;
}

NPY__FN int npy__format_header(const tc_tensor *t, char *h, size_t cap) {
    int n, d, total;
    const char *descr = npy__dtypes[t->dtype].descr;
    n = snprintf(h, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (d = 0; d < t->rank; d++) /* numpy's spelling: (), (5,), (2, 3) */
        n += snprintf(h + n, cap - (size_t)n, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    n += snprintf(h + n, cap - (size_t)n, "%s), }", t->rank == 1 ? "," : "");
    /* 10-byte preamble + header + '\n' is a multiple of 64. */
    total = (10 + n + 1 + 63) / 64 * 64;
    while (10 + n + 1 < total) h[n++] = ' ';
    h[n++] = '\n';
    h[n] = '\0';
    return n;
}

/* 0 when npy_save can write t. */
NPY__FN int npy__save_check(const tc_tensor *t, char *err, size_t errcap) {
    if (!t || (int)t->dtype < 0 || (int)t->dtype >= NPY__N_DTYPES ||
        (!t->data && npy__nbytes(t) != 0)) {
        npy__err(err, errcap, "invalid argument");
        return -1;
    }
    if (npy__nbytes(t) < 0) {
        npy__err(err, errcap, "bad tensor shape");
        return -1;
    }
    return 0;
}

/* npy_save to an open file (left open; the caller closes it). */
NPY__FN int npy__save_file(FILE *f, const tc_tensor *t, char *err, size_t errcap) {
    char h[512];
    unsigned char pre[10];
    int hlen;
    int64_t nbytes;
    if (npy__save_check(t, err, errcap)) return -1;
    nbytes = npy__nbytes(t);
    hlen = npy__format_header(t, h, sizeof h);
    memcpy(pre, "\x93NUMPY\x01\x00", 8);
    pre[8] = (unsigned char)(hlen & 0xff);
    pre[9] = (unsigned char)(hlen >> 8);
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(h, 1, (size_t)hlen, f) != (size_t)hlen ||
        (nbytes > 0 && npy__write_data(f, t, nbytes) != 0)) {
        npy__err(err, errcap, "write failed: %s", strerror(errno));
        return -1;
    }
    return 0;
}

NPY__FN int npy_save(const char *path, const tc_tensor *t, char *err, size_t errcap) {
    FILE *f;
    if (!path) {
        npy__err(err, errcap, "invalid argument");
        return -1;
    }
    if (npy__save_check(t, err, errcap)) return -1; /* before the file is made */
    f = fopen(path, "wb");
    if (!f) {
        npy__err(err, errcap, "cannot create: %s", strerror(errno));
        return -1;
    }
    if (npy__save_file(f, t, err, errcap) != 0) {
        fclose(f);
        return -1;
    }
    if (fclose(f) != 0) {
        npy__err(err, errcap, "write failed: %s", strerror(errno));
        return -1;
    }
    return 0;
}

#endif /* NPY_H_INCLUDED */
