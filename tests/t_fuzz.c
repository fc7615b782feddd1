/* t_fuzz: thousands of random and mutated TC sources through tc_compile
   and, when they compile, tc_run on tiny random inputs with random shapes
   (zero sizes and out-of-range gathers included). Never a crash, a leak (a
   live-block count per case, LeakSanitizer in the ASan build) or a
   sanitizer report; every failure is a status with a message. Generated
   integer-only programs are also checked against the reference evaluator
   (exactly), so wrong results and unchecked accesses count too.
   Fixed-seed PRNG: every run sees the same inputs. For a longer campaign
   outside the suite, TC_FUZZ_SEED sets another seed and TC_FUZZ_ROUNDS the
   number of generated rounds (1000; three programs each). */
#define _DEFAULT_SOURCE
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"
#include "ref_eval.h"
#include "kernel_cases.h"

/* ---- an allocator that counts blocks and refuses absurd requests ---- */
typedef struct fz_mem {
    long live;
} fz_mem;
#define FZ_MAX_ALLOC ((size_t)64 << 20)
static void *fz_alloc(size_t n, void *u) {
    void *p = n > FZ_MAX_ALLOC ? NULL : malloc(n);
    if (p) ((fz_mem *)u)->live++;
    return p;
}
static void *fz_realloc(void *p, size_t o, size_t n, void *u) {
    void *q = n > FZ_MAX_ALLOC ? NULL : realloc(p, n);
    (void)o;
    if (q && !p) ((fz_mem *)u)->live++;
    return q;
}
static void fz_free(void *p, void *u) {
    if (p) ((fz_mem *)u)->live--;
    free(p);
}

static kc_rng fz_rng = {20260101};
static int fz_rand(int n) { return n > 0 ? (int)(kc_next(&fz_rng) % (uint64_t)n) : 0; }

static int fz_compiled, fz_ran, fz_ran_ok, fz_compared;
static int fz_bad_status, fz_leaks, fz_mismatch, fz_no_msg;

/* Tiny random inputs for def d: sizes 0..4 (big: up to 600, several VM
   blocks), data small (gathers may miss). */
static void fz_inputs(const tc_ir_def *d, tc_tensor *in, int big) {
    int64_t vars[64];
    int i, k;
    for (i = 0; i < 64; i++)
        vars[i] = fz_rand(8) == 0 ? 0 : 1 + fz_rand(4);
    for (i = 0; big && i < 64; i++)
        vars[i] = i % 2 ? 1 + fz_rand(8) : 1 + fz_rand(600);
    memset(in, 0, sizeof(tc_tensor) * (size_t)d->n_inputs);
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        in[i].dtype = t->dtype;
        in[i].rank = t->rank;
        for (k = 0; k < t->rank; k++) {
            const tc_sx *s = &d->sx[t->extent[k]];
            in[i].shape[k] = s->op == TC_SX_VAR ? vars[s->value % 64]
                             : s->op == TC_SX_CONST && s->value >= 0 && s->value < 50 ? s->value
                                                                                      : 1;
        }
        in[i].data = calloc((size_t)ref_numel(&in[i]) + 1, 8);
        if (t->rank == 0 &&
            !ref_is_float(t->dtype)) { /* maybe a size: mostly small, rarely hostile */
            ref_val v = {0, 0};
            int pick = fz_rand(20);
            v.u = pick == 0 ? (uint64_t)1 << 40 : pick == 1 ? (uint64_t)-3 : (uint64_t)fz_rand(6);
            ref_store(t->dtype, in[i].data, v);
        } else {
            kc_fill(&in[i], -3, 6, 0, &fz_rng);
        }
    }
}

/* Runs a compiled program; outputs freed. compare: 0 no reference, 1 the
   reference exactly, 2 within the float reduction tolerance. */
