/* tests/kernel_cases.h: the kernel families of the execution issue, shared
   by t_kernels.c (VM vs the naive reference) and t_thread_kernels.c
   (bitwise identity across thread counts), plus the helpers both need:
   a fixed-seed PRNG, random inputs shaped from the IR, comparisons.
   Include after tc.h and ref_eval.h. */
#ifndef TC_KERNEL_CASES_H
#define TC_KERNEL_CASES_H

/* How results are compared with the reference. */
enum {
    KC_EXACT,  /* bitwise (integers, element-wise float work, min/max reductions) */
    KC_REDUCE, /* float sums and products: reassociation, relative tolerance */
    KC_LOOSE   /* builtins: the VM's kernels may differ from libm by a few ulp */
};

typedef struct kc_case {
    const char *family;
    const char *src;    /* the entry is the last def */
    const char *sizes;  /* size variables: "M=5 N=7" */
    const char *ranges; /* value ranges per input: "X=-4:4 Idx=0:9" (integers inclusive,
                           "A=*" random bits; floats "~", "^" with '!' or '?':
                           kc_fill_wide; "w=-2:2z": a few -0, kc_sprinkle_zeros);
                           defaults by dtype */
    int tol;
    int accumulate; /* 1: outputs are caller buffers prefilled with random values */
} kc_case;

/* ---- sources (shared by the tables of both tests) ---- */
#define KC_FOLD_ROW_VALUES                                                                            \
    "def frv(float(M,N) X, float(M) ss, double(M,N) D, double(M) dv, int32(M) k, float s) -> (Y, Z, W, V, R) {\n" \
    "    Y(i,j) = X(i,j) * rsqrt(ss(i) / N + 1e-6) * s\n"                                          \
    "    Z(i,j) = D(i,j) * (dv(i) * 2.0 - 1.0) + exp(dv(i))\n"                                     \
    "    W(i,j) = ss(i) > 0.5 ? X(i,j) + float(k(i) * 3) : 1.5 - ss(i)\n"                          \
    "    V(i,j) = fmax(s - ss(i), X(i,j)) + s / (ss(i) + 2.0)\n"                                   \
    "    R(i) +=! X(i,j) * (ss(i) * 2.0 - s)\n}\n"
#define KC_MM "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }"
#define KC_MV "def mv(float(M,N) A, float(N) x) -> (y) { y(i) +=! A(i,j) * x(j) }"
#define KC_BMM                                                                                     \
    "def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) { C(b,i,j) +=! A(b,i,k) * B(b,k,j) }"
#define KC_CONV                                                                                    \
    "def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"                               \
    "    Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}\n"
#define KC_SCONV                                                                                   \
    "def sconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"                                \
    "    Out(n,o,h,w) +=! I(n,c,2*h+kh,2*w+kw) * W1(o,c,kh,kw)\n}\n"
#define KC_GCONV                                                                                   \
    "def gconv(float(N,G,C,H,W) I, float(G,O,C,KH,KW) W1) -> (Out) {\n"                            \
    "    Out(n,g,o,h,w) +=! I(n,g,c,h+kh,w+kw) * W1(g,o,c,kh,kw)\n}\n"
#define KC_MAXPOOL                                                                                 \
    "def maxpool2x2(float(N,C,H,W) I) -> (Out) {\n"                                                \
    "    Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in "    \
    "0:W/2\n}\n"
/* 2x2 / 3x3 window reductions: op, dtype, window sizes and stride of the read */
#define KC_POOL(op, dt, kh, kw, st)                                                                \
    "def pool(" dt "(N,C,H,W) I) -> (Out) {\n"                                                     \
    "    Out(n,c,h,w) " op " I(n,c," st "*h+kh," st "*w+kw) where kh in 0:" kh ", kw in 0:" kw    \
    ", h in 0:(H+" st "-" kh ")/" st ", w in 0:(W+" st "-" kw ")/" st "\n}\n"
#define KC_SOFTMAX                                                                                 \
    "def softmax(float(M,N) X) -> (mx, e, s, Y) {\n"                                               \
    "    mx(i) max=! X(i,j)\n"                                                                     \
    "    e(i,j) = exp(X(i,j) - mx(i))\n"                                                           \
    "    s(i) +=! e(i,j)\n"                                                                        \
    "    Y(i,j) = e(i,j) / s(i)\n}\n"
#define KC_LAYERNORM                                                                               \
    "def layernorm(float(M,N) X, float(N) g, float(N) b) -> (mean, d, var, Y) {\n"                 \
    "    mean(i) +=! X(i,j) / N\n"                                                                 \
    "    d(i,j) = X(i,j) - mean(i)\n"                                                              \
    "    var(i) +=! d(i,j) * d(i,j) / N\n"                                                         \
    "    Y(i,j) = d(i,j) / sqrt(var(i) + 1e-5) * g(j) + b(j)\n}\n"
#define KC_STENCIL3                                                                                \
    "def stencil3(float(N) x) -> (y) { y(i) = (x(i) + x(i+1) + x(i+2)) / 3.0 where i in 0:N-2 }"
#define KC_SUM "def sum_all(float(N) x) -> (s) { s +=! x(i) }"
#define KC_ROWSUM "def rowsum(float(M,N) A) -> (r) { r(i) +=! A(i,j) }"
#define KC_FOLDRED                                                                                 \
    "def foldred(float(M,N,K) X, float(K) w, float(N) s) -> (a, b, c, d, e) {\n"                  \
    "    a(i,j) +=! fabs(X(i,j,k)) * w(k)\n"                                                       \
    "    b(i,j) max=! fabs(X(i,j,k)) + s(j)\n"                                                     \
    "    c(i,j) min=! X(i,j,k) > 0.0 ? X(i,j,k) : X(i,j,k) * w(k)\n"                               \
    "    d(i,j) *=! sqrt(fabs(X(i,j,k))) + 0.5\n"                                                  \
    "    e(i,j) +=! exp(X(i,j,k) - 1.0) * s(j)\n}\n"
#define KC_FOLDRED_INT                                                                             \
    "def foldredi(int32(M,N,K) X) -> (a, b) {\n"                                                   \
    "    a(i,j) +=! X(i,j,k) * X(i,j,k) - X(i,j,k) / 3\n"                                          \
    "    b(i,j) max=! X(i,j,k) > 2 ? X(i,j,k) % 4 : -X(i,j,k)\n}\n"
#define KC_GATHER32 "def emb(float(V,D) W, int32(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) }"
#define KC_GATHER64 "def emb64(float(V,D) W, int64(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) }"
#define KC_MLP                                                                                     \
    "def mlp(float(B,I) X, float(J,I) W1, float(J) B1, float(K,J) W2, float(K) B2) -> (Y) {\n"     \
    "    H(b,j) +=! X(b,i) * W1(j,i)\n"                                                            \
    "    R(b,j) = max(H(b,j) + B1(j), 0)\n"                                                      \
    "    Z(b,k) +=! R(b,j) * W2(k,j)\n"                                                            \
    "    Y(b,k) = Z(b,k) + B2(k)\n}\n"
#define KC_EW_TANH                                                                                 \
    "def ew_tanh(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = tanh(a(i) * x(i) + b(i)) }"
#define KC_EW_FMA                                                                                  \
    "def ew_fma(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = a(i) * x(i) + b(i) }"
#define KC_REDUCTIONS                                                                              \
    "def red(float(M,N) X) -> (s, p, mn, mx) {\n"                                                  \
    "    s(i) +=! X(i,j)\n    p(i) *=! X(i,j)\n    mn(i) min=! X(i,j)\n    mx(i) max=! "           \
    "X(i,j)\n}\n"
#define KC_REDUCTIONS_ACC                                                                          \
    "def reda(float(M,N) X) -> (s, p, mn, mx) {\n"                                                 \
    "    s(i) += X(i,j)\n    p(i) *= X(i,j)\n    mn(i) min= X(i,j)\n    mx(i) max= X(i,j)\n}\n"
/* Integer element-wise work: wrapping, floor division, x/0 = 0, min/max,
   a select and promotion with an int32 literal. */
#define KC_INT_EW(T)                                                                               \
    "def ew(" T "(N) a, " T "(N) b) -> (c, d, e, f, g, h) {\n"                                     \
    "    c(i) = a(i) * b(i) + a(i) - b(i)\n"                                                       \
    "    d(i) = a(i) / b(i)\n"                                                                     \
    "    e(i) = a(i) % b(i)\n"                                                                     \
    "    f(i) = min(a(i), b(i)) - max(a(i), -b(i))\n"                                              \
    "    g(i) = a(i) < b(i) ? a(i) : -b(i)\n"                                                      \
    "    h(i) = a(i) * 3 + 1\n}\n"
#define KC_INT_RED(T)                                                                              \
    "def ired(" T "(M,N) X) -> (s, p, mn, mx) {\n"                                                 \
    "    s(i) +=! X(i,j)\n    p(i) *=! X(i,j)\n    mn(i) min=! X(i,j)\n    mx(i) max=! "           \
    "X(i,j)\n}\n"
#define KC_INT_RED_ACC(T)                                                                          \
    "def ireda(" T "(M,N) X) -> (s, p, mn, mx) {\n"                                                \
    "    s(i) += X(i,j)\n    p(i) *= X(i,j)\n    mn(i) min= X(i,j)\n    mx(i) max= X(i,j)\n}\n"

/* Division by a lane-uniform divisor (one value per row, a constant): no
   division per lane where there is a fast fma (tc__k_div_uni_*), bitwise
   the IEEE quotient all the same, fallback blocks included. */
#define KC_DIVU(T) "def divu(" T "(M,N) X, " T "(M) s) -> (Y) { Y(i,j) = X(i,j) / s(i) }"
#define KC_DIVU_SUB(T)                                                                             \
    "def divs(" T "(M,N) X, " T "(M) m, " T "(M) s) -> (Y) { Y(i,j) = (X(i,j) - m(i)) / s(i) }"
#define KC_DIVU_AFFINE(T)                                                                          \
    "def diva(" T "(M,N) X, " T "(M) s, " T "(N) g, " T "(N) b) -> (Y) {\n"                        \
    "    Y(i,j) = X(i,j) / s(i) * g(j) + b(j)\n}\n"
#define KC_DIVU_CONST(T)                                                                           \
    "def divc(" T "(M,N) X) -> (a, b, c, d, e, f) {\n"                                             \
    "    a(i,j) = X(i,j) / 3.0\n    b(i,j) = X(i,j) / -0.1\n    c(i,j) = X(i,j) / 1e-40\n"         \
    "    d(i,j) = X(i,j) / 1e30\n    e(i,j) = X(i,j) / 7.0e11\n    f(i,j) = X(i,j) / -1.2e-12\n}\n"
#define KC_ROWS_FORMS                                                                              \
    "def rf(float(M,N) X, float(N) g, float(M) m) -> (a, s, t, y, z) {\n"                            \
    "    a(i) +=! X(i,j) / 3.0 where j in 1:N\n"                                                    \
    "    s(i) max=! X(i,j) * g(j)\n"                                                                \
    "    e(i,j) = exp(X(i,j) - s(i))\n"                                                             \
    "    t(i) +=! e(i,j)\n"                                                                         \
    "    y(i,j) = e(i,j) / sqrt(t(i) + 2.0) * g(j) - 0.5 where j in 3:N\n"                           \
    "    z(i,j) = m(i) * X(i,j) + a(i)\n}\n"
#define KC_ROWS_OFFSET                                                                             \
    "def ro(float(M,N) X, float(M) m, float(N) g) -> (y, z) {\n"                                   \
    "    y(i,j) = X(i,j) * m(i) where i in 3:M, j in 2:N\n"                                         \
    "    z(i,j) = y(i,j) / m(i) * g(j) + X(i,j) where i in 3:M, j in 2:N\n}\n"
#define KC_ROWS_DIVU                                                                               \
    "def rdv(float(M,N) X, float(M) s, float(N) g) -> (y, z) {\n"                                 \
    "    y(i,j) = X(i,j) / s(i) * g(j) + 1.5\n    z(i,j) = X(i,j) / s(i) - g(j)\n}\n"
/* the row lengths around the 512-lane block: one case each */
#define KC_DIV_ROWS(fam, src, M, rg)                                                               \
    {fam, src, "M=" M " N=1", rg, KC_EXACT, 0}, {fam, src, "M=" M " N=15", rg, KC_EXACT, 0},     \
        {fam, src, "M=" M " N=16", rg, KC_EXACT, 0}, {fam, src, "M=" M " N=17", rg, KC_EXACT, 0}, \
        {fam, src, "M=" M " N=513", rg, KC_EXACT, 0},                                              \
        {fam, src, "M=" M " N=1024", rg, KC_EXACT, 0},                                             \
        {fam, src, "M=" M " N=1500", rg, KC_EXACT, 0}

/* Reductions along the contiguous last loop, one output per row (the
   element-wise fast path keeps 64 partials: element j in partial j % 64,
   then a fixed fold). Sums and products within KC_REDUCE, min/max and
   integers exact. */
#define KC_ROWRED_SUM(T)                                                                           \
    "def rsum(" T "(M,N) A, " T "(M) m, " T "(M) v) -> (r0, r1, r2, r3, r4, r5, r6) {\n"           \
    "    r0(i) +=! A(i,j)\n    r1(i) +=! A(i,j) * 2.0\n    r2(i) +=! A(i,j) / N\n"                 \
    "    r3(i) +=! A(i,j) * A(i,j) / N\n    r4(i) +=! exp(A(i,j) - m(i))\n"                        \
    "    r5(i) +=! (A(i,j) - m(i)) * (A(i,j) - m(i))\n    r6(i) +=! A(i,j) * sqrt(v(i) + 1.0)\n}\n"
