/* tools/npy.h: round trips for every dtype and rank 0..3, the exact bytes
   numpy writes, and a clear error for every malformed or unsupported file. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
/* npy.h needs only the header part of tc.h: no TC_IMPLEMENTATION, a faster build */
#include "tc.h"
#include "harness.h"
#include <stdlib.h>
/* npy.h allocates through these: the tests see the largest request */
static size_t npy_t_largest;
static void *npy_t_malloc(size_t n) {
    if (n > npy_t_largest) npy_t_largest = n;
    return malloc(n);
}
static void *npy_t_realloc(void *p, size_t n) {
    if (n > npy_t_largest) npy_t_largest = n;
    return realloc(p, n);
}
#define NPY_MALLOC(n) npy_t_malloc(n)
#define NPY_REALLOC(p, n) npy_t_realloc(p, n)
#define NPY_FREE(p) free(p)
#include "tools/npy.h"
#include <unistd.h>

static char tmp_dir[64];

static const char *tmp_path(const char *name) {
    static char buf[128];
    snprintf(buf, sizeof buf, "%s/%s", tmp_dir, name);
    return buf;
}

/* Writes a .npy file by hand: v1.0 preamble, header text, then `data`. */
static void write_raw(const char *name, const char *header, const void *data, size_t n) {
    FILE *f = fopen(tmp_path(name), "wb");
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    size_t hl = strlen(header);
    pre[8] = (unsigned char)(hl & 0xff);
    pre[9] = (unsigned char)(hl >> 8);
    if (!f) return;
    fwrite(pre, 1, 10, f);
    fwrite(header, 1, hl, f);
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

static int load_err(const char *name, const char *want) {
    tc_tensor t;
    char err[256] = "";
    int rc = npy_load(tmp_path(name), &t, err, sizeof err);
    if (rc == 0) {
        npy_free(&t);
        fprintf(stderr, "  %s loaded, expected error containing '%s'\n", name, want);
        return 0;
    }
    if (!strstr(err, want)) fprintf(stderr, "  %s: got '%s', want '%s'\n", name, err, want);
    return strstr(err, want) != NULL;
}

static void test_roundtrip_every_dtype(void) {
    int dt, r;
    unsigned char bytes[64];
    for (r = 0; r < 64; r++) bytes[r] = (unsigned char)(r * 37 + 11);
    for (dt = 1; dt < TC_DTYPE_COUNT; dt++) /* 0: TC_DTYPE_UNSET */
        for (r = 0; r <= 3; r++) {
            tc_tensor t, back;
            char err[256] = "";
            size_t n = 1;
            int d;
            memset(&t, 0, sizeof t);
            t.dtype = (tc_dtype)dt;
            t.rank = r;
            for (d = 0; d < r; d++) {
                t.shape[d] = d + 1;
                n *= (size_t)(d + 1);
            }
            t.data = bytes;
            CHECKF(npy_save(tmp_path("rt.npy"), &t, err, sizeof err) == 0, "%s", err);
            CHECKF(npy_load(tmp_path("rt.npy"), &back, err, sizeof err) == 0, "%s", err);
            CHECK(back.dtype == t.dtype && back.rank == r);
            for (d = 0; d < r; d++) CHECK(back.shape[d] == t.shape[d]);
            CHECK(back.data && memcmp(back.data, bytes, n * npy__dtype_size(t.dtype)) == 0);
            npy_free(&back);
        }
}

/* numpy 1.x writes exactly this for np.save(f, np.zeros((2,3), np.float32)). */
static void test_numpy_layout(void) {
    static const char want[] =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    float z[6] = {0};
    tc_tensor t;
    char err[256] = "", buf[256];
    FILE *f;
    size_t n;
    memset(&t, 0, sizeof t);
    t.dtype = TC_FLOAT32;
    t.rank = 2;
    t.shape[0] = 2;
    t.shape[1] = 3;
    t.data = z;
    CHECKF(npy_save(tmp_path("l.npy"), &t, err, sizeof err) == 0, "%s", err);
    f = fopen(tmp_path("l.npy"), "rb");
    CHECK(f != NULL);
    if (!f) return;
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(n == 128 + 24);
    CHECK(memcmp(buf, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
    CHECK(memcmp(buf + 10, want, strlen(want)) == 0);
    CHECK(buf[127] == '\n' && buf[126] == ' ');
}

static void test_strided_save(void) {
    int32_t m[6] = {1, 2, 3, 4, 5, 6}; /* 2x3; saved transposed as 3x2 */
    int64_t strides[2] = {1, 3};
    tc_tensor t, back;
    char err[256] = "";
    memset(&t, 0, sizeof t);
    t.dtype = TC_INT32;
    t.rank = 2;
    t.shape[0] = 3;
    t.shape[1] = 2;
    t.strides = strides;
    t.data = m;
    CHECKF(npy_save(tmp_path("s.npy"), &t, err, sizeof err) == 0, "%s", err);
    CHECKF(npy_load(tmp_path("s.npy"), &back, err, sizeof err) == 0, "%s", err);
    if (back.data) {
        const int32_t *v = (const int32_t *)back.data;
        CHECK(v[0] == 1 && v[1] == 4 && v[2] == 2 && v[3] == 5 && v[4] == 3 && v[5] == 6);
    }
    npy_free(&back);
}

static void test_accepted_variants(void) {
    int16_t v[3] = {1, -2, 3};
    unsigned char b[2] = {7, 9};
    tc_tensor t;
    char err[256] = "";
    unsigned char v2[64];
    const char *h = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n";
    double one = 1.5;
    FILE *f;
    write_raw("eq.npy", "{'descr': '=i2', 'fortran_order': False, 'shape': (3,), }\n", v, 6);
    CHECKF(npy_load(tmp_path("eq.npy"), &t, err, sizeof err) == 0, "%s", err);
    CHECK(t.dtype == TC_INT16 && t.rank == 1 && t.shape[0] == 3 &&
          ((int16_t *)t.data)[1] == -2);
    npy_free(&t);
    write_raw("be1.npy", "{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }\n", b, 2);
    CHECKF(npy_load(tmp_path("be1.npy"), &t, err, sizeof err) == 0, "%s", err);
    CHECK(t.dtype == TC_UINT8 && ((unsigned char *)t.data)[1] == 9);
    npy_free(&t);
    /* version 2.0 header, 0-d array, keys in another order, double quotes */
    write_raw("dq.npy", "{\"shape\": (), \"fortran_order\": False, \"descr\": \"|b1\"}\n", b, 1);
    CHECKF(npy_load(tmp_path("dq.npy"), &t, err, sizeof err) == 0, "%s", err);
    CHECK(t.dtype == TC_BOOL && t.rank == 0);
    npy_free(&t);
    memcpy(v2, "\x93NUMPY\x02\x00", 8);
    v2[8] = (unsigned char)strlen(h);
    v2[9] = v2[10] = v2[11] = 0;
    f = fopen(tmp_path("v2.npy"), "wb");
    if (f) {
        fwrite(v2, 1, 12, f);
        fwrite(h, 1, strlen(h), f);
        fwrite(&one, 1, 8, f);
        fclose(f);
    }
    CHECKF(npy_load(tmp_path("v2.npy"), &t, err, sizeof err) == 0, "%s", err);
    CHECK(t.dtype == TC_FLOAT64 && t.rank == 0 && *(double *)t.data == 1.5);
    npy_free(&t);
}

static void test_errors(void) {
    float z[4] = {0};
    char err[256] = "";
    tc_tensor t;
    FILE *f;
    write_raw("fo.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", z, 16);
    CHECK(load_err("fo.npy", "Fortran"));
    write_raw("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }\n", z, 16);
    CHECK(load_err("be.npy", "big-endian"));
    write_raw("c8.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", z, 16);
    CHECK(load_err("c8.npy", "unsupported dtype '<c8'"));
    write_raw("st.npy", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", z, 8);
    CHECK(load_err("st.npy", "structured"));
    write_raw("tr.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }\n", z, 15);
    CHECK(load_err("tr.npy", "truncated"));
    write_raw("rk.npy",
              "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }\n", z, 4);
    CHECK(load_err("rk.npy", "rank above TC_MAX_RANK"));
    write_raw("neg.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", z, 4);
    CHECK(load_err("neg.npy", "bad .npy header"));
    write_raw("big.npy",
              "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n",
              z, 4);
    CHECK(load_err("big.npy", "too large"));
    write_raw("nod.npy", "{'fortran_order': False, 'shape': (2,), }\n", z, 8);
    CHECK(load_err("nod.npy", "no 'descr'"));
    write_raw("nsh.npy", "{'descr': '<f4', 'fortran_order': False}\n", z, 8);
    CHECK(load_err("nsh.npy", "no 'shape'"));
    write_raw("ndict.npy", "hello", z, 8);
    CHECK(load_err("ndict.npy", "not a dict"));
    {   /* what numpy refuses or reads otherwise: a key twice (numpy takes the
           last), another key, (2) for (2,), a word that starts like False,
           text after the dict, no closing brace */
        static const char *const bad[][3] = {
            {"dup.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                        "'fortran_order': True}\n", "'fortran_order' given twice"},
            {"key.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n",
             "a key other than"},
            {"one.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}\n", "(N,)"},
            {"fy.npy", "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}\n",
             "neither ',' nor '}'"},
            {"after.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x\n",
             "text after the dict"},
            {"open.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,),\n",
             "no closing '}'"}};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            write_raw(bad[i][0], bad[i][1], z, 8);
            CHECKF(load_err(bad[i][0], bad[i][2]), "%s", bad[i][0]);
        }
    }
    f = fopen(tmp_path("mag.npy"), "wb");
    if (f) {
        fputs("PK\x03\x04 not numpy at all", f);
        fclose(f);
    }
    CHECK(load_err("mag.npy", "bad magic"));
    f = fopen(tmp_path("short.npy"), "wb");
    if (f) {
        fwrite("\x93NUMPY\x01\x00\x40\x00{'descr'", 1, 17, f);
        fclose(f);
    }
    CHECK(load_err("short.npy", "truncated .npy header"));
    f = fopen(tmp_path("nul.npy"), "wb"); /* numpy refuses it: text after the dict, past a NUL */
    if (f) {
        static const char h[] = "\x93NUMPY\x01\x00\x46\x00{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (2,), }\0JUNK       \n";
        fwrite(h, 1, sizeof h - 1, f);
        fwrite(z, 1, 8, f);
        fclose(f);
    }
    CHECK(load_err("nul.npy", "NUL byte"));
    CHECK(load_err("missing.npy", "cannot open"));
    memset(&t, 0, sizeof t);
    t.dtype = TC_FLOAT32;
    t.rank = 1;
    t.shape[0] = 4;
    t.data = z;
    CHECK(npy_save("/nonexistent-dir/x.npy", &t, err, sizeof err) != 0 &&
          strstr(err, "cannot create") != NULL);
}

/* A header that claims more data than the file holds is refused before the
   data is allocated: a 144-byte file claiming 4e9 floats asked malloc for
   16 GB. From a pipe (no size to ask), the block grows with what arrives. */
static void test_claimed_size(void) {
    static const char hdr[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000,), }";
    char h[160], err[256] = "", cmd[256];
    float z[4] = {1, 2, 3, 4};
    tc_tensor t;
    FILE *f;
    size_t n;
    int i;
    /* 10 + 128 header bytes + 6 data bytes = 144 */
    snprintf(h, sizeof h, "%-127s\n", hdr);
    write_raw("claim.npy", h, z, 6);
    f = fopen(tmp_path("claim.npy"), "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        CHECK(ftell(f) == 144);
        fclose(f);
    }
    npy_t_largest = 0;
    CHECK(load_err("claim.npy", "truncated .npy data: expected 16000000000 bytes, the file holds 6"));
    CHECKF(npy_t_largest <= 4096, "asked for %lu bytes", (unsigned long)npy_t_largest);
    /* a header length past the file's end */
    f = fopen(tmp_path("hclaim.npy"), "wb");
    if (f) {
        fwrite("\x93NUMPY\x02\x00\x00\x00\x0f\x00{", 1, 13, f);
        fclose(f);
    }
    npy_t_largest = 0;
    CHECK(load_err("hclaim.npy", "truncated .npy header"));
    CHECKF(npy_t_largest <= 4096, "asked for %lu bytes", (unsigned long)npy_t_largest);
    /* the same file through a pipe: at most the first growth step (1 MiB) */
    snprintf(cmd, sizeof cmd, "cat %s", tmp_path("claim.npy"));
    f = popen(cmd, "r");
    if (f) {
        npy_t_largest = 0;
        CHECK(npy__load_file(f, &t, err, sizeof err) != 0 && strstr(err, "truncated .npy data"));
        CHECKF(npy_t_largest <= ((size_t)1 << 20), "asked for %lu bytes",
               (unsigned long)npy_t_largest);
        pclose(f);
    } else {
        CHECK(f != NULL);
    }
    /* and a real 3 MiB array through a pipe: every byte, in a grown block */
    {
        float *big = (float *)malloc(((size_t)3 << 20));
        memset(&t, 0, sizeof t);
        n = ((size_t)3 << 20) / 4;
        if (big) {
            for (i = 0; i < (int)n; i++) big[i] = (float)i;
            t.dtype = TC_FLOAT32;
            t.rank = 1;
            t.shape[0] = (int64_t)n;
            t.data = big;
            CHECKF(npy_save(tmp_path("big3.npy"), &t, err, sizeof err) == 0, "%s", err);
            snprintf(cmd, sizeof cmd, "cat %s", tmp_path("big3.npy"));
            f = popen(cmd, "r");
            if (f) {
                tc_tensor back;
                CHECKF(npy__load_file(f, &back, err, sizeof err) == 0, "%s", err);
                CHECK(back.rank == 1 && back.shape[0] == (int64_t)n && back.data &&
                      memcmp(back.data, big, n * 4) == 0);
                npy_free(&back);
                pclose(f);
            }
            free(big);
        }
    }
}

int main(void) {
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/t_npy.XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_roundtrip_every_dtype);
    RUN(test_numpy_layout);
    RUN(test_strided_save);
    RUN(test_accepted_variants);
    RUN(test_errors);
    RUN(test_claimed_size);
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_dir);
    }
    return th_report();
}