static void fz_run(const tc_program *p, int compare) {
    const tc_ir_def *d = tc_program_ir(p, tc_program_find(p, NULL));
    tc_tensor in[32], out[32], ref[32];
    tc_run_desc rd;
    tc_error err;
    tc_status st, rst = TC_OK;
    char why[256];
    int i;
    if (!d || d->n_inputs > 32 || d->n_outputs > 32) return;
    fz_inputs(d, in, compare && fz_rand(4) == 0);
    memset(out, 0, sizeof out);
    memset(ref, 0, sizeof ref);
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = d->n_inputs, rd.outputs = out, rd.n_outputs = d->n_outputs;
    memset(&err, 0, sizeof err);
    st = tc_run(p, &rd, &err);
    fz_ran++;
    if ((unsigned)st >= TC_STATUS_COUNT || (st != TC_OK && err.code != st)) fz_bad_status++;
    if (st != TC_OK && !err.msg[0]) fz_no_msg++;
    if (st == TC_OK) fz_ran_ok++;
    if (compare) {
        rst = ref_run(p, NULL, in, d->n_inputs, ref, d->n_outputs, why, sizeof why);
        if ((st == TC_OK) != (rst == TC_OK) ||
            (rst != TC_OK && strncmp(why, "ref: IR bug", 11) == 0) || (rst == TC_ERR_BACKEND)) {
            if (fz_mismatch++ < 5)
                fprintf(stderr, "fuzz: VM %s (%s), reference %s (%s)\n%s\n", tc_status_name(st),
                        err.msg, tc_status_name(rst), why, tc_program_source(p));
        } else if (st == TC_OK) {
            fz_compared++;
            for (i = 0; i < d->n_outputs; i++)
                if (!kc_compare(&out[i], &ref[i], compare == 1 ? KC_EXACT : KC_REDUCE, why,
                                sizeof why) &&
                    fz_mismatch++ < 5)
                    fprintf(stderr, "fuzz: output %d differs: %s\n%s\n", i, why,
                            tc_program_source(p));
        }
        ref_free_outputs(ref, rst == TC_OK ? d->n_outputs : 0);
    }
    for (i = 0; i < d->n_outputs; i++)
        tc_tensor_free(p, &out[i]);
    kc_free_tensors(in, d->n_inputs);
}

/* Compiles one source; runs it when it compiles. */
static void fz_one(const char *src, int compare) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    tc_status st;
    fz_mem mem = {0};
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    cd.allocator.alloc_fn = fz_alloc;
    cd.allocator.realloc_fn = fz_realloc;
    cd.allocator.free_fn = fz_free;
    cd.allocator.user = &mem;
    memset(&err, 0, sizeof err);
    st = tc_compile(&cd, &p, &err);
    if ((unsigned)st >= TC_STATUS_COUNT || (st == TC_OK) != (p != NULL) ||
        (st != TC_OK && err.code != st))
        fz_bad_status++;
    if (st != TC_OK && !err.msg[0]) fz_no_msg++;
    if (st != TC_OK && err.line > 0) { /* the error renders, caret and all */
        char buf[2048];
        int n = tc_error_format(&err, "fuzz.tc", src, buf, sizeof buf);
        if (n <= 0 || strstr(buf, "fuzz.tc:") != buf) fz_bad_status++;
    }
    if (p) {
        fz_compiled++;
        fz_run(p, compare);
        tc_program_free(p);
    }
    if (mem.live != 0 && fz_leaks++ < 5)
        fprintf(stderr, "fuzz: %ld blocks leaked by\n%s\n", mem.live, src);
}

/* ---- generators ---- */
static const char *const fz_tokens[] = {
    "def",         " ",        "(",          ")",     "{",      "}",
    "->",          ",",        "float",      "int32", "int64",  "uint8",
    "double",      "half",     "bool",       "A",     "B",      "C",
    "i",           "j",        "k",          "N",     "M",      "=",
    "+=",          "+=!",      "*=!",        "min=!", "max=",   "where",
    "in",          ":",        "0",          "1",     "2.5",    "1e-3",
    "+",           "-",        "*",          "/",     "%",      "?",
    "<",           "==",       "&&",         "||",    "!",      "exp",
    "tanh",        "fma",      "max",        "min",   ".",      "#",
    "\n",          "exists",   "[",          "]",     ";",      "99999999999999999999",
    "-2147483648", "float(N)", "float(N,M)", "A(i)",  "B(i,j)", "x",
};
#define FZ_NTOK ((int)(sizeof fz_tokens / sizeof fz_tokens[0]))