#define KC_ROWRED_PROD(T)                                                                          \
    "def rprod(" T "(M,N) A, " T "(M) v) -> (p0, p1, p2) {\n"                                      \
    "    p0(i) *=! A(i,j)\n    p1(i) *=! A(i,j) * sqrt(v(i) + 1.0)\n"                              \
    "    p2(i) *=! A(i,j) / 0.99\n}\n"
#define KC_ROWRED_MINMAX(T)                                                                        \
    "def rmm(" T "(M,N) A, " T "(M) m) -> (a, b, c, d, e) {\n"                                     \
    "    a(i) max=! A(i,j)\n    b(i) min=! A(i,j)\n"                                               \
    "    c(i) max=! (A(i,j) - m(i)) * (A(i,j) - m(i))\n    d(i) min=! A(i,j) * 2.0\n"              \
    "    e(i) max=! A(i,j) / m(i)\n}\n"
#define KC_ROWRED_INT                                                                              \
    "def rowi(int32(M,N) A, int32(M) m) -> (s, p, mn, mx, s2, s3, s4, s5) {\n"                     \
    "    s(i) +=! A(i,j)\n    p(i) *=! A(i,j)\n    mn(i) min=! A(i,j)\n    mx(i) max=! A(i,j)\n"   \
    "    s2(i) +=! A(i,j) * 2\n    s3(i) +=! A(i,j) / N\n"                                          \
    "    s4(i) +=! (A(i,j) - m(i)) * (A(i,j) - m(i))\n    s5(i) max=! A(i,j) * A(i,j) / N\n}\n"
#define KC_ROWRED_3D                                                                               \
    "def r3(float(B,M,N) A, float(B,M) m) -> (s, e, q) {\n"                                        \
    "    s(n,i) +=! A(n,i,j)\n    e(n,i) +=! exp(A(n,i,j) - m(n,i))\n"                             \
    "    q(n,i) +=! A(n,i,j) * A(n,i,j) / N\n}\n"
#define KC_ROWRED_3D_MAX                                                                           \
    "def r3m(float(B,M,N) A, float(B,M) m) -> (a, b) {\n"                                          \
    "    a(n,i) max=! A(n,i,j)\n    b(n,i) min=! A(n,i,j) - m(n,i)\n}\n"
#define KC_ROWRED_3D_INT                                                                           \
    "def r3i(int32(B,M,N) A) -> (s, p, mx) {\n"                                                    \
    "    s(n,i) +=! A(n,i,j)\n    p(n,i) *=! A(n,i,j)\n    mx(n,i) max=! A(n,i,j)\n}\n"
#define KC_ROWRED_2LOOPS                                                                           \
    "def r2l(float(M,N,K) A) -> (s, mx) { s(i) +=! A(i,j,k)\n mx(i) max=! A(i,j,k) }"
#define KC_ROWRED_2LOOPS_INT "def r2li(int32(M,N,K) A) -> (s, mn) { s(i) +=! A(i,j,k)\n mn(i) min=! A(i,j,k) }"
/* the row lengths around the 64 partials and the 512-lane block */
#define KC_RED_ROWS(fam, src, M, rg, tol)                                                          \
    {fam, src, "M=" M " N=1", rg, tol, 0}, {fam, src, "M=" M " N=7", rg, tol, 0},                  \
        {fam, src, "M=" M " N=63", rg, tol, 0}, {fam, src, "M=" M " N=64", rg, tol, 0},            \
        {fam, src, "M=" M " N=65", rg, tol, 0}, {fam, src, "M=" M " N=511", rg, tol, 0},           \
        {fam, src, "M=" M " N=512", rg, tol, 0}, {fam, src, "M=" M " N=513", rg, tol, 0},          \
        {fam, src, "M=" M " N=1024", rg, tol, 0}, {fam, src, "M=" M " N=1100", rg, tol, 0}