static void fz_random_bytes(char *s, int cap) {
    int n = fz_rand(cap - 1), i;
    for (i = 0; i < n; i++)
        s[i] = (char)(fz_rand(4) ? 32 + fz_rand(95) : 1 + fz_rand(255));
    s[n] = 0;
}
static void fz_token_soup(char *s, int cap) {
    int n = 0, t = 1 + fz_rand(60);
    s[0] = 0;
    while (t-- > 0) {
        const char *tok = fz_tokens[fz_rand(FZ_NTOK)];
        int len = (int)strlen(tok);
        if (n + len + 2 >= cap) break;
        memcpy(s + n, tok, (size_t)len);
        n += len;
        if (fz_rand(2)) s[n++] = ' ';
        s[n] = 0;
    }
}
/* Byte flips, deletions, duplications, token insertions, truncation, splices. */
static void fz_mutate(const char *base, char *s, int cap) {
    int n = (int)strlen(base), m, k;
    if (n >= cap) n = cap - 1;
    memcpy(s, base, (size_t)n);
    s[n] = 0;
    for (m = 1 + fz_rand(4); m > 0 && n > 0; m--) {
        int at = fz_rand(n), len = 1 + fz_rand(12);
        switch (fz_rand(6)) {
        case 0: s[at] = (char)(32 + fz_rand(95)); break;
        case 1:
            if (at + len > n) len = n - at;
            memmove(s + at, s + at + len, (size_t)(n - at - len + 1));
            n -= len;
            break;
        case 2:
            if (at + len > n) len = n - at;
            if (n + len < cap) {
                memmove(s + at + len, s + at, (size_t)(n - at + 1));
                n += len;
            }
            break;
        case 3: {
            const char *tok = fz_tokens[fz_rand(FZ_NTOK)];
            k = (int)strlen(tok);
            if (n + k < cap) {
                memmove(s + at + k, s + at, (size_t)(n - at + 1));
                memcpy(s + at, tok, (size_t)k);
                n += k;
            }
            break;
        }
        case 4: s[at] = 0, n = at; break;
        default: { /* splice the tail of another source */
            const char *o = kc_cases[fz_rand(KC_N_CASES)].src;
            int ol = (int)strlen(o), from = fz_rand(ol);
            k = ol - from;
            if (at + k >= cap) k = cap - 1 - at;
            memcpy(s + at, o + from, (size_t)k);
            n = at + k;
            s[n] = 0;
        }
        }
    }
}

/* Random well-formed programs: inputs a(N) b(N,M) k(N) q(M) r, one to three
   statements over them. Integer mode uses only integer inputs and
   operators, so the reference comparison is exact. */
typedef struct fz_gen {
    char *s;
    int n, cap, int_only, no_calls, two_d;
} fz_gen;
static void fz_put(fz_gen *g, const char *t) {
    int len = (int)strlen(t);
    if (g->n + len < g->cap) {
        memcpy(g->s + g->n, t, (size_t)len + 1);
        g->n += len;
    }
}
static void fz_expr(fz_gen *g, int depth) {
    static const char *const int_atoms[] = {
        "k(i)", "q(j)", "r",        "i",       "j",       "N",        "M",
        "3",    "-7",   "k(N-1-i)", "q(k(i))", "k(q(j))", "k(i) % 5", "2147483647"};
    static const char *const float_atoms[] = {"a(i)", "b(i,j)", "a(k(i))",  "b(k(i), j)", "s",
                                              "1.5",  "0.0",    "a(N-1-i)", "float(k(i))"};
    static const char *const int_ops[] = {" + ", " - ", " * ", " / ", " % "};
    static const char *const cmp_ops[] = {" < ", " <= ", " == ", " != ", " > ", " >= "};
    static const char *const funcs[] = {"exp", "tanh", "sqrt", "fabs", "log1p", "sin"};
    int pick = depth <= 0 ? 0 : fz_rand(7);
    if (pick == 0) {
        const char *a =
            g->int_only || fz_rand(3) == 0 ? int_atoms[fz_rand(14)] : float_atoms[fz_rand(9)];
        if (!g->two_d && (strchr(a, 'j') || strchr(a, 'q') || strchr(a, 'M')))
            a = g->int_only ? "k(i)" : "a(i)";
        fz_put(g, a);
        return;
    }
    fz_put(g, "(");
    switch (pick) {
    case 1:
    case 2:
    case 3:
        fz_expr(g, depth - 1);
        fz_put(g, int_ops[fz_rand(5)]);
        fz_expr(g, depth - 1);
        break;
    case 4:
        fz_expr(g, depth - 1);
        fz_put(g, cmp_ops[fz_rand(6)]);
        fz_expr(g, depth - 1);
        fz_put(g, " ? ");
        fz_expr(g, depth - 1);
        fz_put(g, " : ");
        fz_expr(g, depth - 1);
        break;
    case 5:
        fz_put(g, fz_rand(2) ? "min(" : "max(");
        fz_expr(g, depth - 1);
        fz_put(g, ", ");
        fz_expr(g, depth - 1);
        fz_put(g, ")");
        break;
    default:
        if (g->int_only || g->no_calls) {
            fz_put(g, fz_rand(2) || !g->int_only ? "-(" : "int8(");
            fz_expr(g, depth - 1);
            fz_put(g, ")");
            break;
        }
        fz_put(g, funcs[fz_rand(6)]);
        fz_put(g, "(");
        fz_expr(g, depth - 1);
        fz_put(g, ")");
    }
    fz_put(g, ")");
}
/* kind: 0 float with builtins, 1 integers only, 2 float without builtins
   (IEEE-exact per point, so only reductions differ in rounding). */
static void fz_generate(char *s, int cap, int kind) {
    static const char *const reds[] = {" = ",     " +=! ", " *=! ", " min=! ",
                                       " max=! ", " += ",  " max= "};
    fz_gen g;
    int st, n_st = 1 + fz_rand(3);
    int int_only = kind == 1;
    g.s = s, g.n = 0, g.cap = cap, g.int_only = int_only, g.no_calls = kind == 2;
    s[0] = 0;
    fz_put(&g, int_only ? "def g(int32(N) k, int64(M) q, int32 r) -> (o) {\n"
                        : "def g(float(N) a, float(N,M) b, int32(N) k, int64(M) q, int32 r, float "
                          "s) -> (o) {\n");
    for (st = 0; st < n_st; st++) {
        int red = fz_rand(7);
        g.two_d = red != 0 || fz_rand(2);
        fz_put(&g, st == n_st - 1 ? "    o(i)" : fz_rand(2) ? "    t(i)" : "    o(i)");
        fz_put(&g, red == 0 && g.two_d ? " +=! " : reds[red]);
        /* an access that gives i (and j) a range, then the random part */
        fz_put(&g, int_only  ? (g.two_d ? "k(i) + q(j) + " : "k(i) + ")
                   : g.two_d ? "b(i,j) + "
                             : "a(i) + ");
        fz_expr(&g, 1 + fz_rand(4));
        if (fz_rand(4) == 0)
            fz_put(&g, " where i in 0:N");
        else if (g.two_d && fz_rand(4) == 0)
            fz_put(&g, " where j in 0:M");
        fz_put(&g, "\n");
    }
    fz_put(&g, "}\n");
}