static const kc_case kc_cases[] = {
    /* contractions */
    {"matmul", KC_MM, "M=13 K=17 N=19", 0, KC_REDUCE, 0},
    {"matmul", KC_MM, "M=5 K=300 N=270", 0, KC_REDUCE, 0},
    {"matmul", KC_MM, "M=1 K=1 N=1", 0, KC_REDUCE, 0},
    {"matmul-AtB", "def mtm(float(K,M) A, float(K,N) B) -> (C) { C(i,j) +=! A(k,i) * B(k,j) }",
     "M=11 K=23 N=9", 0, KC_REDUCE, 0},
    {"matmul-ABt", "def mmt(float(M,K) A, float(N,K) B) -> (C) { C(i,j) +=! A(i,k) * B(j,k) }",
     "M=7 K=29 N=12", 0, KC_REDUCE, 0},
    {"matmul-batched", KC_BMM, "NB=3 M=7 K=9 N=5", 0, KC_REDUCE, 0},
    {"matmul-f64", "def mmd(double(M,K) A, double(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
     "M=6 K=33 N=10", 0, KC_REDUCE, 0},
    {"matmul-int32", "def mmi(int32(M,K) A, int32(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
     "M=6 K=13 N=10", "A=* B=*", KC_EXACT, 0},
    {"matvec", KC_MV, "M=7 N=600", 0, KC_REDUCE, 0},
    {"tensordot",
     "def td(float(I,K,L) A, float(K,L,J) B) -> (C) { C(i,j) +=! A(i,k,l) * B(k,l,j) }",
     "I=5 K=4 L=6 J=7", 0, KC_REDUCE, 0},
    {"kronecker", "def kron(float(M,N) A, float(P,Q) B) -> (K) { K(i,j,k,l) = A(i,k) * B(j,l) }",
     "M=3 N=4 P=5 Q=2", 0, KC_EXACT, 0},
    {"dot", "def dot(float(N) x, float(N) y) -> (s) { s +=! x(i) * y(i) }", "N=1000", 0, KC_REDUCE,
     0},
    /* convolutions */
    {"conv2d", KC_CONV, "N=2 C=3 H=9 W=8 O=4 KH=3 KW=2", 0, KC_REDUCE, 0},
    {"conv2d-strided", KC_SCONV, "N=2 C=3 H=11 W=10 O=2 KH=3 KW=3", 0, KC_REDUCE, 0},
    {"conv2d-strided-where",
     "def sconvw(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
     "    Out(n,o,h,w) +=! I(n,c,2*h+kh,2*w+kw) * W1(o,c,kh,kw)\n"
     "        where h in 0:(H-KH)/2+1, w in 0:(W-KW)/2+1\n}\n",
     "N=2 C=2 H=10 W=9 O=3 KH=3 KW=2", 0, KC_REDUCE, 0},
    {"conv2d-grouped", KC_GCONV, "N=2 G=3 C=2 H=7 W=6 O=2 KH=3 KW=2", 0, KC_REDUCE, 0},
    {"conv2d-padded",
     "def pconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
     "    Out(n,o,h,w) +=! (h+kh >= 1 && h+kh < H+1 && w+kw >= 1 && w+kw < W+1)\n"
     "        ? I(n,c,h+kh-1,w+kw-1) * W1(o,c,kh,kw) : 0.0\n"
     "        where n in 0:N, o in 0:O, c in 0:C, kh in 0:KH, kw in 0:KW,\n"
     "              h in 0:H+3-KH, w in 0:W+3-KW\n}\n",
     "N=2 C=2 H=6 W=5 O=3 KH=3 KW=3", 0, KC_REDUCE, 0},
    {"conv-grad-weight",
     "def cgw(float(N,O,OH,OW) dO, float(N,C,H,W) I) -> (dW) {\n"
     "    dW(o,c,kh,kw) +=! dO(n,o,h,w) * I(n,c,h+kh,w+kw)\n}\n",
     "N=2 O=3 OH=5 OW=4 C=2 H=7 W=6", 0, KC_REDUCE, 0},
    {"conv-grad-input-guard",
     "def cgi(float(N,O,OH,OW) dO, float(O,C,KH,KW) W1) -> (dI) {\n"
     "    dI(n,c,y,x) +=! (y >= kh && y - kh < OH && x >= kw && x - kw < OW)\n"
     "        ? dO(n,o,y-kh,x-kw) * W1(o,c,kh,kw) : 0.0\n"
     "        where n in 0:N, c in 0:C, o in 0:O, kh in 0:KH, kw in 0:KW,\n"
     "              y in 0:OH+KH-1, x in 0:OW+KW-1\n}\n",
     "N=2 O=3 OH=4 OW=5 C=2 KH=3 KW=2", 0, KC_REDUCE, 0},
    {"conv-grad-input-flip",
     "def cgi2(float(N,O,OH,OW) dO, float(O,C,KH,KW) W1) -> (dI) {\n"
     "    P(n,o,y,x) = (y >= KH-1 && y < OH+KH-1 && x >= KW-1 && x < OW+KW-1)\n"
     "        ? dO(n,o,y-KH+1,x-KW+1) : 0.0\n"
     "        where n in 0:N, o in 0:O, y in 0:OH+2*KH-2, x in 0:OW+2*KW-2\n"
     "    dI(n,c,y,x) +=! P(n,o,y+kh,x+kw) * W1(o,c,KH-1-kh,KW-1-kw)\n}\n",
     "N=2 O=3 OH=4 OW=5 C=2 KH=3 KW=2", 0, KC_REDUCE, 0},
    /* pooling */
    {"maxpool", KC_MAXPOOL, "N=2 C=3 H=8 W=7", 0, KC_EXACT, 0},
    {"maxpool-rows", KC_MAXPOOL, "N=2 C=5 H=112 W=112", 0, KC_EXACT, 0},
    {"maxpool-odd", KC_MAXPOOL, "N=3 C=2 H=9 W=13", 0, KC_EXACT, 0},
    {"maxpool-tiny", KC_MAXPOOL, "N=1 C=1 H=2 W=3", 0, KC_EXACT, 0},
    {"maxpool-empty", KC_MAXPOOL, "N=2 C=2 H=1 W=6", 0, KC_EXACT, 0},
    {"maxpool-wide", KC_MAXPOOL, "N=1 C=2 H=5 W=1100", 0, KC_EXACT, 0}, /* rows of 2 blocks */
    {"maxpool-16", KC_MAXPOOL, "N=2 C=2 H=6 W=32", 0, KC_EXACT, 0},  /* rows of 16 lanes */
    {"maxpool-17", KC_MAXPOOL, "N=2 C=2 H=6 W=35", 0, KC_EXACT, 0},  /* 16 and an overlap */
    /* rows of 35 that run on across cache lines (streamed: t_stream) */
    {"maxpool-35", KC_MAXPOOL, "N=2 C=3 H=10 W=70", 0, KC_EXACT, 0},
    {"minpool-35", KC_POOL("min=!", "float", "2", "2", "2"), "N=3 C=2 H=11 W=71", 0, KC_EXACT,
     0},
    {"maxpool-acc", KC_POOL("max=", "float", "2", "2", "2"), "N=2 C=3 H=10 W=14", "I=-2:2",
     KC_EXACT, 1},
    {"minpool-acc-zero", KC_POOL("min=", "float", "2", "2", "2"), "N=2 C=3 H=10 W=14", 0,
     KC_EXACT, 0},
    {"maxpool-3x3-s2", KC_POOL("max=!", "float", "3", "3", "2"), "N=2 C=3 H=11 W=40", 0,
     KC_EXACT, 0},
    {"maxpool-3x3-s1", KC_POOL("max=!", "float", "3", "3", "1"), "N=2 C=2 H=9 W=37", 0,
     KC_EXACT, 0},
    {"maxpool-3x2-s2", KC_POOL("max=!", "float", "3", "2", "2"), "N=2 C=2 H=11 W=41", 0,
     KC_EXACT, 0},
    {"maxpool-1x2", KC_POOL("max=!", "float", "1", "2", "2"), "N=2 C=3 H=5 W=50", 0, KC_EXACT,
     0},
    {"maxpool-2x1", KC_POOL("max=!", "float", "2", "1", "2"), "N=2 C=3 H=6 W=50", 0, KC_EXACT,
     0},
    {"maxpool-int8", KC_POOL("max=!", "int8", "2", "2", "2"), "N=2 C=3 H=8 W=70", "I=*",
     KC_EXACT, 0},
    {"minpool-uint8", KC_POOL("min=!", "uint8", "2", "2", "2"), "N=2 C=3 H=9 W=71", "I=*",
     KC_EXACT, 0},
    {"maxpool-int32", KC_POOL("max=!", "int32", "2", "2", "2"), "N=2 C=3 H=8 W=38", "I=*",
     KC_EXACT, 0},
    {"maxpool-int16-3x3-acc", KC_POOL("max=", "int16", "3", "3", "2"), "N=2 C=2 H=9 W=21",
     "I=*", KC_EXACT, 1},
    {"maxpool-f64", KC_POOL("max=!", "double", "2", "2", "2"), "N=2 C=3 H=8 W=38", 0, KC_EXACT,
     0},
    {"minpool-f64-3x3", KC_POOL("min=!", "double", "3", "3", "2"), "N=2 C=2 H=9 W=39", 0,
     KC_EXACT, 0},
    {"sumpool", KC_POOL("+=!", "float", "2", "2", "2"), "N=2 C=3 H=10 W=36", 0, KC_REDUCE, 0},
    {"sumpool-acc", KC_POOL("+=", "float", "2", "2", "2"), "N=2 C=3 H=10 W=36", 0, KC_REDUCE, 1},
    {"sumpool-3x3-s1", KC_POOL("+=!", "float", "3", "3", "1"), "N=2 C=2 H=9 W=37", 0, KC_REDUCE,
     0},
    {"sumpool-int32", KC_POOL("+=!", "int32", "2", "2", "2"), "N=2 C=3 H=8 W=38", "I=*",
     KC_EXACT, 0},
    {"sumpool-int8-3x3", KC_POOL("+=!", "int8", "3", "3", "2"), "N=2 C=3 H=9 W=41", "I=*",
     KC_EXACT, 0},
    {"sumpool-f64", KC_POOL("+=!", "double", "2", "2", "2"), "N=2 C=3 H=10 W=36", 0, KC_REDUCE,
     0},
    {"prodpool", KC_POOL("*=!", "float", "2", "2", "2"), "N=2 C=3 H=10 W=36", "I=0.5:1.5",
     KC_REDUCE, 0},
    {"maxpool-half", KC_POOL("max=!", "float16", "2", "2", "2"), "N=2 C=2 H=8 W=36", "I=-4:4",
     KC_EXACT, 0},
    {"maxpool-bool", KC_POOL("max=!", "bool", "2", "2", "2"), "N=2 C=2 H=8 W=36", 0, KC_EXACT,
     0},
    {"maxpool-transposed",
     "def mpt(float(N,C,H,W) I) -> (Out) {\n"
     "    Out(n,c,w,h) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, "
     "w in 0:W/2\n}\n",
     "N=2 C=3 H=40 W=12", 0, KC_EXACT, 0},
    {"maxpool-transposed-s1", /* lane along w: a strided store */
     "def mpt1(float(N,C,H,W) I) -> (Out) {\n"
     "    Out(n,c,w,h) max=! I(n,c,h+kh,w+kw) where kh in 0:3, kw in 0:3\n}\n",
     "N=2 C=2 H=5 W=40", 0, KC_EXACT, 0},
    {"maxpool-partial", /* does not cover Out: filled with the identity first */
     "def mpp(float(N,C,H,W) I) -> (Out) {\n"
     "    Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, "
     "w in 1:W/2\n}\n",
     "N=2 C=3 H=10 W=38", 0, KC_EXACT, 0},
    {"maxpool-then-scale",
     "def mps(float(N,C,H,W) I) -> (P, R) {\n"
     "    P(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, "
     "w in 0:W/2\n"
     "    R(n,c,h,w) = P(n,c,h,w) * 2.0\n}\n",
     "N=2 C=3 H=10 W=38", 0, KC_EXACT, 0},
    {"maxpool-reversed",
     "def mpr(float(C,H,W) I) -> (Out) {\n"
     "    Out(c,h,w) max=! I(c,H-1-2*h-kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, "
     "w in 0:W/2\n}\n",
     "C=3 H=11 W=38", 0, KC_EXACT, 0},
    {"maxpool-1d-rows",
     "def mp1(float(M,N) I) -> (O) { O(i,j) max=! I(i,2*j+k) where k in 0:2, j in 0:N/2 }",
     "M=30 N=41", 0, KC_EXACT, 0},
    {"maxpool-1d", "def mp0(float(N) I) -> (O) { O(j) max=! I(2*j+k) where k in 0:2, j in 0:N/2 }",
     "N=41", 0, KC_EXACT, 0},
    {"avgpool",
     "def avgpool(float(N,C,H,W) I) -> (Out) {\n"
     "    Out(n,c,h,w) +=! I(n,c,2*h+kh,2*w+kw) / 4.0 where kh in 0:2, kw in 0:2\n}\n",
     "N=2 C=2 H=9 W=6", 0, KC_REDUCE, 0},
    /* normalisations */
    {"softmax", KC_SOFTMAX, "M=5 N=300", "X=-4:4", KC_REDUCE, 0},
    {"logsumexp",
     "def lse(float(M,N) X) -> (L) {\n"
     "    mx(i) max=! X(i,j)\n    s(i) +=! exp(X(i,j) - mx(i))\n    L(i) = mx(i) + log(s(i))\n}\n",
     "M=6 N=77", "X=-4:4", KC_REDUCE, 0},
    {"layernorm", KC_LAYERNORM, "M=5 N=64", "X=-4:4 g=0.5:1.5 b=-0.5:0.5", KC_REDUCE, 0},
    {"groupnorm",
     "def gn(float(N,G,D) X, float(G,D) gamma, float(G,D) beta) -> (Y) {\n"
     "    mean(n,g) +=! X(n,g,d) / D\n"
     "    var(n,g) +=! (X(n,g,d) - mean(n,g)) * (X(n,g,d) - mean(n,g)) / D\n"
     "    Y(n,g,d) = (X(n,g,d) - mean(n,g)) / sqrt(var(n,g) + 1e-5) * gamma(g,d) + beta(g,d)\n}\n",
     "N=3 G=4 D=10", "X=-4:4", KC_REDUCE, 0},
    {"batchnorm",
     "def bn(float(N,C,H,W) X, float(C) gamma, float(C) beta) -> (Y) {\n"
     "    mean(c) +=! X(n,c,h,w) / (N*H*W)\n"
     "    var(c) +=! (X(n,c,h,w) - mean(c)) * (X(n,c,h,w) - mean(c)) / (N*H*W)\n"
     "    Y(n,c,h,w) = (X(n,c,h,w) - mean(c)) * rsqrt(var(c) + 1e-5) * gamma(c) + beta(c)\n}\n",
     "N=2 C=3 H=4 W=5", "X=-2:2", KC_REDUCE, 0},
    /* MLP */
    {"mlp-relu-max", KC_MLP, "B=4 I=9 J=7 K=5", 0, KC_REDUCE, 0},
    {"mlp-relu-select",
     "def mlp2(float(B,I) X, float(J,I) W1, float(J) B1) -> (R) {\n"
     "    H(b,j) +=! X(b,i) * W1(j,i)\n"
     "    R(b,j) = H(b,j) + B1(j) > 0.0 ? H(b,j) + B1(j) : 0.0\n}\n",
     "B=6 I=11 J=8", 0, KC_REDUCE, 0},
    /* gathers */
    {"gather-int32", KC_GATHER32, "V=10 D=7 L=12", "Idx=0:9", KC_EXACT, 0},
    {"gather-int64", KC_GATHER64, "V=10 D=300 L=5", "Idx=0:9", KC_EXACT, 0},
    {"gather-2d", "def g2(float(V,W) T, int32(L) R, int64(L) C) -> (E) { E(i) = T(R(i), C(i)) }",
     "V=5 W=6 L=40", "R=0:4 C=0:5", KC_EXACT, 0},
    {"gather-uint8-index",
     "def embu(float(V,D) W, uint8(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) + W(Idx(L-1-i), j) }",
     "V=200 D=3 L=30", "Idx=0:199", KC_EXACT, 0},
    {"gather-clamped",
     "def lut(float(J) B, int32(I) C) -> (A) { A(i) = B(max(min(C(i), J-1), 0)) }", "J=8 I=50",
     "C=-5:15", KC_EXACT, 0},
    /* stencils, shifts, reversal */
    {"stencil-1d", KC_STENCIL3, "N=600", 0, KC_EXACT, 0},
    {"stencil-2d",
     "def lap(float(H,W) X) -> (O) {\n"
     "    O(i,j) = X(i,j+1) + X(i+2,j+1) + X(i+1,j) + X(i+1,j+2) - 4.0 * X(i+1,j+1)\n}\n",
     "H=9 W=11", 0, KC_EXACT, 0},
    {"stencil-1d-kernel", "def conv1(float(N) x, float(K) w) -> (y) { y(i) +=! x(i+k) * w(k) }",
     "N=40 K=5", 0, KC_REDUCE, 0},
    {"shift", "def shift(float(N) I) -> (O) { O(i) = I(i-1) }", "N=9", 0, KC_EXACT, 0},
    {"reverse", "def rev(float(N) B) -> (A) { A(i) = B(10 - i) }", "N=7", 0, KC_EXACT, 0},
    {"reverse", "def rev(float(N) B) -> (A) { A(i) = B(10 - i) }", "N=14", 0, KC_EXACT, 0},
    {"subsample", "def sub2(float(N) B) -> (A) { A(i) = B(2*i) }", "N=9", 0, KC_EXACT, 0},
    {"avgpool-1d", "def ap(float(N) B) -> (A) { A(i) = B(2*i) + B(2*i + 1) }", "N=9", 0, KC_EXACT,
     0},
    {"precondition",
     "def pre(float(N) B, float(M) C, float(K) D) -> (A) { A(i,j) = B(i) * C(i+j) * D(j) }",
     "N=4 M=9 K=5", 0, KC_EXACT, 0},
    /* scalar reductions and 0-rank tensors */
    {"scalar-sum", KC_SUM, "N=1000", 0, KC_REDUCE, 0},
    {"scalar-max-int", "def smax(int32(N) x) -> (m) { m max=! x(i) }", "N=77", "x=*", KC_EXACT, 0},
    {"scalar-min-uint", "def smin(uint16(N) x) -> (m) { m min=! x(i) }", "N=77", "x=*", KC_EXACT,
     0},
    {"scalar-input",
     "def axpy(float alpha, float(N) x, float(N) y) -> (z) { z(i) = alpha * x(i) + y(i) }", "N=50",
     0, KC_EXACT, 0},
    {"scalar-in-out", "def sc(double a, double b) -> (c) { c = a * b - a }", "", 0, KC_EXACT, 0},
    {"size-from-scalar", "def tile(float(N) x, int32 R) -> (y) { y(r,i) = x(i) where r in 0:R }",
     "N=6", "R=3:3", KC_EXACT, 0},
    {"rowsum", KC_ROWSUM, "M=9 N=700", 0, KC_REDUCE, 0},
    /* reductions along short rows through the bytecode, several rows to a
       block (tc__vm_plan_fold_red): rows of 1, 3, 63, 64, 65 and 256 lanes,
       a read along the rows (w), one per row (s), masked reads (the ?:) */
    {"foldred-1", KC_FOLDRED, "M=3 N=37 K=1", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    {"foldred-3", KC_FOLDRED, "M=3 N=201 K=3", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    {"foldred-63", KC_FOLDRED, "M=2 N=45 K=63", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    {"foldred-64", KC_FOLDRED, "M=2 N=19 K=64", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    {"foldred-65", KC_FOLDRED, "M=2 N=23 K=65", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 1},
    {"foldred-256", KC_FOLDRED, "M=2 N=9 K=256", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    {"foldred-int", KC_FOLDRED_INT, "M=3 N=50 K=40", "X=-9:9", KC_EXACT, 0},
    {"foldred-int-short", KC_FOLDRED_INT, "M=3 N=50 K=7", "X=-9:9", KC_EXACT, 0},
    /* reductions: every operator, with and without `!` */
    {"reduce-float", KC_REDUCTIONS, "M=6 N=40", "X=0.5:1.5", KC_REDUCE, 0},
    {"reduce-float-acc", KC_REDUCTIONS_ACC, "M=6 N=40", "X=0.5:1.5", KC_REDUCE, 1},
    {"reduce-float-acc-zero", KC_REDUCTIONS_ACC, "M=6 N=40", "X=0.5:1.5", KC_REDUCE, 0},
    {"reduce-int32", KC_INT_RED("int32"), "M=5 N=30", "X=*", KC_EXACT, 0},
    {"reduce-int32-acc", KC_INT_RED_ACC("int32"), "M=5 N=30", "X=*", KC_EXACT, 1},
    {"reduce-uint8", KC_INT_RED("uint8"), "M=5 N=30", "X=*", KC_EXACT, 0},
    {"reduce-uint8-acc", KC_INT_RED_ACC("uint8"), "M=5 N=30", "X=*", KC_EXACT, 1},
    {"reduce-int64", KC_INT_RED("int64"), "M=4 N=300", "X=*", KC_EXACT, 0},
    {"reduce-double",
     "def dred(double(M,N) X) -> (s, p, mn, mx) {\n"
     "    s(i) +=! X(i,j)\n    p(i) *=! X(i,j)\n    mn(i) min=! X(i,j)\n"
     "    mx(i) max=! X(i,j)\n}\n",
     "M=3 N=50", "X=0.5:1.5", KC_REDUCE, 0},
    {"reduce-half", "def hred(float16(M,N) X) -> (s, mx) { s(i) +=! X(i,j)\n mx(i) max=! X(i,j) }",
     "M=4 N=20", "X=-2:2", KC_REDUCE, 0},
    /* float16 and mixed contractions take the bytecode, not the microkernel (which read the
       halves as floats) */
    {"mm-half", "def mmh(float16(M,K) A, float16(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
     "M=5 K=7 N=3", "A=-2:2 B=-2:2", KC_REDUCE, 0},
    {"mm-half-float", "def mmhf(float16(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
     "M=33 K=40 N=70", "A=-2:2 B=-2:2", KC_REDUCE, 0},
    {"outer-sum-half", "def osh(float16(N) A) -> (C) { C(i) +=! A(j) * A(i) }", "N=19", "A=-2:2",
     KC_REDUCE, 0},
    /* half(x) rounds where it is written, not only where it is stored: from float32,
       float64 (once, not through float32) and int32, past 65504 to infinity */
    {"cast-half",
     "def ch(float(N) F, double(N) D, int32(N) I) -> (a, b, c, d) {\n"
     "    a(i) = float(half(F(i) * 3000)) - F(i) * 3000\n    b(i) = double(half(D(i) * 70000))\n"
     "    c(i) = half(I(i)) + 0.5\n    d(i) = half(D(i) + 1) - 1\n}\n",
     "N=1500", "F=-30:30 D=-1:1 I=-70000:70000", KC_EXACT, 0},
    /* min= / max= of a ?: on 8- and 16-bit integers (a ?: of uchar is an int in
       OpenCL C, and max(uchar, int) is ambiguous there) */
    {"reduce-minmax-select",
     "def rms(uint8(M,N) X, uint8(M,N) Y, int16(M,N) S, int16(M,N) T) -> (a, b, c) {\n"
     "    a(i) max=! (X(i,j) > Y(i,j) ? X(i,j) : Y(i,j) / 2)\n"
     "    b(i) min=! (S(i,j) < 0 ? S(i,j) : T(i,j))\n    c(i) = X(i,0) / 3\n    c(i) max= (X(i,j) > 9 ? X(i,j) : Y(i,j) % 5)\n}\n",
     "M=20 N=9", "X=* Y=* S=-300:300 T=-300:300", KC_EXACT, 0},
    {"reduce-bool", "def bred(bool(M,N) X) -> (a, o) { a(i) min=! X(i,j)\n o(i) max=! X(i,j) }",
     "M=20 N=3", 0, KC_EXACT, 0},
    {"init-no-reduction", "def pw(float(N) X) -> (T) { T(i) *=! X(i-1) }", "N=7", 0, KC_EXACT, 0},
    /* every dtype */
    {"dtype-int8", KC_INT_EW("int8"), "N=2000", "a=* b=-5:5", KC_EXACT, 0},
    {"dtype-int16", KC_INT_EW("int16"), "N=500", "a=* b=-300:300", KC_EXACT, 0},
    {"dtype-int32", KC_INT_EW("int32"), "N=500", "a=* b=-70000:70000", KC_EXACT, 0},
    {"dtype-int32-small", KC_INT_EW("int32"), "N=500", "a=-20:20 b=-5:5", KC_EXACT, 0},
    {"dtype-int64", KC_INT_EW("int64"), "N=500", "a=* b=-5:5", KC_EXACT, 0},
    {"dtype-uint8", KC_INT_EW("uint8"), "N=600", "a=* b=0:5", KC_EXACT, 0},
    {"dtype-uint16", KC_INT_EW("uint16"), "N=500", "a=* b=0:300", KC_EXACT, 0},
    {"dtype-uint32", KC_INT_EW("uint32"), "N=500", "a=* b=*", KC_EXACT, 0},
    {"dtype-uint64", KC_INT_EW("uint64"), "N=500", "a=* b=0:5", KC_EXACT, 0},
    {"dtype-bool",
     "def eb(bool(N) a, bool(N) b) -> (c, d, e) {\n"
     "    c(i) = a(i) && !b(i) || b(i) == a(i)\n    d(i) = a(i) != b(i)\n"
     "    e(i) = a(i) ? 1 : 2\n}\n",
     "N=64", 0, KC_EXACT, 0},
    {"dtype-float16",
     "def eh(float16(N) a, float16(N) b) -> (c, h) {\n"
     "    c(i) = a(i) * b(i) + a(i) / 3.0\n    h(i) = float16(a(i) * b(i) + 0.1)\n}\n",
     "N=300", "a=-70:70 b=-1000:1000", KC_EXACT, 0},
    {"dtype-float16-declared",
     "def ehd(float16(N) a) -> (float16(N) c) { c(i) = float16(a(i) * 3.0 + 1.0) }", "N=300",
     "a=-20000:20000", KC_EXACT, 0},
    {"dtype-float64",
     "def ed(double(N) a, double(N) b) -> (c, d) {\n"
     "    c(i) = a(i) * b(i) - a(i) / b(i)\n    d(i) = a(i) % b(i) + min(a(i), b(i))\n}\n",
     "N=300", "a=-10:10 b=-3:3", KC_EXACT, 0},
    {"dtype-float32-ops",
     "def ef(float(N) a, float(N) b) -> (c, d, e) {\n"
     "    c(i) = a(i) % b(i)\n    d(i) = -a(i) / b(i) + max(a(i), b(i))\n"
     "    e(i) = a(i) <= b(i) || a(i) > 2.0 * b(i) ? 1.0 : 0.0\n}\n",
     "N=300", "a=-10:10 b=-3:3", KC_EXACT, 0},
    {"promotion",
     "def mix(int8(N) a, uint16(N) b, float(N) x, int64(N) w) -> (c, d, e, f) {\n"
     "    c(i) = a(i) + b(i)\n    d(i) = x(i) * a(i)\n    e(i) = w(i) - b(i)\n"
     "    f(i) = x(i) + 1.5\n}\n",
     "N=100", "a=* b=* w=*", KC_EXACT, 0},
    {"casts",
     "def casts(float(N) x, int32(N) k) -> (a, b, c, d, e) {\n"
     "    a(i) = int32(x(i) * 10.0)\n    b(i) = float(k(i)) / 3.0\n    c(i) = uint8(k(i))\n"
     "    d(i) = double(x(i)) * 1e-3\n    e(i) = int8(k(i) * 7)\n}\n",
     "N=200", "x=-50:50 k=*", KC_EXACT, 0},
    {"index-arith",
     "def ia(int32(N) x) -> (a, b) {\n"
     "    a(i) = (i - 7) / 3 + (i - 7) % 3 * 100 + x(i) / (i - 5)\n"
     "    b(i,j) = i * N + j + x(j) % (j - 3) where i in 0:4\n}\n",
     "N=20", 0, KC_EXACT, 0},
    /* several statements, outputs, temporaries, calls */
    {"multi-statement",
     "def multi(float(N) x) -> (y, z) {\n"
     "    t(i) = x(i) * 2.0\n    y(i) = t(i) + 1.0\n    y(i) += x(i)\n    z(i) = y(i) * t(i)\n}\n",
     "N=300", 0, KC_EXACT, 0},
    {"call",
     "def sq(float(N) x) -> (y) { y(i) = x(i) * x(i) }\n"
     "def callk(float(N) a) -> (b) {\n    t = sq(a)\n    b(i) = t(i) + a(i)\n}\n",
     "N=50", 0, KC_EXACT, 0},
    {"call-two-outputs",
     "def mm2(float(M,K) A, float(K,N) B) -> (C, D) { C(i,j) +=! A(i,k) * B(k,j)\n"
     " D(i,j) = C(i,j) * 2.0 }\n"
     "def chain(float(M,K) A, float(K,N) B, float(N,P) E) -> (F, G) {\n"
     "    C, D = mm2(A, B)\n    F, G = mm2(D, E)\n}\n",
     "M=4 K=5 N=6 P=3", 0, KC_REDUCE, 0},
    {"call-declared-dims", /* the callee's declared dims alone bound its outputs' first writes */
     "def ramp(float(N) X, float(K) W) -> (float(N, K) Y, float(N) Z) {\n"
     "    Y(i, j) = X(i) + j\n    Z(i) = 1.0\n}\n"
     "def use(float(M) A, float(P) B) -> (C, D) {\n    C, D = ramp(A, B)\n}\n",
     "M=6 P=3", 0, KC_EXACT, 0},
    {"call-temporaries", /* the callee's temporary twice: sq.t and sq.2.t (OpenCL: tc_t<k>_...) */
     "def sq(float(N, M) x) -> (y) { t(i) +=! x(i, j) * x(i, j)\n y(i) = sqrt(t(i)) }\n"
     "def norms(float(N, M) a) -> (b) {\n    u = sq(a)\n    v = sq(a)\n    b(i) = u(i) + v(i)\n}\n",
     "N=7 M=9", 0, KC_REDUCE, 0},
    /* builtins in context */
    {"ew-tanh", KC_EW_TANH, "N=700", "x=-2:2", KC_LOOSE, 0},
    {"ew-fma", KC_EW_FMA, "N=700", "x=-2:2", KC_EXACT, 0},
    /* a chain or one op on a constant, then a builtin: with streamed
       outputs (t_stream) one row call, pieces of 64 lanes after a head up
       to the output's first whole cache line (tc__k_chain_call_nt_f32) */
    {"ew-call-chain3",
     "def f(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = tanh((a(i) + x(i)) * b(i) - x(i)) }",
     "N=1001", "a=-2:2 x=-2:2 b=-2:2", KC_LOOSE, 0},
    {"ew-call-div", /* by 4: the reciprocal, one row call; by 3: declined, in pieces */
     "def f(float(N) a, float(N) x) -> (y, z) { y(i) = sqrt((a(i) + x(i)) / 4.0)\n"
     " z(i) = log((a(i) + x(i)) / 3.0) }",
     "N=1000", "a=0:2 x=0:2", KC_LOOSE, 0},
    {"ew-pairs-lines", /* streamed: each whole line as computed (tc__k_chain2_lines_f32) */
     "def f(float(N) a, float(N) x, float(N) b) -> (y, z) { y(i) = a(i) / x(i) - b(i)\n"
     " z(i) = (a(i) - x(i)) * 2.5 }",
     "N=1500", "a=-2:2 x=1:2 b=-2:2", KC_EXACT, 0},
    {"ew-call-exp", "def f(float(N) a, float(N) x) -> (y) { y(i) = exp(a(i) * x(i) - 1.0) }", "N=77",
     "a=-3:3 x=-3:3", KC_LOOSE, 0},
    /* fused float32 chains (tc__vm_chains) and lane-uniform operands: every
       op order, operand side, uniform per row and per statement, power-of-two
       divisors (multiplied by the reciprocal): all bitwise like one op at a time */
    {"chain-orders",
     "def ch(float(N) a, float(N) b, float(N) c, float(N) e) -> (p, q, r, s, t, u) {\n"
     "    p(i) = (a(i) - b(i)) / c(i) - e(i)\n"
     "    q(i) = e(i) / (a(i) * b(i) + c(i))\n"
     "    r(i) = c(i) - a(i) / b(i) * e(i)\n"
     "    s(i) = e(i) * (c(i) + (a(i) - b(i)))\n"
     "    t(i) = (a(i) + b(i)) * (c(i) - e(i)) / a(i)\n"
     "    u(i) = ((a(i) / b(i)) / c(i)) / e(i) + a(i)\n}\n",
     "N=1100", 0, KC_EXACT, 0},
    {"chain-uniform",
     "def cu(float(M,N) X, float(M) m, float(N) g) -> (p, q, r, s, t) {\n"
     "    p(i,j) = (X(i,j) - m(i)) / 3.0 * g(j) + 0.5\n"
     "    q(i,j) = m(i) / (X(i,j) + 1.0) - m(i)\n"
     "    r(i,j) = X(i,j) / 1024.0 + X(i,j) / 0.25 - X(i,j) / -0.5\n"
     "    s(i,j) = X(i,j) / m(i) - g(j) * 2.0 / m(i)\n"
     "    t(i,j) = 7.0 - X(i,j) * 1e-30 / 8.5070592e+37\n}\n",
     "M=5 N=531", "X=-1e30:1e30 m=-3:3", KC_EXACT, 0},
    /* the element-wise fast path with lane-uniform loads (one value per row) */
    {"ew-uniform-int",
     "def eui(int32(M,N) X, int32(M) m, int8(M,N) A, int8(M) c) -> (a, b, d) {\n"
     "    a(i,j) = X(i,j) - m(i)\n"
     "    b(i,j) = m(i) / X(i,j)\n"
     "    d(i,j) = c(i) * A(i,j)\n}\n",
     "M=7 N=600", "X=-5:5 m=-9:9", KC_EXACT, 0},
    {"ew-uniform-float",
     "def euf(float(M,N) X, float(M) m, double(M,N) Y, double(M) u) -> (a, b, c, d) {\n"
     "    a(i,j) = m(i) - X(i,j)\n"
     "    b(i,j) = Y(i,j) / u(i)\n"
     "    c(i,j) = (X(i,j) * m(i) + X(i,j)) / m(i)\n"
     "    d(i,j) = min(u(i), Y(i,j))\n}\n",
     "M=4 N=1030", 0, KC_EXACT, 0},
    {"ew-uniform-scalar", /* row-uniform + - * / min max sqrt, once a row (tc__vm_uniform_scalar) */
     "def eus(float(M,N) X, float(M) a, float(M) b, double(M,N) Y, double(M) c, double(M) e) -> (p, q, r, s, t) {\n"
     "    p(i,j) = X(i,j) * (a(i) - b(i))\n    q(i,j) = X(i,j) + sqrt(a(i) * b(i))\n"
     "    r(i,j) = X(i,j) - min(a(i), b(i) / 3.0)\n    s(i,j) = X(i,j) * max(a(i) + b(i), b(i))\n"
     "    t(i,j) = Y(i,j) * max(c(i) - e(i), sqrt(c(i)))\n}\n",
     "M=40 N=300", "a=~! b=~! c=~! e=~!", KC_EXACT, 0},
    {"ew-rows-3d", /* consecutive rows stepped, not recomputed (tc__vm_ew_items): 3-d, a transposed output */
     "def er3(float(A,B,C) X, float(A,B) m, float(B) g) -> (y, s, t) {\n"
     "    y(a,b,c) = X(a,b,c) * g(b) - m(a,b)\n    s(a,b) +=! X(a,b,c) * m(a,b)\n"
     "    t(b,a) max=! X(a,b,c) + g(b)\n}\n",
     "A=3 B=37 C=70", 0, KC_LOOSE, 0},
    {"ew-uniform-call",
     "def euc(float(M,N) X, float(M) m) -> (e) { e(i,j) = exp(X(i,j) - m(i)) }",
     "M=5 N=700", "X=-4:4 m=-1:1", KC_LOOSE, 0},
    /* a row group run row by row (tc__vm_group_rows), lanes from 0, 1 or 3:
       each call a row makes (one-pass reductions, declined for / 3.0; exp(x -
       s) with the sum absorbed; a chain dividing first by a uniform value,
       its scalar last), a generic reduction, a spread uniform value (m), a
       staged temporary (e) */
    {"rows-forms", KC_ROWS_FORMS, "M=40 N=700", "X=-4:4 g=0.5:1.5 m=-1:1", KC_REDUCE, 0},
    /* ... the calls a chunk resolves once (tc__vm_row_resolve) and those it
       leaves to each row: a reduction's scalar constant (a square's too) or
       a row's value; one op on a row's value, the value second or first, a
       divisor constant (a power of two) or a row's */
    {"rows-calls",
     "def rc(float(M,N) X, float(M,N) A, float(M) m, float(M) p) -> (q, r, u, v, w, w4, y) {\n"
     "    q(i) +=! X(i,j) * m(i)\n    r(i) +=! (X(i,j) - 2.0) * (X(i,j) - 2.0)\n"
     "    u(i) +=! (X(i,j) - m(i)) * (X(i,j) - m(i))\n    v(i,j) = X(i,j) - m(i)\n"
     "    w(i,j) = A(i,j) / p(i)\n    w4(i,j) = A(i,j) / 4.0\n    y(i,j) = m(i) - X(i,j)\n}\n",
     "M=40 N=530", "X=-4:4 A=^! m=-1:1 p=~!", KC_REDUCE, 0},
    /* ... the chain dividing first declines for some rows (wide values) */
    {"rows-divu", KC_ROWS_DIVU, "M=60 N=530", "X=^! s=~! g=-2:2", KC_EXACT, 0},
    /* ... rows and lanes from an offset (where i in 3:M, j in 2:N) */
    {"rows-offset", KC_ROWS_OFFSET, "M=40 N=600", "X=-4:4 m=0.5:2 g=-2:2", KC_EXACT, 0},
    {"ew-chunks-mid-row", /* chunks of the split end inside rows */
     "def ecm(float(M,N) X, float(M,N) A, float(M) m) -> (y, z) {\n"
     "    y(i,j) = (X(i,j) - A(i,j)) * X(i,j) + A(i,j)\n"
     "    z(i,j) = tanh(X(i,j) * m(i) + 1.0)\n}\n",
     "M=3 N=70001", 0, KC_LOOSE, 0},
    /* a uniform value spread over a block inside a chain (X(i,j) * 2.0 +
       b(j)): with streamed outputs (t_stream) one row call that reads the
       block from its start in every piece (tc__vm_ew_chain_uni); the
       spread operand in each link, a row's value or a constant, a scalar
       last, a builtin after; rows of several pieces, starting anywhere in
       a cache line. u and w read one row (X) and spread a constant: streamed
       through their row call alone (tc__vm_plan_stream_chain); v, with no
       spread value, takes another path here (a row call one lane short left
       it right) */
    {"ew-uniform-links",
     "def eul(float(M,N) X, float(N) b, float(M) m) -> (p, q, r, t, u, v, w) {\n"
     "    p(i,j) = X(i,j) * 2.0 + b(j)\n    q(i,j) = (X(i,j) - b(j)) * m(i) + b(j)\n"
     "    r(i,j) = (X(i,j) + m(i)) * b(j) - 0.5\n    t(i,j) = (X(i,j) * b(j) + 3.0) * b(j)\n"
     "    u(i,j) = (X(i,j) + 1.0) * 3.0\n    v(i,j) = X(i,j) * X(i,j) - m(i)\n"
     "    w(i,j) = (X(i,j) - 1.0) * m(i) + 2.0\n}\n",
     "M=6 N=1531", "X=-4:4 b=-2:2 m=-2:2", KC_EXACT, 0},
    {"ew-uniform-links-call",
     "def eulc(float(M,N) X, float(N) b, float(M) m) -> (s) { s(i,j) = tanh(X(i,j) * m(i) - b(j)) }",
     "M=5 N=1300", "X=-4:4 b=-2:2 m=-2:2", KC_LOOSE, 0},
    {"chain-pow2-tiny",
     "def pt(float(N) x, double(N) y) -> (a, b) {\n"
     "    a(i) = x(i) / 1.7014118e+38 + x(i) / 4.0\n"
     "    b(i) = y(i) / 0.125 - y(i) / 1024.0\n}\n",
     "N=300", "x=-1e-30:1e-30", KC_EXACT, 0},
    {"sigmoid-gelu",
     "def act(float(N) x) -> (s, g) {\n"
     "    s(i) = 1.0 / (1.0 + exp(-x(i)))\n"
     "    g(i) = 0.5 * x(i) * (1.0 + erf(x(i) * 0.70710678))\n}\n",
     "N=300", "x=-6:6", KC_LOOSE, 0},
    /* division by a lane-uniform divisor: every row length around the block,
       magnitudes inside and outside the fast path's range, special values */
    KC_DIV_ROWS("divu-f32", KC_DIVU("float"), "40", "X=^ s=~"),
    KC_DIV_ROWS("divu-f32-special", KC_DIVU("float"), "40", "X=^! s=~!"),
    KC_DIV_ROWS("divu-f64", KC_DIVU("double"), "40", "X=^ s=~"),
    KC_DIV_ROWS("divu-f64-special", KC_DIVU("double"), "40", "X=^! s=~!"),
    KC_DIV_ROWS("divu-sub-f32", KC_DIVU_SUB("float"), "30", "X=^! m=^ s=~!"),
    KC_DIV_ROWS("divu-sub-f64", KC_DIVU_SUB("double"), "30", "X=^! m=^ s=~!"),
    KC_DIV_ROWS("divu-affine-f32", KC_DIVU_AFFINE("float"), "30", "X=^! s=~! g=-2:2 b=-1:1"),
    KC_DIV_ROWS("divu-const-f32", KC_DIVU_CONST("float"), "20", "X=^!"),
    KC_DIV_ROWS("divu-const-f64", KC_DIVU_CONST("double"), "20", "X=^!"),
    /* long rows, a few of whose runs of lanes hold a -0 quotient: each such
       run, and only it, is divided again (x * w / 3: the chain dividing
       last; w / 3 * x: first; w / 3 alone, float and double) */
    {"divu-runs",
     "def drun(float(M,N) x, float(M,N) w, double(M,N) v) -> (a, b, c, d, e) {\n"
     "    a(i,j) = x(i,j) * w(i,j) / 3.0\n    b(i,j) = (x(i,j) * w(i,j) + w(i,j)) / 3.0\n"
     "    c(i,j) = w(i,j) / 3.0 * x(i,j)\n    d(i,j) = w(i,j) / 3.0\n    e(i,j) = v(i,j) / 3.0\n}\n",
     "M=3 N=20000", "x=0.5:2 w=-2:2z v=-2:2z", KC_EXACT, 0},
    {"divu-affine-f64", KC_DIVU_AFFINE("double"), "M=30 N=1500", "X=^! s=~! g=-2:2 b=-1:1",
     KC_EXACT, 0},
    {"divu-affine-f32-small", KC_DIVU_AFFINE("float"), "M=30 N=700", "X=-4:4 s=0.5:2 g=-2:2 b=-1:1",
     KC_EXACT, 0},
    {"divu-f16", KC_DIVU("float16"), "M=30 N=600", "X=^! s=~!", KC_EXACT, 0},
    {"divu-scalar", "def dsc(float(M,N) X, float a) -> (Y) { Y(i,j) = X(i,j) / a }",
     "M=20 N=700", "X=^ a=~", KC_EXACT, 0},
    {"divu-scalar", "def dsc(float(M,N) X, float a) -> (Y) { Y(i,j) = X(i,j) / a }",
     "M=20 N=1100", "X=^! a=~", KC_EXACT, 0},
    {"divu-generic", /* on the generic path: the op before the division is not a chain's */
     "def dgen(float(M,N) X, float(M) s, double(M,N) Z, double(M) t) -> (a, b, c) {\n"
     "    a(i,j) = max(X(i,j), -1e20) / s(i)\n"
     "    b(i,j) = (X(i,j) > 0.0 ? X(i,j) : -X(i,j)) / s(i)\n"
     "    c(i,j) = min(Z(i,j), 1e30) / t(i)\n}\n",
     "M=30 N=1100", "X=^! s=~! Z=^! t=~!", KC_EXACT, 0},
    {"divu-computed", /* the divisor computed once per row */
     "def dcp(float(M,N) X, float(M) s, float(M) t) -> (a, b, c) {\n"
     "    a(i,j) = X(i,j) / sqrt(s(i))\n"
     "    b(i,j) = X(i,j) / s(i) / t(i)\n"
     "    c(i,j) = X(i,j) / (s(i) * t(i) + 1.0)\n}\n",
     "M=40 N=1030", "X=^! s=~! t=~", KC_EXACT, 0},
    {"divu-rewrite", /* divides what an earlier statement wrote into the same output */
     "def drw(float(M,N) X, float(M) s) -> (Y, Z) {\n"
     "    Y(i,j) = X(i,j) * 2.0\n    Y(i,j) = Y(i,j) / s(i)\n"
     "    Z(i,j) = X(i,j)\n    Z(i,j) = (Z(i,j) - 1.0) / s(i)\n}\n",
     "M=40 N=1100", "X=^! s=~!", KC_EXACT, 0},
    {"divu-lanes-across", /* s(i) is not uniform along the lanes here */
     "def dla(float(N,M) X, float(M) s) -> (Y) { Y(i,j) = X(j,i) / s(i) }", "M=600 N=5",
     "X=^! s=~!", KC_EXACT, 0},
    /* reductions along the contiguous last loop, one output per row */
    KC_RED_ROWS("rowred-sum-f32", KC_ROWRED_SUM("float"), "5", "A=-1:1 m=-1:1 v=0:4", KC_REDUCE),
    KC_RED_ROWS("rowred-prod-f32", KC_ROWRED_PROD("float"), "5", "A=0.5:1.5 v=-0.01:0.01",
                KC_REDUCE),
    KC_RED_ROWS("rowred-minmax-f32", KC_ROWRED_MINMAX("float"), "5", "A=-4:4 m=0.5:2", KC_EXACT),
    KC_RED_ROWS("rowred-sum-f64", KC_ROWRED_SUM("double"), "4", "A=-1:1 m=-1:1 v=0:4", KC_REDUCE),
    KC_RED_ROWS("rowred-prod-f64", KC_ROWRED_PROD("double"), "4", "A=0.5:1.5 v=-0.01:0.01",
                KC_REDUCE),
    KC_RED_ROWS("rowred-minmax-f64", KC_ROWRED_MINMAX("double"), "4", "A=-4:4 m=0.5:2", KC_EXACT),
    KC_RED_ROWS("rowred-int32", KC_ROWRED_INT, "5", "A=* m=*", KC_EXACT),
    {"rowred-minmax-f32-special", KC_ROWRED_MINMAX("float"), "M=30 N=1100", "A=^? m=~?",
     KC_EXACT, 0},
    {"rowred-minmax-f64-special", KC_ROWRED_MINMAX("double"), "M=30 N=513", "A=^? m=~?",
     KC_EXACT, 0},
    {"rowred-int32-small", KC_ROWRED_INT, "M=6 N=1100", "A=-30:30 m=-5:5", KC_EXACT, 0},
    {"rowred-acc", /* without `!`: into the caller's values */
     "def racc(float(M,N) A, int32(M,N) B) -> (s, mx, t) {\n"
     "    s(i) += A(i,j)\n    mx(i) max= A(i,j)\n    t(i) += B(i,j)\n}\n",
     "M=5 N=1100", "A=-1:1 B=*", KC_REDUCE, 1},
    {"rowred-3d", KC_ROWRED_3D, "B=3 M=4 N=1", "A=-1:1 m=-1:1", KC_REDUCE, 0},
    {"rowred-3d", KC_ROWRED_3D, "B=3 M=4 N=63", "A=-1:1 m=-1:1", KC_REDUCE, 0},
    {"rowred-3d", KC_ROWRED_3D, "B=2 M=3 N=65", "A=-1:1 m=-1:1", KC_REDUCE, 0},
    {"rowred-3d", KC_ROWRED_3D, "B=2 M=3 N=513", "A=-1:1 m=-1:1", KC_REDUCE, 0},
    {"rowred-3d", KC_ROWRED_3D, "B=2 M=2 N=1100", "A=-1:1 m=-1:1", KC_REDUCE, 0},
    {"rowred-3d-minmax", KC_ROWRED_3D_MAX, "B=3 M=4 N=7", "A=-4:4 m=-1:1", KC_EXACT, 0},
    {"rowred-3d-minmax", KC_ROWRED_3D_MAX, "B=2 M=3 N=64", "A=-4:4 m=-1:1", KC_EXACT, 0},
    {"rowred-3d-minmax", KC_ROWRED_3D_MAX, "B=2 M=3 N=1024", "A=-4:4 m=-1:1", KC_EXACT, 0},
    {"rowred-3d-int32", KC_ROWRED_3D_INT, "B=3 M=2 N=65", "A=*", KC_EXACT, 0},
    {"rowred-3d-int32", KC_ROWRED_3D_INT, "B=2 M=2 N=1100", "A=*", KC_EXACT, 0},
    /* two reduction loops: the generic path */
    {"rowred-2loops", KC_ROWRED_2LOOPS, "M=3 N=1 K=1", "A=-1:1", KC_REDUCE, 0},
    {"rowred-2loops", KC_ROWRED_2LOOPS, "M=3 N=5 K=65", "A=-1:1", KC_REDUCE, 0},
    {"rowred-2loops", KC_ROWRED_2LOOPS, "M=3 N=65 K=7", "A=-1:1", KC_REDUCE, 0},
    {"rowred-2loops", KC_ROWRED_2LOOPS, "M=2 N=3 K=513", "A=-1:1", KC_REDUCE, 0},
    {"rowred-2loops-int32", KC_ROWRED_2LOOPS_INT, "M=3 N=7 K=100", "A=*", KC_EXACT, 0},
    /* rows of 2 * TC_SEG_LANES (131072) lanes or more reduce in segments on
       every thread (tc__vm_plan_segments): several segments, a last one of
       5 lanes, several outputs, every operator and dtype, the bytecode path
       (a select), without `!`, specials, a checked gather */
    {"seg-sum", KC_SUM, "N=300000", 0, KC_REDUCE, 0},
    {"seg-sum", KC_SUM, "N=131077", 0, KC_REDUCE, 0},
    {"seg-rowred-sum", KC_ROWRED_SUM("float"), "M=2 N=131100", "A=0:1 m=-1:1 v=0:4", KC_REDUCE, 0},
    {"seg-rowred-minmax", KC_ROWRED_MINMAX("double"), "M=2 N=131100", "A=-4:4 m=0.5:2", KC_EXACT, 0},
    {"seg-rowred-special", KC_ROWRED_MINMAX("float"), "M=1 N=131100", "A=^? m=~?", KC_EXACT, 0},
    {"seg-rowred-int32", KC_ROWRED_INT, "M=2 N=131100", "A=-30:30 m=-5:5", KC_EXACT, 0},
    {"seg-reduce-acc", KC_REDUCTIONS_ACC, "M=2 N=131100", "X=0.99:1.01", KC_REDUCE, 1},
    {"seg-generic",
     "def sg(float(N) x) -> (s, m) {\n    s +=! x(i) > 0.0 ? x(i) : 0.5 * x(i)\n"
     "    m min=! max(x(i), -0.25)\n}\n",
     "N=131100", 0, KC_REDUCE, 0},
    {"seg-gather", /* exact on every backend (a long float sum in order drifts on OpenCL's) */
     "def sgt(float(V) w, int32(V) k, int32(N) Idx) -> (s, m) {\n"
     "    s +=! k(Idx(i))\n    m max=! w(Idx(i))\n}\n",
     "V=100 N=131100", "Idx=0:99", KC_EXACT, 0},
    /* the same expression twice is computed once (tc__vm_mark_same); not
       where a constant (0.0 and -0.0), a dtype or an index differs, and a
       read a branch masks stays masked */
    {"same-expression",
     "def se(float(N) x, float(N) y, int32(N) k) -> (a, b, c, d) {\n"
     "    a(i) = (x(i) - y(i)) * (x(i) - y(i)) + x(i) * 2.0 + x(i) * 3.0\n"
     "    b(i) = x(i) * 0.0 + x(i) * -0.0\n"
     "    c(i) = i >= 1 ? x(i - 1) * x(i - 1) : x(i) * x(i)\n"
     "    d(i) = float(k(i)) * 2.0 + float(k(i) * 2) + float(k(i)) * 2.0\n}\n",
     "N=300", "k=*", KC_EXACT, 0},
    /* a sum of one op's value squared, the same expression computed once
       (TC__FXR_SQUARE): + - *, a row-uniform second operand (in a row
       group run row by row), `+=` onto earlier values; and where the
       element-wise path takes another way: a max, a uniform first operand */
    {"square-sum",
     "def sq(float(M,N) A, float(M,N) B, float(M) m) -> (s1, s2, s3, s4, s5, s6, s7) {\n"
     "    s1(i) +=! (A(i,j) - B(i,j)) * (A(i,j) - B(i,j))\n"
     "    s2(i) +=! (A(i,j) + B(i,j)) * (A(i,j) + B(i,j))\n"
     "    s3(i) +=! (A(i,j) * B(i,j)) * (A(i,j) * B(i,j))\n"
     "    s4(i) +=! (A(i,j) - m(i)) * (A(i,j) - m(i))\n"
     "    s5(i) = m(i)\n"
     "    s5(i) += (A(i,j) - B(i,j)) * (A(i,j) - B(i,j))\n"
     "    s6(i) max=! (A(i,j) - B(i,j)) * (A(i,j) - B(i,j))\n"
     "    s7(i) +=! (m(i) - A(i,j)) * (m(i) - A(i,j))\n}\n",
     "M=5 N=1500", 0, KC_REDUCE, 0},
    {"square-row-group",
     "def vr(float(M,N) X) -> (mean, var) {\n    mean(i) +=! X(i,j) / N\n"
     "    var(i) +=! (X(i,j) - mean(i)) * (X(i,j) - mean(i))\n}\n",
     "M=70 N=333", "X=-1e3:1e3", KC_REDUCE, 0},
    {"square-total", "def st(float(N) a, float(N) b) -> (s) { s +=! (a(i) - b(i)) * (a(i) - b(i)) }",
     "N=140001", 0, KC_REDUCE, 0},
    /* a reduction along its lane loop with other reduction loops on the
       element-wise path, row after row onto the same partials
       (tc__vm_ew_reduce): a weighted total, an offset start, a broadcast,
       max and min, a builtin of the value, int32, float64, rows shorter and
       longer than the 64 partials */
    {"ew-reduce-loops",
     "def erl(float(M,K,N) A, float(N) w, float(K) v, int32(M,K,N) I, double(M,K,N) D) "
     "-> (s1, s2, s3, s4, s5, s6, s7, s8) {\n"
     "    s1 +=! A(i,k,j) * w(j)\n"
     "    s2 +=! A(i,k,j) where i in 1:M\n"
     "    s3(i) +=! A(i,k,j) * v(k)\n"
     "    s4(i) max=! A(i,k,j) + v(k)\n"
     "    s5(k) min=! A(i,k,j) * w(j)\n"
     "    s6(i) +=! exp(A(i,k,j) * 0.1) * v(k)\n"
     "    s7 +=! I(i,k,j) * 3\n"
     "    s8(i) +=! D(i,k,j) * D(i,k,j) where k in 1:K\n}\n",
     "M=3 K=4 N=200", "I=-1000:1000", KC_REDUCE, 0},
    {"ew-reduce-loops-short", "def ers(float(M,N) A, float(N) w) -> (s) { s +=! A(i,j) * w(j) }",
     "M=9 N=5", 0, KC_REDUCE, 0},
    /* reduction loops every read steps through as one are one loop
       (tc__vm_plan_collapse): a whole matrix or 3-d tensor, a squared
       difference, two of three loops, a contraction over two loops (a
       GEMM then); and where they are not: from an offset, a loop index
       as a value, a read that does not step through both */
    {"collapse-sum2", "def cs2(float(M,N) A) -> (s, p) { s +=! A(i,j)\n p *=! A(i,j) }", "M=7 N=93",
     "A=0.99:1.01", KC_REDUCE, 0},
    {"collapse-3d", "def c3(float(B,M,N) A) -> (s, mx) { s +=! A(b,i,j)\n mx max=! A(b,i,j) }",
     "B=3 M=5 N=70", 0, KC_REDUCE, 0},
    {"collapse-mse",
     "def mse(float(M,N) Y, float(M,N) T) -> (l) { l +=! (Y(i,j) - T(i,j)) * (Y(i,j) - T(i,j)) }",
     "M=40 N=3300", 0, KC_REDUCE, 0},
    {"collapse-two-of-three", "def pc(float(M,N,K) A) -> (s) { s(k) +=! A(i,j,k) }", "M=6 N=9 K=37", 0,
     KC_REDUCE, 0},
    {"collapse-transposed", "def ct(float(M,N) A) -> (s) { s +=! A(j,i) }", "M=30 N=30", 0, KC_REDUCE, 0},
    {"collapse-contract",
     "def cc(float(M,K,L) A, float(K,L,N) B) -> (C) { C(i,j) +=! A(i,k,l) * B(k,l,j) }",
     "M=9 K=5 L=7 N=11", 0, KC_REDUCE, 0},
    {"collapse-after", /* the loop merged away keeps no value from the statement before */
     "def ca(float(M,N) A, float(K) x) -> (y, s) {\n    y(k,l) = x(k) * 2.0 where k in 2:K, l in 0:3\n"
     "    s +=! A(i,j)\n}\n",
     "M=6 N=70 K=5", 0, KC_REDUCE, 0},
    {"collapse-offset", "def co(float(M,N) A) -> (s) { s +=! A(i,j) where j in 1:N }", "M=6 N=70", 0,
     KC_REDUCE, 0},
    {"collapse-index", "def ci(float(M,N) A) -> (s) { s +=! A(i,j) * j }", "M=6 N=70", 0, KC_REDUCE, 0},
    {"collapse-broadcast", "def cb(float(M,N) A, float(N) v) -> (s) { s +=! A(i,j) * v(j) }", "M=6 N=70",
     0, KC_REDUCE, 0},
    /* transposing reads and writes in tiles of rows (tc__vm_plan_tile): lane
       loops from 512 lanes, partial tiles of rows and lanes, reversed
       strides, a reduction, and dtypes of 1, 2 and 8 bytes */
    {"tile-transpose", "def tt(float(M,N) A) -> (B) { B(j,i) = A(i,j) }", "M=1030 N=37", 0, KC_EXACT, 0},
    {"tile-transpose-add",
     "def ta(float(M,N) A, float(N,M) C) -> (B) { B(j,i) = A(i,j) * 2.0 + C(j,i) }", "M=777 N=21",
     0, KC_EXACT, 0},
    {"tile-reversed",
     "def tr(float(M,N) A) -> (B, D) {\n    B(j,i) = A(M - 1 - i, j)\n    D(j,i) = A(i, N - 1 - j)\n}\n",
     "M=600 N=19", 0, KC_EXACT, 0},
    {"tile-strided-store", "def ts(float(M,N) A) -> (B) { B(j,i) = A(i,j) + 1.0 where i in 0:M, j in 0:N }",
     "M=17 N=900", 0, KC_EXACT, 0},
    {"tile-reduce", "def trd(float(M,N,K) A) -> (B) { B(j,i) +=! A(i,j,k) }", "M=520 N=18 K=3", 0,
     KC_REDUCE, 0},
    {"tile-accumulate", "def tac(float(M,N) A) -> (B) { B(j,i) += A(i,j) }", "M=513 N=33", 0, KC_EXACT, 1},
    {"tile-dtypes",
     "def tdt(int8(M,N) A, half(M,N) H, double(M,N) D) -> (a, h, d) {\n    a(j,i) = A(i,j)\n"
     "    h(j,i) = H(i,j)\n    d(j,i) = D(i,j)\n}\n",
     "M=700 N=70", "A=*", KC_EXACT, 0},
    /* short rows folded into one block (tc__vm_plan_fold): NCHW with a
       per-channel scale, a reduction over an outer loop, an offset range
       (rows then not back to back: not folded), rows of 3 lanes, more rows
       than a block holds, and a half output */
    {"fold-batchnorm",
     "def fbn(float(N,C,H,W) X, float(C) g, float(C) b) -> (mean, var, Y) {\n"
     "    mean(c) +=! X(n,c,h,w) / (N*H*W)\n"
     "    var(c) +=! (X(n,c,h,w) - mean(c)) * (X(n,c,h,w) - mean(c)) / (N*H*W)\n"
     "    Y(n,c,h,w) = (X(n,c,h,w) - mean(c)) / sqrt(var(c) + 1e-5) * g(c) + b(c)\n}\n",
     "N=2 C=5 H=9 W=7", 0, KC_LOOSE, 0},
    {"fold-reduce", "def frd(float(K,C,W) X, float(C) s) -> (T) { T(c,w) +=! X(k,c,w) * s(c) }",
     "K=6 C=40 W=13", 0, KC_REDUCE, 0},
    {"fold-offset",
     "def fof(float(C,H,W) X) -> (Y, Z) {\n    Y(c,h,w) = X(c,h,w) * 2.0 + 1.0 where w in 1:W\n"
     "    Z(c,h,w) = X(c,h,w) - X(c,h,0) where h in 2:H\n}\n",
     "C=3 H=11 W=6", 0, KC_EXACT, 0},
    {"fold-many-rows", "def fmr(float(C,H,W) X, float(C) g) -> (Y) { Y(c,h,w) = X(c,h,w) / g(c) + X(c,h,w) }",
     "C=3 H=400 W=3", "g=0.5:2", KC_EXACT, 0},
    /* average pooling as TC writes it: the read divided, then summed
       (tc__vm_wred_div), by a constant or by the window's sizes */
    {"avgpool-div",
     "def ap(float(N,C,H,W) I) -> (O) {\n"
     "    O(n,c,h,w) +=! I(n,c,2*h+kh,2*w+kw) / 4.0 where kh in 0:2, kw in 0:2\n}\n",
     "N=2 C=3 H=17 W=30", 0, KC_REDUCE, 0},
    {"avgpool-div-sizes",
     "def aps(float(N,C,H,W) I, float(KH,KW) K) -> (O) {\n"
     "    O(n,c,h,w) +=! I(n,c,2*h+kh,2*w+kw) / (KH*KW) where kh in 0:KH, kw in 0:KW,"
     " exists K(kh,kw)\n}\n",
     "N=2 C=3 H=17 W=31 KH=3 KW=3", 0, KC_REDUCE, 0},
    {"avgpool-div-f64",
     "def apd(double(C,H,W) I) -> (O) {\n"
     "    O(c,h,w) += I(c,h+kh,w+kw) / 9.0 where kh in 0:3, kw in 0:3\n}\n",
     "C=3 H=12 W=600", 0, KC_REDUCE, 1},
    /* ... or multiplied by a constant (either order), float64 too */
    {"avgpool-mul",
     "def apm(float(N,C,H,W) I) -> (O, P) {\n"
     "    O(n,c,h,w) +=! I(n,c,2*h+kh,2*w+kw) * 0.3 where kh in 0:2, kw in 0:2\n"
     "    P(n,c,h,w) +=! 0.11 * I(n,c,h+kh,w+kw) where kh in 0:3, kw in 0:3\n}\n",
     "N=2 C=3 H=17 W=30", 0, KC_REDUCE, 0},
    {"avgpool-mul-f64",
     "def apmd(double(C,H,W) I) -> (O) {\n"
     "    O(c,h,w) += I(c,h+kh,w+kw) * 0.7 where kh in 0:3, kw in 0:3\n}\n",
     "C=3 H=12 W=600", 0, KC_REDUCE, 1},
    {"fold-half", "def fh(half(C,H,W) X, float(C) g) -> (half(C,H,W) Y) { Y(c,h,w) = half(X(c,h,w) * g(c) - 1.0) }",
     "C=4 H=30 W=9", 0, KC_EXACT, 1},
    /* a sum along an output loop whose value is one float op, made and summed
       in one pass (tc__vm_exec_acc): two streams, a uniform operand second
       and first, float64, both operands uniform; fabs of a stream, float64,
       of a uniform value */
    {"acc-op",
     "def acc(float(K,M) X, float(K,M) Y, float(K) w, double(K,M) D, float s) -> (a, b, c, d, e, f, g, h) {\n"
     "    a(i) +=! X(k,i) * Y(k,i)\n"
     "    b(i) +=! X(k,i) - w(k)\n"
     "    c(i) +=! w(k) - X(k,i)\n"
     "    d(i) +=! D(k,i) + D(k,i) * 0.5\n"
     "    e(i) +=! w(k) * s where i in 0:M\n"
     "    f(i) +=! fabs(X(k,i) - Y(k,i))\n"
     "    g(i) +=! fabs(D(k,i))\n"
     "    h(i) +=! fabs(w(k)) where i in 0:M\n}\n",
     "K=7 M=300", 0, KC_REDUCE, 0},
    /* folded rows of 2, 3 and 4 lanes, each taking a per-row value (tc__k_repeat_rows'
       constant-count loops): float, int8 and float64 */
    {"fold-row-short",
     "def frs(float(N,2) A, float(N,3) B, double(N,4) D, float(N) s, int8(N) k) -> (Y2, Y3, Y4) {\n"
     "    Y2(i,c) = A(i,c) * s(i)\n"
     "    Y3(i,c) = B(i,c) - float(k(i))\n"
     "    Y4(i,c) = D(i,c) * double(s(i))\n}\n",
     "N=1000", "k=-9:9", KC_LOOSE, 0},
    /* folded rows of 16 lanes or more: what only reads values the same
       along a row (row_const) runs once a row (TC__VM_ROW), then fills
       the row's lanes for the ops that vary along it: a builtin, a chain,
       float64, a cast from int32, a comparison as a ?: condition, a
       uniform operand first and second, a reduction along the rows (R),
       more rows than a block holds and a partial last block */
    {"fold-row-values",
     KC_FOLD_ROW_VALUES,
     "M=300 N=20", "ss=0.1:2 dv=-1:1 k=-9:9", KC_LOOSE, 0},
    {"fold-row-values-64",
     KC_FOLD_ROW_VALUES,
     "M=70 N=64", "ss=0.1:2 dv=-1:1 k=-9:9", KC_LOOSE, 1},
    /* reduction steps folded into a block (tc__vm_plan_fold_steps): rows
       of 40 and 16 lanes, each operator, a read the same at every step
       (w(k)), one the same along the lanes (s(j): a value a step, then on
       one lane a step), float64 and int32, two reduction loops, more steps
       than a block holds, and += onto the caller's values */
    {"fold-steps",
     "def fst(float(M,J,K) X, float(K) w, float(J) s, double(M,J,K) D, int32(M,J,K) I,\n"
     "        float(M,L,J,K) Y) -> (A, B, C, E, F, G, H) {\n"
     "    A(i,k) +=! fabs(X(i,j,k)) * w(k)\n"
     "    B(i,k) max=! X(i,j,k) - s(j) * 2.0\n"
     "    C(i,k) min=! X(i,j,k) + exp(s(j))\n"
     "    E(i,k) *=! 1.0 + X(i,j,k) * 0.01\n"
     "    F(i,k) +=! D(i,j,k) * double(s(j))\n"
     "    G(i,k) +=! I(i,j,k) * 3 - 1\n"
     "    H(i,k) +=! Y(i,l,j,k) * s(j)\n}\n",
     "M=3 J=60 K=40 L=2", "I=-9:9", KC_REDUCE, 0},
    {"fold-steps-16",
     "def fss(float(M,J,K) X, float(K) w, float(J) s) -> (A, B) {\n"
     "    A(i,k) += X(i,j,k) * w(k) - s(j) * s(j)\n"
     "    B(i,k) max= fabs(X(i,j,k))\n}\n",
     "M=4 J=300 K=16", 0, KC_REDUCE, 1},
    /* a small matrix per point (fewer output columns than a vector, a
       short reduction): neither the GEMM panels nor the lane tile, the rows
       folded (tc__vm_tile_folds): 2, 3 and 4 columns, float64 */
    {"small-matrix-per-point",
     "def smp(float(N,2) P2, float(2,2) R2, float(N,3) P3, float(3,3) R3, double(N,4) P4, double(4,4) R4)\n"
     "    -> (O2, O3, O4) {\n"
     "    O2(i,c) +=! P2(i,d) * R2(d,c)\n"
     "    O3(i,c) +=! P3(i,d) * R3(d,c)\n"
     "    O4(i,c) +=! P4(i,d) * R4(d,c)\n}\n",
     "N=1500", 0, KC_REDUCE, 0},
    /* folded rows whose reads are not back to back (a valid-range stencil:
       rows of W-1 written, W read; rp->gap), with a per-column and a
       per-row read; a 1-D filter whose reduction steps fold with gaps; int32 */
    {"fold-gaps",
     "def fgp(float(H,W) X, float(W) c, float(H) r, int32(H,W) I, float(K) w) -> (O, P, F) {\n"
     "    O(i,j) = (X(i,j) + X(i,j+1) + X(i+1,j) + X(i+1,j+1)) * c(j) - r(i)\n"
     "    P(i,j) = I(i,j+1) - I(i+1,j) * 3\n"
     "    F(i,j) max=! X(i,j+k) * w(k)\n}\n",
     "H=300 W=41 K=5", "I=-99:99", KC_REDUCE, 0},
    /* reductions along the lanes whose value is one op (fabs, a square, a
       uniform or per-row operand, two streams), made and reduced in one
       pass (sp->lane_op, tc__k_rows_op and tc__k_lane_op), every operator:
       rows of 78 that fold, of 1300 (one row a block), of 3000 (more than a
       block); a bare row max on the same path */
    {"lane-op-rows",
     "def lor(float(M,N,P) X, float(M,N,P) Y, float s, float(M) r) -> (A, B, C, D, E, F) {\n"
     "    A(i,j) max=! fabs(X(i,j,k))\n"
     "    B(i,j) +=! X(i,j,k) * X(i,j,k)\n"
     "    C(j,i) min=! s - X(i,j,k)\n"
     "    D(i,j) *=! Y(i,j,k) * r(i) + 1.0\n"
     "    E(i,j) +=! X(i,j,k) * Y(i,j,k)\n"
     "    F(i,j) max=! X(i,j,k)\n}\n",
     "M=7 N=9 P=78", 0, KC_REDUCE, 0},
    {"lane-op-rows-long",
     "def lol(float(M,N) X, float(M,N) Y, float s, float(M,L) Z) -> (A, B, C, D) {\n"
     "    A(i) max=! fabs(X(i,j))\n"
     "    B(i) +=! X(i,j) * Y(i,j)\n"
     "    C(i) min=! X(i,j) - s\n"
     "    D(i) +=! fabs(Z(i,l))\n}\n",
     "M=5 N=1300 L=3000", 0, KC_REDUCE, 0},
    /* ... rows of 199 written, 200 read: still copied row by row (rows
       shorter than 256 lanes) */
    {"fold-gaps-long",
     "def fgl(float(H,W) X) -> (O) {\n"
     "    O(i,j) = (X(i,j) + X(i,j+1) + X(i+1,j) + X(i+1,j+1)) * 3.0\n}\n",
     "H=40 W=200", 0, KC_REDUCE, 0},
    /* reads under a ?: whose condition is the same on every lane (a row's
       guard, a per-row flag): no lane read at all, or a plain read (checked
       where range inference did not prove it: X(i-1,j) at row 0 is off) */
    {"uniform-mask",
     "def umk(float(M,N) X, double(M,N) D, float(M) s) -> (O, P, Q) {\n"
     "    O(i,j) = X(i,j) + (i > 0 ? X(i-1,j) : 0.5)\n"
     "    P(i,j) = s(i) > 0.0 ? D(i,j) * 2.0 : D(i,j) - 1.0\n"
     "    Q(i,j) = s(i) > 0.0 ? X(i,j) : 1.0\n}\n",
     "M=40 N=700", 0, KC_LOOSE, 0},
    /* folded rows' reads under ?: (masked): inside the tensor's span for
       every lane, loaded then cleared; past the end (cv(i+1) at the last
       row, rv(j+1) at the last lane, never taken), gathered lane by lane;
       with the loop indices in the value (P: not folded) */
    {"fold-masked",
     "def fms(float(M,N) X, float(M) cv, float(N) rv) -> (O, P, Q) {\n"
     "    O(i,j) = X(i,j) > 0.0 ? cv(i) * 2.0 : rv(j) - X(i,j)\n"
     "    P(i,j) = X(i,j) + (i > 0 ? cv(i-1) : 0.5) * (j > 2 ? rv(j-1) : 1.0)\n"
     "    Q(i,j) = X(i,j) > 2.0 ? cv(i+1) + rv(j+1) : X(i,j) * 3.0\n}\n",
     "M=300 N=13", 0, KC_LOOSE, 0},
    /* a row's uniform value made by a fused chain before the element-wise op
       (the chain runs link by link, once a row), rms norm and a 3-link one */
    {"ew-uniform-chain",
     "def euc(float(M,N) X, float(N) g) -> (ss, Y, Z) {\n"
     "    ss(i) +=! X(i,j) * X(i,j)\n"
     "    Y(i,j) = X(i,j) * rsqrt(ss(i) / N + 1e-6) * g(j)\n"
     "    Z(i,j) = (ss(i) * 0.5 - 1.0) / 3.0 + X(i,j)\n}\n",
     "M=37 N=301", 0, KC_LOOSE, 0},
    /* folded rows' reads of other dtypes: each row's one value (g(h), k(h):
       tc__k_repeat_rows) and the same lanes in every row (v(w), an input:
       filled once a job; t(w), an output the def also reads: each block) */
    {"fold-row-dtypes",
     "def frt(double(C,H,W) X, double(H) g, int8(H) k, float(W) v) -> (Y, t, Z) {\n"
     "    Y(c,h,w) = X(c,h,w) * g(h) + double(k(h))\n"
     "    t(w) = v(w) * 2.0\n"
     "    Z(c,h,w) = float(X(c,h,w)) * v(w) + t(w) - float(k(h))\n}\n",
     "C=5 H=70 W=11", "k=-9:9", KC_LOOSE, 0},
};
#define KC_N_CASES ((int)(sizeof kc_cases / sizeof kc_cases[0]))

/* ---- a fixed-seed PRNG (splitmix64) ---- */
typedef struct kc_rng {
    uint64_t s;
} kc_rng;
REF_FN uint64_t kc_next(kc_rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
REF_FN double kc_unif(kc_rng *r) { return (double)(kc_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* One VM run of p: tc_run with an optional pool. */
REF_FN tc_status kc_vm(const tc_program *p, const tc_tensor *in, int n_in, tc_tensor *out,
                       int n_out, tc_pool *pool, tc_error *err) {
    tc_run_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = n_in;
    rd.outputs = out;
    rd.n_outputs = n_out;
    rd.pool = pool;
    return tc_run(p, &rd, err);
}

static const char *kc_find(const char *list, const char *name) {
    size_t n = strlen(name);
    const char *p = list;
    while (p && *p) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (strncmp(p, name, n) == 0 && p[n] == '=') return p + n + 1;
        while (*p && *p != ' ' && *p != '\n')
            p++;
    }
    return NULL;
}

/* Fills a tensor: floats uniform in [lo, hi), integers uniform in [lo, hi],
   full = 1: random bits. */
REF_FN void kc_fill(tc_tensor *t, double lo, double hi, int full, kc_rng *r) {
    int64_t i, n = ref_numel(t);
    size_t es = tc_dtype_size(t->dtype);
    for (i = 0; i < n; i++) {
        ref_val v = {0, 0};
        char *p = (char *)t->data + i * (int64_t)es;
        if (ref_is_float(t->dtype)) {
            v.f = lo + (hi - lo) * kc_unif(r);
            if (full) v.f = (kc_unif(r) - 0.5) * 200.0;
        } else if (full) {
            v.u = kc_next(r);
        } else {
            uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
            v.u = (uint64_t)(int64_t)lo + kc_next(r) % span;
        }
        if (t->dtype == TC_BOOL) v.u &= 1;
        ref_store(t->dtype, p, v);
    }
}
/* A float range with a trailing 'z' ("w=0.5:2z"): about one element in
   3000 is -0 instead, so that a long row has a few runs of the division
   fast path that must be divided again (-0 / s is -0; the fast path's
   fma steps make +0 of it), and many that need not. */
REF_FN void kc_sprinkle_zeros(tc_tensor *t, kc_rng *r) {
    int64_t i, n = ref_numel(t);
    size_t es = tc_dtype_size(t->dtype);
    ref_val z = {0, 0};
    z.f = -0.0;
    for (i = 0; i < n; i++)
        if (kc_next(r) % 3000 == 0) ref_store(t->dtype, (char *)t->data + i * (int64_t)es, z);
}

/* Wide-magnitude floats, for kernels whose fast paths hold only for some
   magnitudes (the lane-uniform division: divisor within 2^+-LS, quotient
   within 2^+-LQ, else a block is divided again). Ranges:
     "~"  each element sign * m * 2^e: half of them on the edges 2^+-LS,
          a quarter past them (up to the dtype's range), a quarter spread
          over [-(LS+6), LS+6] (a divisor's range);
     "^"  one exponent centre per row (last dimension), spread over
          +-(LQ+LS+8) or (a quarter of the rows) near the dtype's least or
          largest normal, elements within 2^+-4 of it: whole rows (and
          blocks) inside or outside the fast path's range (a dividend's);
   a trailing '!' mixes in special values: +-0, subnormals, +-max, +-inf,
   NaN, the least normal ("~!": a quarter of the elements; "^!": an eighth
   of the elements of about half the rows, the rest as "^"); a trailing '?'
   does the same without -0 (order-independent min/max). Mantissas are
   random, or 1, 1 + ulp, 2 - ulp, 1.5. */
typedef struct kc_flimits {
    int emin, emax, mant; /* normal exponents, mantissa bits */
    int ls, lq;           /* the division fast path's limits, as exponents */
    double max, tiny;     /* largest finite, least subnormal */
} kc_flimits;
REF_FN kc_flimits kc_float_limits(tc_dtype t) {
    kc_flimits f;
    if (t == TC_FLOAT64) {
        f.emin = -1022, f.emax = 1023, f.mant = 52, f.ls = 300, f.lq = 400;
        f.max = 1.7976931348623157e308, f.tiny = ldexp(1.0, -1074);
    } else if (t == TC_FLOAT16) {
        f.emin = -14, f.emax = 15, f.mant = 10, f.ls = 6, f.lq = 8;
        f.max = 65504.0, f.tiny = ldexp(1.0, -24);
    } else {
        f.emin = -126, f.emax = 127, f.mant = 23, f.ls = 40, f.lq = 50;
        f.max = 3.4028234663852886e38, f.tiny = ldexp(1.0, -149);
    }
    return f;
}
REF_FN int64_t kc_irange(kc_rng *r, int64_t lo, int64_t hi) { /* inclusive */
    return lo + (int64_t)(kc_next(r) % (uint64_t)(hi - lo + 1));
}
REF_FN double kc_special(const kc_flimits *f, int no_negzero, kc_rng *r) {
    double sub = ldexp(kc_unif(r), f->emin); /* rounds to a subnormal (or 0, rarely) */
    switch (kc_next(r) % 12) {
    case 0: return 0.0;
    case 1: return no_negzero ? 0.0 : -0.0;
    case 2: return f->tiny;
    case 3: return -sub;
    case 4: return sub;
    case 5: return f->max;
    case 6: return -f->max;
    case 7: return INFINITY;
    case 8: return -INFINITY;
    case 9: return NAN;
    case 10: return -ldexp(1.0, f->emin);
    default: return ldexp(1.0, f->emin);
    }
}
REF_FN double kc_wide(const kc_flimits *f, int64_t e, kc_rng *r) {
    double m;
    switch (kc_next(r) % 8) {
    case 0: m = 1.0; break;
    case 1: m = 2.0 - ldexp(1.0, -f->mant); break;
    case 2: m = 1.0 + ldexp(1.0, -f->mant); break;
    case 3: m = 1.5; break;
    default: m = 1.0 + kc_unif(r); break;
    }
    if (e < f->emin) e = f->emin;
    if (e > f->emax) e = f->emax;
    return (kc_next(r) & 1 ? -1.0 : 1.0) * ldexp(m, (int)e);
}
REF_FN void kc_fill_wide(tc_tensor *t, char mode, char spec, kc_rng *r) {
    kc_flimits f = kc_float_limits(t->dtype);
    int64_t i, n = ref_numel(t), row = t->rank ? t->shape[t->rank - 1] : 1, c = 0;
    size_t es = tc_dtype_size(t->dtype);
    int special_row = 0, nz = spec == '?';
    for (i = 0; i < n; i++) {
        ref_val v = {0, 0};
        if (mode == '~') {
            int64_t e = kc_irange(r, -(f.ls + 6), f.ls + 6);
            static const int edge[4] = {-1, 0, -1, 0};
            int k = (int)(kc_next(r) % 8);
            if (k < 4) /* 2^-LS-1.., 2^-LS.., 2^LS-1.., 2^LS.. */
                e = (k < 2 ? -f.ls : f.ls) + edge[k];
            else if (k < 6) /* past the limits, to the dtype's: a fast path taken there shows */
                e = kc_next(r) & 1 ? kc_irange(r, f.emin, -f.ls - 1) : kc_irange(r, f.ls + 1, f.emax);
            v.f = kc_wide(&f, e, r);
            if (spec && kc_next(r) % 4 == 0) v.f = kc_special(&f, nz, r);
        } else {
            if (i % (row ? row : 1) == 0) {
                c = kc_irange(r, -(f.lq + f.ls + 8), f.lq + f.ls + 8);
                if (kc_next(r) % 4 == 0) /* near the subnormals or near overflow */
                    c = kc_next(r) & 1 ? kc_irange(r, f.emin + 4, f.emin + 12)
                                       : kc_irange(r, f.emax - 12, f.emax - 4);
                special_row = spec && (kc_next(r) & 1);
            }
            v.f = kc_wide(&f, c + kc_irange(r, -4, 4), r);
            if (special_row && kc_next(r) % 8 == 0) v.f = kc_special(&f, nz, r);
        }
        ref_store(t->dtype, (char *)t->data + i * (int64_t)es, v);
    }
}

REF_FN void kc_default_range(tc_dtype t, double *lo, double *hi) {
    if (t == TC_BOOL)
        *lo = 0, *hi = 1;
    else if (ref_is_float(t))
        *lo = -1, *hi = 1;
    else if (ref_is_signed(t))
        *lo = -20, *hi = 20;
    else
        *lo = 0, *hi = 40;
}

/* Makes random inputs for def d shaped by the case's sizes. Returns 0 and
   says why when a shape cannot be made. */
REF_FN int kc_make_inputs(const tc_ir_def *d, const char *sizes, const char *ranges, kc_rng *r,
                          tc_tensor *in, char *why, size_t cap) {
    int i, k;
    memset(in, 0, sizeof(tc_tensor) * (size_t)d->n_inputs);
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        const char *rg = ranges ? kc_find(ranges, t->name) : NULL;
        double lo, hi;
        int full = rg && rg[0] == '*', wide = rg && (rg[0] == '~' || rg[0] == '^');
        in[i].dtype = t->dtype;
        in[i].rank = t->rank;
        for (k = 0; k < t->rank; k++) {
            const tc_sx *s = &d->sx[t->extent[k]];
            const char *v = s->op == TC_SX_VAR ? kc_find(sizes, d->sizevars[s->value]) : NULL;
            if (s->op == TC_SX_CONST)
                in[i].shape[k] = s->value;
            else if (v)
                in[i].shape[k] = atoll(v);
            else {
                snprintf(why, cap, "no size for dim %d of input %s", k, t->name);
                return 0;
            }
        }
        kc_default_range(t->dtype, &lo, &hi);
        if (rg && !full && !wide) sscanf(rg, "%lf:%lf", &lo, &hi);
        in[i].data = calloc((size_t)ref_numel(&in[i]) + 1, tc_dtype_size(t->dtype));
        if (wide && ref_is_float(t->dtype))
            kc_fill_wide(&in[i], rg[0], rg[1] == '!' || rg[1] == '?' ? rg[1] : 0, r);
        else
            kc_fill(&in[i], lo, hi, full || wide, r);
        if (rg && !wide && ref_is_float(t->dtype) && rg[strcspn(rg, " \nz")] == 'z') kc_sprinkle_zeros(&in[i], r);
    }
    return 1;
}
REF_FN void kc_free_tensors(tc_tensor *t, int n) {
    int i;
    for (i = 0; i < n; i++) {
        free(t[i].data);
        t[i].data = NULL;
    }
}
/* A contiguous copy (data malloc'ed). */
REF_FN tc_tensor kc_copy(const tc_tensor *t) {
    tc_tensor c = *t;
    size_t bytes = (size_t)ref_numel(t) * tc_dtype_size(t->dtype);
    c.strides = NULL;
    c.data = malloc(bytes + 1);
    if (bytes) memcpy(c.data, t->data, bytes);
    return c;
}

REF_FN int kc_same_shape(const tc_tensor *a, const tc_tensor *b) {
    int k;
    if (a->dtype != b->dtype || a->rank != b->rank) return 0;
    for (k = 0; k < a->rank; k++)
        if (a->shape[k] != b->shape[k]) return 0;
    return 1;
}

/* Compares got with want under the tolerance class; says where when not. */
REF_FN int kc_compare(const tc_tensor *got, const tc_tensor *want, int tol, char *why, size_t cap) {
    int64_t i, n = ref_numel(want);
    size_t es = tc_dtype_size(want->dtype);
    double maxabs = 0, rtol = 0, atol = 0;
    if (!kc_same_shape(got, want)) {
        snprintf(why, cap, "dtype/rank/shape differ: got %s rank %d, want %s rank %d",
                 tc_dtype_name(got->dtype), got->rank, tc_dtype_name(want->dtype), want->rank);
        return 0;
    }
    if (n > 0 && !got->data) {
        snprintf(why, cap, "no data");
        return 0;
    }
    for (i = 0; ref_is_float(want->dtype) && i < n; i++) {
        double w = fabs(ref_load(want->dtype, (char *)want->data + i * (int64_t)es).f);
        if (w > maxabs && w <= 1e300) maxabs = w;
    }
    if (tol != KC_EXACT && want->dtype == TC_FLOAT16)
        rtol = 4e-3, atol = 4e-3 * maxabs;
    else if (tol == KC_REDUCE && want->dtype == TC_FLOAT32)
        rtol = 1e-4, atol = 1e-5 * maxabs;
    else if (tol == KC_REDUCE)
        rtol = 1e-12, atol = 1e-13 * maxabs;
    else if (tol == KC_LOOSE && want->dtype == TC_FLOAT32)
        rtol = 2e-6, atol = 2e-7 * (maxabs > 1 ? maxabs : 1);
    else if (tol == KC_LOOSE)
        rtol = 1e-12, atol = 1e-13 * (maxabs > 1 ? maxabs : 1);
    for (i = 0; i < n; i++) {
        const char *pg = (const char *)got->data + i * (int64_t)es;
        const char *pw = (const char *)want->data + i * (int64_t)es;
        ref_val g = ref_load(want->dtype, pg), w = ref_load(want->dtype, pw);
        int ok;
        if (!ref_is_float(want->dtype))
            ok = g.u == w.u;
        else if (isnan(w.f) || isnan(g.f))
            ok = isnan(w.f) && isnan(g.f);
        else if (tol == KC_EXACT)
            ok = memcmp(pg, pw, es) == 0;
        else
            ok = g.f == w.f || fabs(g.f - w.f) <= atol + rtol * fabs(w.f);
        if (!ok) {
            if (ref_is_float(want->dtype))
                snprintf(why, cap, "element %lld: got %.9g, want %.9g", (long long)i, g.f, w.f);
            else
                snprintf(why, cap, "element %lld: got %lld (0x%llx), want %lld (0x%llx)",
                         (long long)i, (long long)g.u, (unsigned long long)g.u, (long long)w.u,
                         (unsigned long long)w.u);
            return 0;
        }
    }
    return 1;
}
REF_FN int kc_bitwise_equal(const tc_tensor *a, const tc_tensor *b) {
    size_t bytes = (size_t)ref_numel(b) * tc_dtype_size(b->dtype);
    return kc_same_shape(a, b) && (bytes == 0 || memcmp(a->data, b->data, bytes) == 0);
}
#endif