static void test_random_bytes(void) {
    char s[256];
    int i;
    for (i = 0; i < 1500; i++) {
        fz_random_bytes(s, (int)sizeof s);
        fz_one(s, 0);
    }
}
static void test_token_soup(void) {
    char s[1024];
    int i;
    for (i = 0; i < 1500; i++) {
        fz_token_soup(s, (int)sizeof s);
        fz_one(s, 0);
    }
}
static void test_mutations(void) {
    char s[2048];
    int i;
    for (i = 0; i < 3000; i++) {
        fz_mutate(kc_cases[fz_rand(KC_N_CASES)].src, s, (int)sizeof s);
        fz_one(s, 0);
    }
}
static void test_generated(void) {
    char s[4096];
    const char *env = getenv("TC_FUZZ_ROUNDS");
    int i, compiled0 = fz_compiled, rounds = env ? atoi(env) : 1000;
    for (i = 0; i < rounds; i++) {
        fz_generate(s, (int)sizeof s, 0);
        fz_one(s, 0);
        fz_generate(s, (int)sizeof s, 1);
        fz_one(s, 1);
        fz_generate(s, (int)sizeof s, 2);
        fz_one(s, 2);
    }
    CHECKF(fz_compiled - compiled0 > 300, "only %d generated programs compiled",
           fz_compiled - compiled0);
    CHECKF(fz_compared > 200, "only %d programs compared with the reference", fz_compared);
}
/* Every valid kernel source, truncated at every byte. */
static void test_truncations(void) {
    char s[2048];
    int i, n;
    for (i = 0; i < KC_N_CASES; i += 3) {
        int len = (int)strlen(kc_cases[i].src);
        for (n = 0; n < len && n < (int)sizeof s; n++) {
            memcpy(s, kc_cases[i].src, (size_t)n);
            s[n] = 0;
            fz_one(s, 0);
        }
    }
}
/* Hostile shapes of source: deep nesting, long chains, huge literals. */
static void test_hostile(void) {
    static const char *const fixed[] = {
        "def f(float(N) a) -> (b) { b(i) = a(i) where i in 0:1000000000000 }",
        "def f(float(1000000000000) a) -> (b) { b(i) = a(i) }",
        "def f(float(N) a) -> (b) { b(i, j, k, l, m, n, o, p, q) = a(i) }",
        "def f(float(N) a) -> (b) { b(i) = a(i) where j in 0:4611686018427387904, k in "
        "0:4611686018427387904 }",
        "def f(int32 R, float(N) a) -> (b) { b(r, s, t) = a(0) where r in 0:R, s in 0:R, t in 0:R "
        "}",
        "def f(float(N) a) -> (b) { b(i) = a(i * 9223372036854775807) }",
        "def f(float(N) a) -> (b) { b(i) = a(i / 0) where i in 0:N }",
        "def f(float(N) a) -> (b) { b(i) = a(i % 0 + i) }",
        "def f(float(N,N,N,N,N,N,N,N,N) a) -> (b) { b(i) = a(i,i,i,i,i,i,i,i,i) }",
        "def f() -> () { }",
        "def f(float(N) a) -> (a) { a(i) = 1.0 }",
        "def f(float(N) a) -> (b) { b(i) = f(a)(i) }",
        "def f(float(N) a) -> (b) { b = f(a) }",
    };
    static char buf[1 << 20];
    int i, depth;
    for (i = 0; i < (int)(sizeof fixed / sizeof fixed[0]); i++)
        fz_one(fixed[i], 0);
    for (depth = 10; depth <= 100000; depth *= 10) { /* parentheses, unary minus, ?: chains */
        int n = 0, k;
        n += sprintf(buf + n, "def f(float(N) a) -> (b) { b(i) = ");
        for (k = 0; k < depth; k++)
            buf[n++] = '(';
        n += sprintf(buf + n, "a(i)");
        for (k = 0; k < depth; k++)
            buf[n++] = ')';
        sprintf(buf + n, " }");
        fz_one(buf, 0);
        n = sprintf(buf, "def f(float(N) a) -> (b) { b(i) = ");
        for (k = 0; k < depth; k++)
            buf[n++] = '-';
        sprintf(buf + n, "a(i) }");
        fz_one(buf, 0);
        n = sprintf(buf, "def f(float(N) a) -> (b) { b(i) = a(i)");
        for (k = 0; k < depth && n < (int)sizeof buf - 64; k++)
            n += sprintf(buf + n, " + a(i)");
        sprintf(buf + n, " }");
        fz_one(buf, 0);
        n = sprintf(buf, "def f(float(N) a) -> (b) { b(i) = ");
        for (k = 0; k < depth && n < (int)sizeof buf - 64; k++)
            n += sprintf(buf + n, "a(i) > 0.0 ? ");
        n += sprintf(buf + n, "1.0");
        for (k = 0; k < depth && n < (int)sizeof buf - 64; k++)
            n += sprintf(buf + n, " : 2.0");
        sprintf(buf + n, " }");
        fz_one(buf, 0);
    }
    { /* many statements and many defs */
        int n = sprintf(buf, "def f(float(N) a) -> (b) {\n b(i) = a(i)\n");
        for (i = 0; i < 3000; i++)
            n += sprintf(buf + n, " b(i) += a(i)\n");
        sprintf(buf + n, "}\n");
        fz_one(buf, 0);
        n = 0;
        for (i = 0; i < 500; i++)
            n += sprintf(buf + n, "def f%d(float(N) a) -> (b) { b(i) = a(i) }\n", i);
        fz_one(buf, 0);
    }
}

int main(void) {
    const char *seed = getenv("TC_FUZZ_SEED");
    if (seed) fz_rng.s = strtoull(seed, NULL, 10);
    RUN(test_hostile);
    RUN(test_random_bytes);
    RUN(test_token_soup);
    RUN(test_truncations);
    RUN(test_mutations);
    RUN(test_generated);
    th_current = "totals";
    CHECKF(fz_bad_status == 0, "%d bad statuses or inconsistent errors", fz_bad_status);
    CHECKF(fz_no_msg == 0, "%d failures without a message", fz_no_msg);
    CHECKF(fz_leaks == 0, "%d cases leaked", fz_leaks);
    CHECKF(fz_mismatch == 0, "%d differences from the reference", fz_mismatch);
    CHECKF(fz_ran > 0 && fz_ran_ok > 0, "nothing ran (%d runs, %d ok)", fz_ran, fz_ran_ok);
    printf("fuzz: %d compiled, %d runs (%d ok), %d compared with the reference\n", fz_compiled,
           fz_ran, fz_ran_ok, fz_compared);
    return th_report();
}
