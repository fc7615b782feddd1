/* tc - the command-line tool for tc.h.

       tc check  FILE.tc
       tc infer  FILE.tc [--entry NAME] [--json] [SIZE=VALUE ...]
       tc run    FILE.tc [--entry NAME] -i NAME=IN.npy ... -o OUTDIR
                 [--threads N] [--time [--reps R]] [--backend vm|opencl]
                 [--unchecked-gathers]
       tc disasm FILE.tc [--entry NAME]
       tc loops  FILE.tc [--entry NAME]
       tc opencl FILE.tc [--entry NAME] [SIZE=VALUE ...]
       tc c      FILE.tc [--entry NAME] [SIZE=VALUE ...] [--driver] [-o OUT.c]
       tc bench  FILE.tc [--entry NAME] SIZE=VALUE ... [--threads N] [--reps R]
                 [--discard NAME,...]

   Exit status: 0 success, 1 an error in the input (source, .npy files,
   sizes, a run that fails its checks), 2 a usage error (unknown command or
   option, a name on the command line that the source does not define, a
   missing required argument: an input, or a size the command needs).
   Errors go to stderr as "FILE:LINE:COL: error: MSG" with the source line
   and a caret, or "FILE: error: MSG".

   Build: make, which adds the OpenCL flags where OpenCL is installed. By
   hand: cc -std=c99 -O2 -I. tools/tc.c -o build/tc -lm -pthread (no
   `tc opencl` or `tc c`), or with -DTC_CLI_HAVE_OPENCL_H for them (and
   -DTC_OPENCL_RUNNER ... -lOpenCL for --backend opencl). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, mkdir */
#define TC_IMPLEMENTATION
#include "tc.h"
#if defined(TC_CLI_HAVE_OPENCL_H)
#define TC_OPENCL_IMPLEMENTATION
#include "tc_opencl.h"
#endif
#include "tools/npy.h"
#if defined(TC_CLI_HAVE_OPENCL_H)
#include "tools/c_driver.h"
#endif

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* Each command's synopsis, as `tc --help` and `tc COMMAND --help` print it
   and a usage error repeats it. */
static const char *const usage_check =
    "  check  FILE.tc                         check every def; errors as FILE:LINE:COL\n";
static const char *const usage_infer =
    "  infer  FILE.tc [--entry NAME] [--json] [SIZE=VALUE ...]\n"
    "                                         inferred index ranges and tensor shapes;\n"
    "                                         numbers when every size is given\n";
static const char *const usage_run =
    "  run    FILE.tc [--entry NAME] -i NAME=IN.npy ... -o OUTDIR\n"
    "         [--threads N] [--time [--reps R]] [--backend vm|opencl]\n"
    "         [--unchecked-gathers]            run a def on .npy inputs; writes OUTDIR/OUT.npy;\n"
    "                                         a 0-rank input may be a number: -i dt=0.016\n";
static const char *const usage_disasm =
    "  disasm FILE.tc [--entry NAME]          VM bytecode\n";
static const char *const usage_loops =
    "  loops  FILE.tc [--entry NAME]          loop nests as C-like pseudo code\n";
static const char *const usage_opencl =
    "  opencl FILE.tc [--entry NAME] [SIZE=VALUE ...]\n"
    "                                         generated OpenCL C kernels\n";
static const char *const usage_c =
    "  c      FILE.tc [--entry NAME] [SIZE=VALUE ...] [--driver] [-o OUT.c]\n"
    "                                         generated C99: int NAME(inputs, outputs, sizes)\n"
    "                                         and NAME_call; --driver adds a main() that runs\n"
    "                                         it on .npy files (./prog X=x.npy ... -o OUTDIR)\n";
static const char *const usage_bench =
    "  bench  FILE.tc [--entry NAME] SIZE=VALUE ... [--threads N] [--reps R]\n"
    "         [--discard NAME,...]            time a def on random inputs of these sizes;\n"
    "                                         discarded outputs are not kept\n";
static const char *const usage_explain =
    "  explain FILE.tc [--entry NAME] SIZE=VALUE ... [--threads N]\n"
    "                                         how the VM runs each statement at these\n"
    "                                         sizes: lanes, mechanism and why, threads\n";
static const char usage_common[] =
    "every command: -q / --no-warnings (no warnings), -h / --help (its usage)\n";
static const char usage_exit[] = "exit status: 0 ok, 1 error in the input, 2 usage error\n";
static const char usage_notes[] =
    "SIZE names a size variable or a 0-rank integer input of the def.\n"
    "--threads defaults to the number of online CPUs (at most TC_MAX_THREADS);\n"
    "results are bitwise identical for every thread count.\n"
    "Without --entry: infer, disasm and loops show every def; the other\n"
    "commands (and infer --json) use the last def of the file.\n"
    "Warnings are shown for the defs a command shows or runs.\n";

/* ==== Options ============================================================ */

typedef struct cli_size {
    const char *name;
    int64_t value;
} cli_size;
typedef struct cli_input {
    const char *name, *path;
} cli_input;

typedef struct cli {
    const char *cmd, *file, *entry, *outdir, *backend;
    const char *out_file; /* c: -o OUT.c */
    int driver;           /* c: --driver */
    const char *discard; /* bench: outputs not wanted, comma-separated */
    int json, time, threads, reps, unchecked, quiet;
    cli_size *sizes;
    int n_sizes;
    cli_input *inputs;
    int n_inputs;
    char *src;        /* the source text */
    tc_program *prog; /* compiled */
} cli;

/* Option flags a command accepts. */
enum {
    OPT_ENTRY = 1,
    OPT_JSON = 2,
    OPT_SIZES = 4,
    OPT_RUN = 8, /* -i -o --time --backend --unchecked-gathers */
    OPT_THREADS = 16,
    OPT_REPS = 32,
    OPT_DISCARD = 64,
    OPT_CEMIT = 128 /* --driver, -o OUT.c */
};

typedef struct cli_command {
    const char *name;
    int opts;
    int (*fn)(cli *c);
    const char *const *usage;
} cli_command;

/* One line: main adds the command's synopsis (not the whole usage). */
static int usage_error(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "tc: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

/* "FILE: error: MSG" for errors not tied to a source position. */
static int input_error(const char *file, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: error: ", file);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_INPUT;
}

/* Parses a whole decimal int64 ("12", "-3"); 1 on success. */
static int parse_int64(const char *s, int64_t *out) {
    char *end;
    long long v;
    if (!s || !*s) return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || *end || end == s) return 0;
    *out = (int64_t)v;
    return 1;
}

/* The value of an option: "--opt=VALUE" or "--opt VALUE"; NULL when there
   is none. A next argument that looks like an option (a dash and then not
   a digit: "-o --time", "-o -i A=a.npy", the directory forgotten) is not
   taken as the value; "--opt=-x" or "-o ./-x" still names such a value,
   and "--threads -1" is a (bad) number. */
static const char *option_value(int argc, char **argv, int *i, const char *opt) {
    size_t n = strlen(opt);
    const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strncmp(argv[*i], opt, n) == 0 && argv[*i][n] == '=') return argv[*i] + n + 1;
    if (next && !(next[0] == '-' && next[1] != '\0' && !isdigit((unsigned char)next[1]))) {
        ++*i;
        return next;
    }
    return NULL;
}

static int is_opt(const char *arg, const char *opt) {
    size_t n = strlen(opt);
    return strncmp(arg, opt, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_size_arg(cli *c, const char *arg) {
    const char *eq = strchr(arg, '=');
    size_t n = (size_t)(eq - arg);
    int i;
    char *name;
    if (n == 0) return usage_error("bad size '%s': expected SIZE=VALUE", arg);
    name = (char *)malloc(n + 1);
    if (!name) return input_error("tc", "out of memory");
    memcpy(name, arg, n);
    name[n] = '\0';
    for (i = 0; i < c->n_sizes; i++)
        if (strcmp(c->sizes[i].name, name) == 0) {
            free(name);
            return usage_error("size %.*s given twice", (int)n, arg);
        }
    c->sizes[c->n_sizes].name = name;
    if (!parse_int64(eq + 1, &c->sizes[c->n_sizes].value)) {
        c->n_sizes++; /* freed with the others */
        return usage_error("size %s: '%s' is not an integer", name, eq + 1);
    }
    c->n_sizes++;
    return 0;
}

static int parse_input_arg(cli *c, const char *arg) {
    const char *eq = arg ? strchr(arg, '=') : NULL;
    int i;
    if (!eq || eq == arg || !eq[1]) return usage_error("bad input '%s': expected -i NAME=PATH.npy",
                                                       arg ? arg : "");
    for (i = 0; i < c->n_inputs; i++)
        if (strncmp(c->inputs[i].name, arg, (size_t)(eq - arg)) == 0 &&
            c->inputs[i].name[eq - arg] == '=')
            return usage_error("input %.*s given twice", (int)(eq - arg), arg);
    c->inputs[c->n_inputs].name = arg; /* "NAME=PATH"; compared up to '=' */
    c->inputs[c->n_inputs].path = eq + 1;
    c->n_inputs++;
    return 0;
}

static int parse_count(const char *opt, const char *v, int lo, int hi, int *out) {
    int64_t n;
    if (!v) return usage_error("%s needs a value", opt);
    if (!parse_int64(v, &n) || n < lo || n > hi)
        return usage_error("%s: '%s' is not an integer in %d..%d", opt, v, lo, hi);
    *out = (int)n;
    return 0;
}

/* Options of the run command; returns -1 when arg is none of them. */
static int parse_run_option(cli *c, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (strcmp(a, "-i") == 0 || is_opt(a, "--input"))
        return parse_input_arg(c, option_value(argc, argv, i, "--input"));
    if (strncmp(a, "-i", 2) == 0 && strchr(a, '=')) return parse_input_arg(c, a + 2);
    if (strcmp(a, "-o") == 0 || is_opt(a, "--output")) {
        if (c->outdir) return usage_error("-o given twice");
        c->outdir = option_value(argc, argv, i, "--output");
        return c->outdir && *c->outdir ? 0 : usage_error("-o needs a directory");
    }
    if (strcmp(a, "--time") == 0) return c->time = 1, 0;
    if (strcmp(a, "--unchecked-gathers") == 0) return c->unchecked = 1, 0;
    if (is_opt(a, "--backend")) {
        c->backend = option_value(argc, argv, i, "--backend");
        if (!c->backend || (strcmp(c->backend, "vm") && strcmp(c->backend, "opencl")))
            return usage_error("--backend must be vm or opencl");
        return 0;
    }
    return -1;
}

static int parse_option(cli *c, int opts, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    int rc;
    if (strcmp(a, "-q") == 0 || strcmp(a, "--no-warnings") == 0) return c->quiet = 1, 0;
    if ((opts & OPT_ENTRY) && is_opt(a, "--entry")) {
        c->entry = option_value(argc, argv, i, "--entry");
        return c->entry && *c->entry ? 0 : usage_error("--entry needs a def name");
    }
    if ((opts & OPT_JSON) && strcmp(a, "--json") == 0) return c->json = 1, 0;
    if ((opts & OPT_CEMIT) && strcmp(a, "--driver") == 0) return c->driver = 1, 0;
    if ((opts & OPT_CEMIT) && (strcmp(a, "-o") == 0 || is_opt(a, "--output"))) {
        if (c->out_file) return usage_error("-o given twice");
        c->out_file = option_value(argc, argv, i, "--output");
        return c->out_file && *c->out_file ? 0 : usage_error("-o needs a file name");
    }
    if ((opts & OPT_THREADS) && is_opt(a, "--threads"))
        return parse_count("--threads", option_value(argc, argv, i, "--threads"), 1,
                           TC_MAX_THREADS, &c->threads);
    if ((opts & OPT_REPS) && is_opt(a, "--reps"))
        return parse_count("--reps", option_value(argc, argv, i, "--reps"), 1, 1000000, &c->reps);
    if ((opts & OPT_DISCARD) && is_opt(a, "--discard")) {
        c->discard = option_value(argc, argv, i, "--discard");
        return c->discard && *c->discard ? 0 : usage_error("--discard needs output names");
    }
    if ((opts & OPT_RUN) && (rc = parse_run_option(c, argc, argv, i)) >= 0) return rc;
    return usage_error("%s: unknown option '%s'", c->cmd, a);
}

static int parse_args(cli *c, int opts, int argc, char **argv) {
    int i, rc;
    c->sizes = (cli_size *)calloc((size_t)argc, sizeof(cli_size));
    c->inputs = (cli_input *)calloc((size_t)argc, sizeof(cli_input));
    if (!c->sizes || !c->inputs) return input_error("tc", "out of memory");
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] != '\0') rc = parse_option(c, opts, argc, argv, &i);
        else if (strchr(a, '=') && (opts & OPT_SIZES)) rc = parse_size_arg(c, a);
        else if (!c->file) c->file = a, rc = 0;
        else rc = usage_error("%s: unexpected argument '%s'", c->cmd, a);
        if (rc) return rc;
    }
    if (!c->file) return usage_error("%s: no FILE.tc given", c->cmd);
    return 0;
}

static void cli_free(cli *c) {
    int i;
    for (i = 0; i < c->n_sizes; i++) free((void *)(uintptr_t)c->sizes[i].name);
    free(c->sizes);
    free(c->inputs);
    free(c->src);
    tc_program_free(c->prog);
}

/* ==== Source and compilation ============================================= */

/* Reads a whole file as a NUL-terminated string of *len bytes (a NUL
   inside ends the string early); NULL with a message. */
static char *read_source(const char *path, char *err, size_t cap, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, room = 0;
    if (!f) {
        snprintf(err, cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (len + 1 >= room) {
            char *nb;
            if (room > (size_t)TC_MAX_SOURCE) {
                snprintf(err, cap, "source larger than TC_MAX_SOURCE (%lu bytes)",
                         (unsigned long)TC_MAX_SOURCE);
                break;
            }
            room = room ? room * 2 : 65536;
            nb = (char *)realloc(buf, room);
            if (!nb) {
                snprintf(err, cap, "out of memory");
                break;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, room - len - 1, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, cap, "read error: %s", strerror(errno));
                break;
            }
            fclose(f);
            buf[len] = '\0';
            *len_out = len;
            return buf;
        }
    }
    fclose(f);
    free(buf);
    return NULL;
}

/* Prints an error or warning with the source line and caret. */
static void print_error(const tc_error *e, const char *file, const char *src) {
    char small[1024];
    int n = tc_error_format(e, file, src, small, sizeof small);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        fputs(small, stderr);
    } else {
        char *big = (char *)malloc((size_t)n + 1);
        if (!big) {
            fputs(small, stderr);
            return;
        }
        tc_error_format(e, file, src, big, (size_t)n + 1);
        fputs(big, stderr);
        free(big);
    }
}

/* A NUL byte ends the C string tc_compile takes, so the CLI reports it
   itself, at its line and column like any source error. */
static int nul_byte_error(const char *file, const char *src) {
    tc_error e;
    const char *p, *line_start = src;
    memset(&e, 0, sizeof e);
    e.code = TC_ERR_SYNTAX;
    e.line = 1;
    for (p = src; *p; p++) /* \n, \r\n or a lone \r ends a line, as in the lexer */
        if (*p == '\n' || (*p == '\r' && p[1] != '\n')) {
            e.line++;
            line_start = p + 1;
        }
    e.col = (int)(p - line_start) + 1;
    e.offset = (int)(p - src);
    e.length = 1;
    snprintf(e.msg, sizeof e.msg, "unexpected character (byte 0x00): a NUL byte in the source");
    print_error(&e, file, src);
    return EXIT_INPUT;
}

/* Reads and compiles c->file; prints errors and warnings. 0 or exit status. */
static int compile_file(cli *c) {
    tc_compile_desc cd;
    tc_error err;
    char msg[256];
    size_t len;
    c->src = read_source(c->file, msg, sizeof msg, &len);
    if (!c->src) return input_error(c->file, "%s", msg);
    if (strlen(c->src) != len) return nul_byte_error(c->file, c->src);
    memset(&cd, 0, sizeof cd);
    cd.source = c->src;
    cd.name = c->file;
    if (tc_compile(&cd, &c->prog, &err) != TC_OK) {
        print_error(&err, c->file, c->src);
        return EXIT_INPUT;
    }
    return 0;
}

/* The warnings of def `def` (-1: of every def), unless -q. */
static void print_warnings(const cli *c, int def) {
    int i;
    if (c->quiet) return;
    for (i = 0; i < tc_program_num_warnings(c->prog); i++)
        if (def < 0 || tc_program_warning_def(c->prog, i) == def)
            print_error(tc_program_warning(c->prog, i), c->file, c->src);
}

/* The def --entry names, or the default def, with its warnings. -1 after
   a usage error. */
static int find_def(cli *c) {
    int d = tc_program_find(c->prog, c->entry), i;
    if (d >= 0) {
        print_warnings(c, d);
        return d;
    }
    if (!c->entry) {
        input_error(c->file, "the source has no def");
        return -1;
    }
    fprintf(stderr, "tc: error: %s has no def named '%s'; its defs:", c->file, c->entry);
    for (i = 0; i < tc_program_num_defs(c->prog); i++)
        fprintf(stderr, " %s", tc_program_ir(c->prog, i)->name);
    fprintf(stderr, "\n");
    return -1;
}

/* ==== Text helpers ======================================================= */

static void print_sx(FILE *f, const tc_ir_def *d, int id) {
    char small[256];
    int n = tc_sx_format(d, id, small, sizeof small);
    if (n >= 0 && (size_t)n < sizeof small) {
        fputs(small, f);
    } else {
        char *big = (char *)malloc((size_t)n + 1);
        if (big) tc_sx_format(d, id, big, (size_t)n + 1);
        fputs(big ? big : small, f);
        free(big);
    }
}

static void print_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* Runs a snprintf-style renderer into a malloc'd string. */
typedef int (*render_fn)(const void *obj, int def, char *buf, size_t cap);
static char *render(render_fn fn, const void *obj, int def) {
    int n = fn(obj, def, NULL, 0);
    char *s;
    if (n < 0) return NULL;
    s = (char *)malloc((size_t)n + 1);
    if (!s) return NULL;
    fn(obj, def, s, (size_t)n + 1);
    return s;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ==== Tensors ============================================================ */

/* Bytes of a C-order tensor; 0 with *ok = 0 on overflow or a bad shape. */
static size_t tensor_bytes(const tc_tensor *t, int *ok) {
    size_t n = tc_dtype_size(t->dtype);
    int d;
    if (t->dtype == TC_DTYPE_UNSET) return *ok = 1, 0; /* a discarded output: left alone */
    *ok = n > 0 && t->rank >= 0 && t->rank <= TC_MAX_RANK;
    for (d = 0; *ok && d < t->rank; d++) {
        if (t->shape[d] < 0 || (uint64_t)t->shape[d] > (uint64_t)SIZE_MAX) *ok = 0;
        else if (t->shape[d] && n > SIZE_MAX / (size_t)t->shape[d]) *ok = 0;
        else n *= (size_t)t->shape[d];
    }
    return *ok ? n : 0;
}

/* Allocates zeroed outputs shaped like `like` (for timing runs). */
static int alloc_like(const tc_tensor *like, tc_tensor *out, int n) {
    int i, ok;
    for (i = 0; i < n; i++) {
        size_t bytes = tensor_bytes(&like[i], &ok);
        out[i] = like[i];
        out[i].data = ok ? calloc(bytes ? bytes : 1, 1) : NULL;
        if (!out[i].data) return 0;
    }
    return 1;
}

static void free_tensors(tc_tensor *t, int n) {
    int i;
    if (!t) return;
    for (i = 0; i < n; i++) free(t[i].data);
    free(t);
}

/* Stores an integer value into a 0-rank tensor buffer of integer dtype. */
static void store_scalar(tc_tensor *t, int64_t v) {
    switch (t->dtype) {
    case TC_INT8: *(int8_t *)t->data = (int8_t)v; break;
    case TC_INT16: *(int16_t *)t->data = (int16_t)v; break;
    case TC_INT32: *(int32_t *)t->data = (int32_t)v; break;
    case TC_INT64: *(int64_t *)t->data = v; break;
    case TC_UINT8: *(uint8_t *)t->data = (uint8_t)v; break;
    case TC_UINT16: *(uint16_t *)t->data = (uint16_t)v; break;
    case TC_UINT32: *(uint32_t *)t->data = (uint32_t)v; break;
    case TC_UINT64: *(uint64_t *)t->data = (uint64_t)v; break;
    case TC_BOOL: *(unsigned char *)t->data = (unsigned char)(v != 0); break;
    default: break;
    }
}

/* ==== Sizes: SIZE=VALUE bound to a def =================================== */

static int is_int_dtype(tc_dtype t) {
    return t != TC_BOOL && t != TC_FLOAT16 && t != TC_FLOAT32 && t != TC_FLOAT64;
}

/* 1 when `name` is a size of d: a size variable or a 0-rank integer input. */
static int def_has_size(const tc_ir_def *d, const char *name) {
    int i;
    for (i = 0; i < d->n_sizevars; i++)
        if (strcmp(d->sizevars[i], name) == 0) return 1;
    for (i = 0; i < d->n_inputs; i++)
        if (d->tensors[i].rank == 0 && is_int_dtype(d->tensors[i].dtype) &&
            strcmp(d->tensors[i].name, name) == 0)
            return 1;
    return 0;
}

/* 1 when input i's value is used in a size expression. */
static int scalar_used(const tc_ir_def *d, int input) {
    int i;
    for (i = 0; i < d->n_sx; i++)
        if (d->sx[i].op == TC_SX_SCALAR && d->sx[i].value == input) return 1;
    return 0;
}

static const cli_size *find_size(const cli *c, const char *name) {
    int i;
    for (i = 0; i < c->n_sizes; i++)
        if (strcmp(c->sizes[i].name, name) == 0) return &c->sizes[i];
    return NULL;
}

/* The range of an integer dtype (uint64's top half cannot be typed). */
static void int_dtype_range(tc_dtype t, int64_t *lo, int64_t *hi) {
    int bits = 8 * (int)tc_dtype_size(t);
    int is_unsigned = t == TC_UINT8 || t == TC_UINT16 || t == TC_UINT32 || t == TC_UINT64;
    if (bits >= 64) {
        *lo = is_unsigned ? 0 : INT64_MIN;
        *hi = INT64_MAX;
    } else if (is_unsigned) {
        *lo = 0;
        *hi = ((int64_t)1 << bits) - 1;
    } else {
        *lo = -((int64_t)1 << (bits - 1));
        *hi = ((int64_t)1 << (bits - 1)) - 1;
    }
}

/* A value given for a 0-rank integer input must fit its dtype: it would
   otherwise wrap, and the sizes shown would not be the ones used. */
static int check_scalar_value(const cli *c, const tc_ir_def *d, const cli_size *s) {
    int i;
    int64_t lo, hi;
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        if (t->rank != 0 || !is_int_dtype(t->dtype) || strcmp(t->name, s->name) != 0) continue;
        int_dtype_range(t->dtype, &lo, &hi);
        if (s->value < lo || s->value > hi)
            return input_error(c->file, "size %s=%lld does not fit %s's type %s (%lld to %lld)",
                               s->name, (long long)s->value, s->name, tc_dtype_name(t->dtype),
                               (long long)lo, (long long)hi);
    }
    return 0;
}

/* Every SIZE=VALUE must name a size of one of the defs shown, and fit it. */
static int check_size_names(const cli *c, const int *defs, int n_defs) {
    int i, k, rc;
    for (i = 0; i < c->n_sizes; i++) {
        int known = 0;
        for (k = 0; k < n_defs; k++) {
            const tc_ir_def *d = tc_program_ir(c->prog, defs[k]);
            known |= def_has_size(d, c->sizes[i].name);
            if ((rc = check_scalar_value(c, d, &c->sizes[i])) != 0) return rc;
        }
        if (!known) {
            const tc_ir_def *d = tc_program_ir(c->prog, defs[0]);
            fprintf(stderr, "tc: error: unknown size '%s'; the sizes of def %s:", c->sizes[i].name,
                    d->name);
            for (k = 0; k < d->n_sizevars; k++) fprintf(stderr, " %s", d->sizevars[k]);
            for (k = 0; k < d->n_inputs; k++)
                if (d->tensors[k].rank == 0 && is_int_dtype(d->tensors[k].dtype))
                    fprintf(stderr, " %s", d->tensors[k].name);
            fprintf(stderr, "\n");
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* Fills vars (n_sizevars) and scalars (n_inputs) from the given sizes.
   Returns the number of missing sizes; names them into `missing` when not NULL. */
static int bind_given_sizes(const cli *c, const tc_ir_def *d, int64_t *vars, int64_t *scalars,
                            char *missing, size_t cap) {
    int i, n_missing = 0;
    size_t len = 0;
    if (missing && cap) missing[0] = '\0';
    for (i = 0; i < d->n_sizevars + d->n_inputs; i++) {
        int is_var = i < d->n_sizevars, k = is_var ? i : i - d->n_sizevars;
        const char *name = is_var ? d->sizevars[k] : d->tensors[k].name;
        const cli_size *s;
        if (!is_var && !(d->tensors[k].rank == 0 && is_int_dtype(d->tensors[k].dtype))) continue;
        s = find_size(c, name);
        if (is_var) vars[k] = s ? s->value : 0;
        else scalars[k] = s ? s->value : 0;
        if (!s && (is_var || scalar_used(d, k))) {
            n_missing++;
            if (missing && len < cap)
                len += (size_t)snprintf(missing + len, cap - len, "%s%s", len ? ", " : "", name);
        }
    }
    return n_missing;
}

/* Input tensors shaped by the sizes: shapes from the sx values, data NULL
   except 0-rank inputs, which get one element (the given value for
   integer sizes). Returns NULL on out of memory. */
static tc_tensor *inputs_from_sizes(const tc_ir_def *d, const int64_t *sx, const int64_t *scalars) {
    tc_tensor *in = (tc_tensor *)calloc((size_t)(d->n_inputs ? d->n_inputs : 1), sizeof(tc_tensor));
    int i, r;
    if (!in) return NULL;
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        in[i].dtype = t->dtype;
        in[i].rank = t->rank;
        for (r = 0; r < t->rank; r++) in[i].shape[r] = sx[t->extent[r]];
        if (t->rank == 0) {
            in[i].data = calloc(1, 8);
            if (!in[i].data) {
                free_tensors(in, d->n_inputs);
                return NULL;
            }
            if (is_int_dtype(t->dtype)) store_scalar(&in[i], scalars[i]);
        }
    }
    return in;
}

/* Evaluates every sx of def `di` with all sizes given, validated by
   tc_bind_sizes (negative extents, conflicting sizes, run-time checks).
   Returns 0, or an exit status after printing the error. */
static int eval_sizes(cli *c, int di, int64_t *sx_out) {
    const tc_ir_def *d = tc_program_ir(c->prog, di);
    int64_t *vars = (int64_t *)calloc((size_t)d->n_sizevars + 1, sizeof(int64_t));
    int64_t *scalars = (int64_t *)calloc((size_t)d->n_inputs + 1, sizeof(int64_t));
    tc_tensor *in = NULL;
    tc_error err;
    int rc = 0;
    if (!vars || !scalars) rc = input_error(c->file, "out of memory");
    if (!rc) bind_given_sizes(c, d, vars, scalars, NULL, 0);
    if (!rc && tc_sx_eval(d, vars, scalars, sx_out, &err) != TC_OK) {
        rc = input_error(c->file, "def %s: %s", d->name, err.msg);
    }
    if (!rc && !(in = inputs_from_sizes(d, sx_out, scalars))) rc = input_error(c->file, "out of memory");
    if (!rc && tc_bind_sizes(c->prog, di, in, d->n_inputs, sx_out, &err) != TC_OK) {
        rc = input_error(c->file, "def %s with these sizes: %s", d->name, err.msg);
    }
    if (in) free_tensors(in, d->n_inputs);
    free(vars);
    free(scalars);
    return rc;
}

/* ==== check ============================================================== */

static int cmd_check(cli *c) {
    int rc = compile_file(c);
    if (!rc) print_warnings(c, -1);
    return rc;
}

/* ==== infer ============================================================== */

/* An sx as text, or as its number when values are known. */
static void print_value(FILE *f, const tc_ir_def *d, int id, const int64_t *sx) {
    if (sx) fprintf(f, "%lld", (long long)sx[id]);
    else print_sx(f, d, id);
}

/* The lowest index written in dimension r of tensor t, for these sizes:
   the least lower bound of its statements that write something, and the
   extent (no index) when none does, as `where i in 3:1` writes nothing
   (the IR's min, symbolic, would say 3 there, past the extent 1). */
static int64_t lowest_written(const tc_ir_def *d, int t, int r, const int64_t *sx) {
    int64_t low = sx[d->tensors[t].extent[r]];
    int i, l;
    if (d->tensors[t].kind == TC_TENSOR_INPUT) return sx[d->tensors[t].min[r]];
    for (i = 0; i < d->n_stmts; i++) {
        const tc_ir_stmt *s = &d->stmts[i];
        int writes = s->tensor == t;
        for (l = 0; l < s->n_loops && writes; l++)
            writes = s->loops[l].reduction || sx[s->loops[l].hi] > sx[s->loops[l].lo];
        if (writes && sx[s->loops[r].lo] < low) low = sx[s->loops[r].lo];
    }
    return low;
}

/* Lowest index written in dimension r: a number with sizes, else the IR's. */
static void print_lowest(FILE *f, const tc_ir_def *d, int t, int r, const int64_t *sx) {
    if (sx) fprintf(f, "%lld", (long long)lowest_written(d, t, r, sx));
    else print_sx(f, d, d->tensors[t].min[r]);
}

static int all_zero_min(const tc_ir_def *d, int t, const int64_t *sx) {
    int r;
    for (r = 0; r < d->tensors[t].rank; r++) {
        const tc_sx *m = &d->sx[d->tensors[t].min[r]];
        if (sx ? lowest_written(d, t, r, sx) != 0 : !(m->op == TC_SX_CONST && m->value == 0))
            return 0;
    }
    return 1;
}

static void print_tensor_text(const tc_ir_def *d, int ti, const int64_t *sx) {
    static const char *const kinds[] = {"input", "output", "temporary"};
    const tc_ir_tensor *t = &d->tensors[ti];
    int r;
    printf("  %s %s: %s", kinds[t->kind], t->name, tc_dtype_name(t->dtype));
    for (r = 0; r < t->rank; r++) { /* TC's spelling: float32(M, N); 0-rank: float32 */
        printf(r ? ", " : "(");
        print_value(stdout, d, t->extent[r], sx);
    }
    if (t->rank) printf(")");
    if (!all_zero_min(d, ti, sx)) {
        printf(", lowest index written (");
        for (r = 0; r < t->rank; r++) {
            if (r) printf(", ");
            print_lowest(stdout, d, ti, r, sx);
        }
        printf(")");
    }
    printf("\n");
}

static void print_def_text(const cli *c, const tc_ir_def *d, const int64_t *sx, const char *missing) {
    int i, l;
    printf("def %s (line %d)\n", d->name, d->line);
    if (sx) {
        int shown = 0;
        printf("  sizes:");
        for (i = 0; i < c->n_sizes; i++)
            if (def_has_size(d, c->sizes[i].name)) {
                printf(" %s=%lld", c->sizes[i].name, (long long)c->sizes[i].value);
                shown = 1;
            }
        printf("%s\n", shown ? "" : " none (every extent is a number)");
    } else { /* missing size variables, 0-rank integer inputs, or both */
        printf("  sizes: symbolic (missing: %s)\n", missing);
    }
    for (i = 0; i < d->n_stmts; i++) {
        const tc_ir_stmt *s = &d->stmts[i];
        printf("  statement %d (line %d): %s\n", i + 1, s->line, s->text ? s->text : "");
        for (l = 0; l < s->n_loops; l++) {
            printf("    %s in [", s->loops[l].name);
            print_value(stdout, d, s->loops[l].lo, sx);
            printf(", ");
            print_value(stdout, d, s->loops[l].hi, sx);
            printf(")%s\n", s->loops[l].reduction ? "  reduction" : "");
        }
    }
    for (i = d->n_inputs; i < d->n_tensors; i++) print_tensor_text(d, i, sx);
}

static void print_json_dims(const int *ids, int rank, const int64_t *sx) {
    int r;
    printf("[");
    for (r = 0; r < rank; r++) printf("%s%lld", r ? ", " : "", (long long)sx[ids[r]]);
    printf("]");
}

/* "NAME": {"dtype": ..., "shape": [...], "min": [...]} for tensors of one kind. */
static void print_json_tensors(const tc_ir_def *d, tc_tensor_kind kind, const int64_t *sx) {
    int i, r, first = 1;
    printf("{");
    for (i = 0; i < d->n_tensors; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        if (t->kind != kind) continue;
        printf("%s", first ? "" : ", ");
        first = 0;
        print_json_string(stdout, t->name);
        printf(": {\"dtype\": \"%s\", \"shape\": ", tc_dtype_name(t->dtype));
        print_json_dims(t->extent, t->rank, sx);
        printf(", \"min\": [");
        for (r = 0; r < t->rank; r++) printf("%s%lld", r ? ", " : "", (long long)lowest_written(d, i, r, sx));
        printf("]}");
    }
    printf("}");
}

static void print_json_stmt(const tc_ir_def *d, const tc_ir_stmt *s, const int64_t *sx) {
    static const char *const ops[] = {"=", "+=", "*=", "min=", "max="};
    int l;
    printf("{\"line\": %d, \"text\": ", s->line);
    print_json_string(stdout, s->text);
    printf(", \"tensor\": ");
    print_json_string(stdout, d->tensors[s->tensor].name);
    printf(", \"op\": \"%s%s\", \"loops\": [", ops[s->reduce], s->init ? "!" : "");
    for (l = 0; l < s->n_loops; l++) {
        printf("%s{\"name\": ", l ? ", " : "");
        print_json_string(stdout, s->loops[l].name);
        printf(", \"lo\": %lld, \"hi\": %lld, \"reduction\": %s}", (long long)sx[s->loops[l].lo],
               (long long)sx[s->loops[l].hi], s->loops[l].reduction ? "true" : "false");
    }
    printf("]}");
}

static void print_def_json(const cli *c, const tc_ir_def *d, const int64_t *sx) {
    int i, first = 1;
    printf("{\"def\": ");
    print_json_string(stdout, d->name);
    printf(", \"sizes\": {");
    for (i = 0; i < c->n_sizes; i++) {
        if (!def_has_size(d, c->sizes[i].name)) continue;
        printf("%s", first ? "" : ", ");
        first = 0;
        print_json_string(stdout, c->sizes[i].name);
        printf(": %lld", (long long)c->sizes[i].value);
    }
    printf("}, \"inputs\": ");
    print_json_tensors(d, TC_TENSOR_INPUT, sx);
    printf(", \"outputs\": ");
    print_json_tensors(d, TC_TENSOR_OUTPUT, sx);
    printf(", \"temporaries\": ");
    print_json_tensors(d, TC_TENSOR_TEMP, sx);
    printf(", \"statements\": [");
    for (i = 0; i < d->n_stmts; i++) {
        printf("%s", i ? ", " : "");
        print_json_stmt(d, &d->stmts[i], sx);
    }
    printf("]}\n");
}

/* infer for one def: numbers when every size is given, else symbolic. */
static int infer_def(cli *c, int di) {
    const tc_ir_def *d = tc_program_ir(c->prog, di);
    int64_t *vars = (int64_t *)calloc((size_t)d->n_sizevars + 1, sizeof(int64_t));
    int64_t *scalars = (int64_t *)calloc((size_t)d->n_inputs + 1, sizeof(int64_t));
    int64_t *sx = (int64_t *)calloc((size_t)d->n_sx + 1, sizeof(int64_t));
    char missing[1024];
    int rc = 0, n_missing;
    if (!vars || !scalars || !sx) {
        rc = input_error(c->file, "out of memory");
    } else {
        n_missing = bind_given_sizes(c, d, vars, scalars, missing, sizeof missing);
        if (n_missing && c->json)
            rc = usage_error("def %s: --json needs every size; missing: %s", d->name, missing);
        else if (!n_missing)
            rc = eval_sizes(c, di, sx);
        if (!rc && c->json) print_def_json(c, d, sx);
        else if (!rc) print_def_text(c, d, n_missing ? NULL : sx, missing);
    }
    free(vars);
    free(scalars);
    free(sx);
    return rc;
}

static int cmd_infer(cli *c) {
    int rc = compile_file(c), n, i, *defs;
    if (rc) return rc;
    n = (c->entry || c->json) ? 1 : tc_program_num_defs(c->prog);
    defs = (int *)calloc((size_t)(n ? n : 1), sizeof(int));
    if (!defs) return input_error(c->file, "out of memory");
    if (c->entry || c->json) {
        defs[0] = find_def(c);
        if (defs[0] < 0) rc = c->entry ? EXIT_USAGE : EXIT_INPUT;
    } else {
        for (i = 0; i < n; i++) defs[i] = i;
        print_warnings(c, -1);
    }
    if (!rc && n > 0) rc = check_size_names(c, defs, n);
    for (i = 0; !rc && i < n; i++) {
        if (i) printf("\n");
        rc = infer_def(c, defs[i]);
    }
    free(defs);
    return rc;
}

/* ==== disasm, loops ====================================================== */

static int disasm_render(const void *prog, int def, char *buf, size_t cap) {
    return tc_disasm((const tc_program *)prog, def, buf, cap);
}
static int loops_render(const void *prog, int def, char *buf, size_t cap) {
    return tc_ir_format_loops(tc_program_ir((const tc_program *)prog, def), buf, cap);
}

/* Prints a per-def rendering: the --entry def, or every def. */
static int print_rendered(cli *c, render_fn fn) {
    int rc = compile_file(c), i, lo, hi;
    if (rc) return rc;
    lo = 0;
    hi = tc_program_num_defs(c->prog);
    if (c->entry) {
        lo = find_def(c);
        if (lo < 0) return EXIT_USAGE;
        hi = lo + 1;
    } else {
        print_warnings(c, -1);
    }
    for (i = lo; i < hi; i++) {
        char *text = render(fn, c->prog, i);
        if (!text) return input_error(c->file, "out of memory");
        if (i > lo) printf("\n");
        fputs(text, stdout);
        free(text);
    }
    return 0;
}

static int cmd_disasm(cli *c) { return print_rendered(c, disasm_render); }
static int cmd_loops(cli *c) { return print_rendered(c, loops_render); }

/* ==== opencl (kernel source) ============================================= */

#if defined(TC_CLI_HAVE_OPENCL_H)
static int print_opencl(cli *c, const tc_ir_def *d, const int64_t *sx) {
    char *text = NULL;
    tc_error err;
    if (tc_ocl_emit(d, sx, 1, NULL, &text, &err) != TC_OK) {
        print_error(&err, c->file, c->src);
        return EXIT_INPUT;
    }
    fputs(text, stdout);
    tc_ocl_free_source(text, NULL);
    return 0;
}
#else
static int print_opencl(cli *c, const tc_ir_def *d, const int64_t *sx) {
    (void)d;
    (void)sx;
    return input_error(c->file, "this build of tc has no OpenCL emitter (tc_opencl.h missing)");
}
#endif

/* C99 source, to stdout or -o OUT.c. */
#if defined(TC_CLI_HAVE_OPENCL_H)
static int print_c(cli *c, const tc_ir_def *d, const int64_t *sx) {
    char *text = NULL;
    tc_error err;
    FILE *f = stdout;
    int rc = 0;
    if (tc_c_emit(d, sx, c->driver ? TC_C_DRIVER_TABLES : 0, NULL, &text, &err) != TC_OK) {
        print_error(&err, c->file, c->src);
        return EXIT_INPUT;
    }
    if (c->out_file && !(f = fopen(c->out_file, "wb")))
        rc = input_error(c->out_file, strerror(errno));
    if (!rc && (fputs(text, f) == EOF ||
                (c->driver && (fputs(tc_c_driver_io_text, f) == EOF || fputs(tc_c_driver_main_text, f) == EOF)) ||
                (c->out_file && fclose(f) != 0)))
        rc = input_error(c->out_file ? c->out_file : "stdout", "write failed");
    tc_ocl_free_source(text, NULL);
    return rc;
}
#else
static int print_c(cli *c, const tc_ir_def *d, const int64_t *sx) {
    (void)d;
    (void)sx;
    return input_error(c->file, "this build of tc has no C emitter (tc_opencl.h missing)");
}
#endif

/* Kernels (or C) for the --entry def (or the last one): sizes as kernel
   arguments, or baked in as constants when every size is given. */
static int cmd_opencl(cli *c) {
    const tc_ir_def *d;
    int64_t *sx = NULL;
    int rc = compile_file(c), di, n_missing = 0;
    char missing[1024];
    if (rc) return rc;
    if ((di = find_def(c)) < 0) return c->entry ? EXIT_USAGE : EXIT_INPUT;
    d = tc_program_ir(c->prog, di);
    if ((rc = check_size_names(c, &di, 1)) != 0) return rc;
    if (c->n_sizes) {
        int64_t *vars = (int64_t *)calloc((size_t)d->n_sizevars + 1, sizeof(int64_t));
        int64_t *scal = (int64_t *)calloc((size_t)d->n_inputs + 1, sizeof(int64_t));
        sx = (int64_t *)calloc((size_t)d->n_sx + 1, sizeof(int64_t));
        if (!vars || !scal || !sx) rc = input_error(c->file, "out of memory");
        else n_missing = bind_given_sizes(c, d, vars, scal, missing, sizeof missing);
        free(vars);
        free(scal);
        if (!rc && n_missing)
            rc = usage_error("def %s: give every size or none; missing: %s", d->name, missing);
        if (!rc) rc = eval_sizes(c, di, sx);
    }
    if (!rc) rc = strcmp(c->cmd, "c") == 0 ? print_c(c, d, sx) : print_opencl(c, d, sx);
    free(sx);
    return rc;
}

/* ==== run ================================================================ */

/* Index of the input named by "NAME=PATH" in d, or -1. */
static int input_index(const tc_ir_def *d, const char *name_eq) {
    size_t n = (size_t)(strchr(name_eq, '=') - name_eq);
    int i;
    for (i = 0; i < d->n_inputs; i++)
        if (strlen(d->tensors[i].name) == n && strncmp(d->tensors[i].name, name_eq, n) == 0)
            return i;
    return -1;
}

/* Maps -i arguments to parameters: every input bound once, no unknown names. */
static int bind_input_args(const cli *c, const tc_ir_def *d, int *which) {
    int i, k;
    for (i = 0; i < d->n_inputs; i++) which[i] = -1;
    for (k = 0; k < c->n_inputs; k++) {
        i = input_index(d, c->inputs[k].name);
        if (i < 0) {
            fprintf(stderr, "tc: error: def %s has no input '%.*s'; its inputs:", d->name,
                    (int)(strchr(c->inputs[k].name, '=') - c->inputs[k].name), c->inputs[k].name);
            for (i = 0; i < d->n_inputs; i++) fprintf(stderr, " %s", d->tensors[i].name);
            fprintf(stderr, "\n");
            return EXIT_USAGE;
        }
        which[i] = k;
    }
    for (i = 0; i < d->n_inputs; i++)
        if (which[i] < 0)
            return usage_error("def %s: input %s is not given (-i %s=PATH.npy)", d->name,
                               d->tensors[i].name, d->tensors[i].name);
    return 0;
}

/* Whether text is a number (a decimal integer, strtod's forms, or true /
   false): `-i dt=0.016` gives a 0-rank input its value inline. */
static int inline_number(const char *text, double *f, long long *k, int *is_int) {
    char *end;
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        *k = text[0] == 't';
        *f = (double)*k;
        *is_int = 1;
        return 1;
    }
    errno = 0;
    *k = strtoll(text, &end, 10); /* decimal, as SIZE=VALUE */
    *is_int = *text && !*end && errno == 0;
    if (*is_int) {
        *f = (double)*k;
        return 1;
    }
    *f = strtod(text, &end);
    return *text && !*end && !isspace((unsigned char)*text);
}

/* A 0-rank input of dtype t from a number given inline; 0, or the exit
   status after a message. */
static int inline_scalar(const tc_ir_def *d, int i, const char *text, tc_tensor *t) {
    tc_dtype dt = d->tensors[i].dtype;
    double f;
    long long k;
    int is_int, kind;
    int64_t lo, hi;
    if (!inline_number(text, &f, &k, &is_int)) return -1;
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->data = calloc(1, 8);
    if (!t->data) return input_error("tc", "out of memory");
    kind = dt == TC_FLOAT16 || dt == TC_FLOAT32 || dt == TC_FLOAT64 ? 'f' : 'i';
    if (kind == 'i') {
        if (!is_int)
            return input_error(text, "input %s of def %s is %s: give an integer", d->tensors[i].name,
                               d->name, tc_dtype_name(dt));
        int_dtype_range(dt, &lo, &hi);
        if (dt == TC_BOOL) lo = 0, hi = 1;
        if ((dt != TC_UINT64 && (k < lo || k > hi)) || (dt == TC_UINT64 && k < 0))
            return input_error(text, "input %s of def %s is %s: %s is out of its range",
                               d->tensors[i].name, d->name, tc_dtype_name(dt), text);
        store_scalar(t, (int64_t)k);
        return 0;
    }
    if (dt == TC_FLOAT64) *(double *)t->data = f;
    else if (dt == TC_FLOAT32) *(float *)t->data = (float)f;
    else *(uint16_t *)t->data = tc__float_to_half((float)f);
    return 0;
}

/* Loads every input (a .npy file, or a number for a 0-rank input) and
   checks its dtype against the def. */
static int load_inputs(const cli *c, const tc_ir_def *d, const int *which, tc_tensor *in) {
    int i;
    for (i = 0; i < d->n_inputs; i++) {
        const char *path = c->inputs[which[i]].path;
        char err[256];
        if (d->tensors[i].rank == 0) {
            int rc = inline_scalar(d, i, path, &in[i]);
            if (rc >= 0) {
                if (rc) return rc;
                continue;
            }
        }
        if (npy_load(path, &in[i], err, sizeof err) != 0) {
            if (d->tensors[i].rank == 0)
                return input_error(path, "input %s is 0-rank: give a number (-i %s=0.5) or a "
                                   ".npy file; as a file: %s", d->tensors[i].name,
                                   d->tensors[i].name, err);
            return input_error(path, "%s", err);
        }
        if (in[i].dtype != d->tensors[i].dtype)
            return input_error(path, "input %s of def %s is %s, but the file holds %s",
                               d->tensors[i].name, d->name, tc_dtype_name(d->tensors[i].dtype),
                               tc_dtype_name(in[i].dtype));
    }
    return 0;
}

/* mkdir -p */
static int make_dirs(const char *path) {
    char *p = (char *)malloc(strlen(path) + 1), *s;
    int ok = 1;
    if (!p) return 0;
    strcpy(p, path);
    for (s = p + 1; ok; s++) {
        if (*s == '/' || *s == '\0') {
            char save = *s;
            struct stat st;
            *s = '\0';
            if (stat(p, &st) != 0) ok = mkdir(p, 0777) == 0 || errno == EEXIST;
            else if (!S_ISDIR(st.st_mode)) ok = 0, errno = ENOTDIR;
            *s = save;
            if (!save) break;
        }
    }
    free(p);
    return ok;
}

/* OUTDIR/NAME.npy for output i, or with part set OUTDIR/.tc-part-I (not
   named after the output: NAME.npy may be as long as a file name can be);
   malloc'd. */
static char *output_path(const cli *c, const tc_ir_def *d, int i, int part) {
    const char *name = d->tensors[d->n_inputs + i].name;
    size_t n = strlen(c->outdir) + strlen(name) + 24;
    char *path = (char *)malloc(n);
    if (path && part) snprintf(path, n, "%s/.tc-part-%d", c->outdir, i);
    else if (path) snprintf(path, n, "%s/%s.npy", c->outdir, name);
    return path;
}

/* Removes the part files of outputs [0, n) (files only: unlink). */
static void remove_parts(const cli *c, const tc_ir_def *d, int n) {
    int i;
    for (i = 0; i < n; i++) {
        char *part = output_path(c, d, i, 1);
        if (part) unlink(part);
        free(part);
    }
}

/* Output i: saved to its part file (out given), or that part renamed to
   NAME.npy (out NULL). */
static int output_step(const cli *c, const tc_ir_def *d, int i, const tc_tensor *out) {
    char *part = output_path(c, d, i, 1), *path = output_path(c, d, i, 0), err[256];
    struct stat st;
    int rc = 0;
    if (!part || !path) rc = input_error(c->outdir, "out of memory");
    else if (!out && rename(part, path) != 0)
        rc = input_error(path, "cannot write: %s", strerror(errno));
    else if (out && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        rc = input_error(path, "cannot create: Is a directory");
    else if (out && npy_save(part, out, err, sizeof err) != 0)
        rc = input_error(part, "%s (writing %s)", err, path);
    free(part);
    free(path);
    return rc;
}

/* Every output goes to a part file first, renamed to NAME.npy once all are
   written: a write that fails (a full disk, a directory in the way) leaves
   no output behind, neither a truncated one nor the ones before it. */
static int write_outputs(const cli *c, const tc_ir_def *d, const tc_tensor *out) {
    int i, rc = 0;
    if (!make_dirs(c->outdir)) return input_error(c->outdir, "cannot create directory: %s", strerror(errno));
    for (i = 0; i < d->n_outputs && !rc; i++) rc = output_step(c, d, i, &out[i]);
    for (i = 0; i < d->n_outputs && !rc; i++) rc = output_step(c, d, i, NULL);
    if (rc) remove_parts(c, d, d->n_outputs);
    return rc;
}

/* One run on the chosen back end, into outputs (data NULL: allocated). */
typedef struct run_ctx {
    cli *c;
    tc_run_desc rd;
    tc_pool *pool;
    void *ocl; /* tc_ocl_runner, when --backend opencl */
} run_ctx;

static tc_status run_once(run_ctx *r, tc_error *err) {
#if defined(TC_OPENCL_RUNNER) && defined(TC_CLI_HAVE_OPENCL_H)
    if (r->ocl) return tc_ocl_run((tc_ocl_runner *)r->ocl, r->c->prog, &r->rd, err);
#endif
    return tc_run(r->c->prog, &r->rd, err);
}

/* One timed run: through the plan (VM) or the runner, into rd's outputs. */
static tc_status timed_run(run_ctx *r, tc_plan *plan, const tc_run_desc *rd, tc_error *err) {
    tc_run_desc saved = r->rd;
    tc_status st;
    if (plan) return tc_plan_run(plan, rd, err);
    r->rd = *rd;
    st = run_once(r, err);
    r->rd = saved;
    return st;
}

/* Median wall time of repeated runs (after one warm-up run), into scratch
   outputs so that the results written stay those of a single run. reps 0:
   as many as fit in about half a second, at least 5, at most 1000. */
static int time_runs(run_ctx *r, const tc_tensor *like, int n_out, int reps, FILE *report_to,
                     double bytes) {
    tc_tensor *scratch = (tc_tensor *)calloc((size_t)n_out + 1, sizeof(tc_tensor));
    tc_run_desc rd = r->rd;
    tc_plan *plan = NULL;
    tc_error err;
    double *t = NULL, total = 0;
    int n = 0, max_reps = reps ? reps : 1000, failed = 0;
    if (!scratch || !alloc_like(like, scratch, n_out) ||
        !(t = (double *)calloc((size_t)max_reps, sizeof(double)))) {
        free_tensors(scratch, n_out);
        return input_error(r->c->file, "out of memory");
    }
    rd.outputs = scratch;
    if (!r->ocl && tc_plan_create(r->c->prog, &rd, &plan, &err) != TC_OK) failed = 1;
    if (!failed && timed_run(r, plan, &rd, &err) != TC_OK) failed = 1;
    while (!failed && n < max_reps && (reps || total < 0.5 || n < 5)) {
        double t0 = now_seconds();
        if (timed_run(r, plan, &rd, &err) != TC_OK) failed = 1;
        t[n] = now_seconds() - t0;
        total += t[n++];
    }
    if (failed) {
        print_error(&err, r->c->file, r->c->src);
    } else {
        qsort(t, (size_t)n, sizeof(double), cmp_double);
        fprintf(report_to, "time: %.4f ms median, %.4f ms min over %d runs ", t[n / 2] * 1e3,
                t[0] * 1e3, n);
        if (r->ocl) fprintf(report_to, "(opencl)");
        else fprintf(report_to, "(%d threads, vm)", r->pool ? tc_pool_num_threads(r->pool) : 1);
        if (bytes > 0 && t[n / 2] > 0) fprintf(report_to, ", %.2f GB/s", bytes / t[n / 2] * 1e-9);
        fprintf(report_to, "\n");
    }
    tc_plan_free(plan);
    free(t);
    free_tensors(scratch, n_out);
    return failed ? EXIT_INPUT : 0;
}

/* Creates the pool (and the OpenCL runner) a run needs. */
static int run_setup(run_ctx *r) {
    cli *c = r->c;
    tc_error err;
    int threads = c->threads; /* 0 (not given): tc_pool_create's online CPUs */
    if (c->backend && strcmp(c->backend, "opencl") == 0) {
#if defined(TC_OPENCL_RUNNER) && defined(TC_CLI_HAVE_OPENCL_H)
        tc_ocl_runner *runner = NULL;
        if (tc_ocl_runner_create(NULL, &runner, &err) != TC_OK) {
            print_error(&err, c->file, NULL);
            return EXIT_INPUT;
        }
        r->ocl = runner;
        r->rd.unchecked_gathers = c->unchecked; /* ignored: the device always checks */
        return 0;
#else
        return usage_error("--backend opencl: this build of tc has no OpenCL runner (make "
                           "builds it when the OpenCL headers and loader are installed)");
#endif
    }
    if (threads != 1 && tc_pool_create(threads, NULL, &r->pool, &err) != TC_OK) {
        print_error(&err, c->file, NULL);
        return EXIT_INPUT;
    }
    r->rd.pool = r->pool;
    r->rd.unchecked_gathers = c->unchecked;
    return 0;
}

static void run_teardown(run_ctx *r) {
    tc_pool_free(r->pool);
    r->pool = NULL;
#if defined(TC_OPENCL_RUNNER) && defined(TC_CLI_HAVE_OPENCL_H)
    tc_ocl_runner_free((tc_ocl_runner *)r->ocl);
#endif
    r->ocl = NULL;
}

/* Frees an output the back end allocated. */
static void free_output(run_ctx *r, tc_tensor *t) {
#if defined(TC_OPENCL_RUNNER) && defined(TC_CLI_HAVE_OPENCL_H)
    if (r->ocl) {
        tc_ocl_tensor_free((tc_ocl_runner *)r->ocl, t);
        return;
    }
#endif
    tc_tensor_free(r->c->prog, t);
}

/* Runs def d on `in`; outputs allocated by the back end, then written. */
static int run_and_write(run_ctx *r, const tc_ir_def *d, tc_tensor *in) {
    tc_tensor *out = (tc_tensor *)calloc((size_t)(d->n_outputs ? d->n_outputs : 1), sizeof(tc_tensor));
    tc_error err;
    int rc = 0, i;
    if (!out) return input_error(r->c->file, "out of memory");
    r->rd.entry = d->name;
    r->rd.inputs = in;
    r->rd.n_inputs = d->n_inputs;
    r->rd.outputs = out;
    r->rd.n_outputs = d->n_outputs;
    if (run_once(r, &err) != TC_OK) {
        print_error(&err, r->c->file, r->c->src);
        rc = EXIT_INPUT;
    }
    if (!rc) rc = write_outputs(r->c, d, out);
    if (!rc && r->c->time) {
        double bytes = 0;
        int ok;
        for (i = 0; i < d->n_inputs; i++) bytes += (double)tensor_bytes(&in[i], &ok);
        for (i = 0; i < d->n_outputs; i++) bytes += (double)tensor_bytes(&out[i], &ok);
        rc = time_runs(r, out, d->n_outputs, r->c->reps, stderr, bytes);
    }
    for (i = 0; i < d->n_outputs; i++) free_output(r, &out[i]);
    free(out);
    return rc;
}

static int cmd_run(cli *c) {
    const tc_ir_def *d;
    tc_tensor *in = NULL;
    int *which = NULL, rc, di, i;
    run_ctx r;
    memset(&r, 0, sizeof r);
    r.c = c;
    if (!c->outdir) return usage_error("run: -o OUTDIR is required");
    if (c->reps && !c->time) return usage_error("run: --reps counts the runs --time measures; give --time");
    if ((rc = compile_file(c)) != 0) return rc;
    if ((di = find_def(c)) < 0) return c->entry ? EXIT_USAGE : EXIT_INPUT;
    d = tc_program_ir(c->prog, di);
    which = (int *)calloc((size_t)d->n_inputs + 1, sizeof(int));
    in = (tc_tensor *)calloc((size_t)d->n_inputs + 1, sizeof(tc_tensor));
    if (!which || !in) rc = input_error(c->file, "out of memory");
    if (!rc) rc = bind_input_args(c, d, which);
    if (!rc) rc = run_setup(&r);
    if (!rc) rc = load_inputs(c, d, which, in);
    if (!rc) rc = run_and_write(&r, d, in);
    run_teardown(&r);
    if (in)
        for (i = 0; i < d->n_inputs; i++) npy_free(&in[i]);
    free(in);
    free(which);
    return rc;
}

/* ==== bench ============================================================== */

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Deterministic inputs: floats in [-1, 1), integers and bools in {0, 1}
   (safe as gather indices into any non-empty dimension). */
static void fill_random(tc_tensor *t, size_t count, uint64_t *seed) {
    size_t i;
    for (i = 0; i < count; i++) {
        uint64_t r = xorshift(seed);
        double f = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        switch (t->dtype) {
        case TC_FLOAT32: ((float *)t->data)[i] = (float)f; break;
        case TC_FLOAT64: ((double *)t->data)[i] = f; break;
        case TC_FLOAT16: ((uint16_t *)t->data)[i] = (uint16_t)(0x3800u | (r & 0x3ffu)); break;
        default: memset((char *)t->data + i * tc_dtype_size(t->dtype), 0, tc_dtype_size(t->dtype));
                 ((unsigned char *)t->data)[i * tc_dtype_size(t->dtype)] = (unsigned char)(r & 1);
                 break;
        }
    }
}

/* Allocates and fills the inputs of d for the given sizes. */
static int bench_inputs(cli *c, const tc_ir_def *d, const int64_t *sx, tc_tensor *in, double *bytes) {
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int i, r, ok;
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        size_t nb;
        in[i].dtype = t->dtype;
        in[i].rank = t->rank;
        for (r = 0; r < t->rank; r++) in[i].shape[r] = sx[t->extent[r]];
        nb = tensor_bytes(&in[i], &ok);
        if (!ok) return input_error(c->file, "input %s: shape overflows or is negative", t->name);
        in[i].data = malloc(nb ? nb : 1);
        if (!in[i].data) return input_error(c->file, "input %s: out of memory (%lu bytes)", t->name, (unsigned long)nb);
        *bytes += (double)nb;
        if (t->rank == 0 && is_int_dtype(t->dtype) && find_size(c, t->name)) {
            memset(in[i].data, 0, nb);
            store_scalar(&in[i], find_size(c, t->name)->value);
        } else {
            fill_random(&in[i], nb / tc_dtype_size(t->dtype), &seed);
        }
    }
    return 0;
}

/* --discard NAME,...: one flag per output of d; 2 (usage) for a name d does
   not return. */
static int discard_flags(cli *c, const tc_ir_def *d, unsigned char *flags) {
    const char *p = c->discard;
    while (p && *p) {
        size_t len = strcspn(p, ",");
        int i, found = 0;
        for (i = 0; i < d->n_outputs; i++) {
            const char *name = d->tensors[d->n_inputs + i].name;
            if (strlen(name) == len && strncmp(name, p, len) == 0) found = flags[i] = 1;
        }
        if (!found)
            return usage_error("--discard: def %s has no output '%.*s'", d->name, (int)len, p);
        p += len + (p[len] == ',');
    }
    return 0;
}

static int bench_run(cli *c, run_ctx *r, const tc_ir_def *d, tc_tensor *in, double in_bytes) {
    tc_tensor *out = (tc_tensor *)calloc((size_t)d->n_outputs + 1, sizeof(tc_tensor));
    unsigned char *discard = (unsigned char *)calloc((size_t)d->n_outputs + 1, 1);
    tc_error err;
    double out_bytes = 0;
    int rc = 0, i, ok;
    if (!out || !discard) {
        free(out);
        free(discard);
        return input_error(c->file, "out of memory");
    }
    if ((rc = discard_flags(c, d, discard)) != 0) {
        free(out);
        free(discard);
        return rc;
    }
    r->rd.discard = discard;
    r->rd.entry = d->name;
    r->rd.inputs = in;
    r->rd.n_inputs = d->n_inputs;
    r->rd.outputs = out;
    r->rd.n_outputs = d->n_outputs;
    if (run_once(r, &err) != TC_OK) {
        print_error(&err, c->file, c->src);
        rc = EXIT_INPUT;
    }
    for (i = 0; !rc && i < d->n_outputs; i++)
        if (!discard[i]) out_bytes += (double)tensor_bytes(&out[i], &ok);
    if (!rc) {
        printf("bench %s:", d->name);
        for (i = 0; i < c->n_sizes; i++) printf(" %s=%lld", c->sizes[i].name, (long long)c->sizes[i].value);
        printf("  (%.3f MB of inputs + outputs; GB/s counts each once)\n",
               (in_bytes + out_bytes) * 1e-6);
        fflush(stdout);
        rc = time_runs(r, out, d->n_outputs, c->reps, stdout, in_bytes + out_bytes);
    }
    for (i = 0; i < d->n_outputs; i++) free_output(r, &out[i]);
    free(out);
    free(discard);
    r->rd.discard = NULL;
    return rc;
}

/* The def a bench or explain names, and random inputs of the sizes given
   (every size needed): *in and *sx belong to the caller (free_inputs). */
static int sized_inputs(cli *c, const char *cmd, const tc_ir_def **d_out, int64_t **sx_out,
                        tc_tensor **in_out, double *in_bytes) {
    const tc_ir_def *d;
    int rc, di;
    char missing[1024];
    if ((rc = compile_file(c)) != 0) return rc;
    if ((di = find_def(c)) < 0) return c->entry ? EXIT_USAGE : EXIT_INPUT;
    *d_out = d = tc_program_ir(c->prog, di);
    if ((rc = check_size_names(c, &di, 1)) != 0) return rc;
    {
        int64_t *vars = (int64_t *)calloc((size_t)d->n_sizevars + 1, sizeof(int64_t));
        int64_t *scal = (int64_t *)calloc((size_t)d->n_inputs + 1, sizeof(int64_t));
        int n_missing = vars && scal ? bind_given_sizes(c, d, vars, scal, missing, sizeof missing) : -1;
        free(vars);
        free(scal);
        if (n_missing < 0) return input_error(c->file, "out of memory");
        if (n_missing)
            return usage_error("def %s: %s needs every size; missing: %s", d->name, cmd, missing);
    }
    *sx_out = (int64_t *)calloc((size_t)d->n_sx + 1, sizeof(int64_t));
    *in_out = (tc_tensor *)calloc((size_t)d->n_inputs + 1, sizeof(tc_tensor));
    if (!*sx_out || !*in_out) return input_error(c->file, "out of memory");
    if ((rc = eval_sizes(c, di, *sx_out)) != 0) return rc;
    return bench_inputs(c, d, *sx_out, *in_out, in_bytes);
}

static void free_inputs(const tc_ir_def *d, int64_t *sx, tc_tensor *in) {
    int i;
    if (in && d)
        for (i = 0; i < d->n_inputs; i++) free(in[i].data);
    free(in);
    free(sx);
}

static int cmd_bench(cli *c) {
    const tc_ir_def *d = NULL;
    int64_t *sx = NULL;
    tc_tensor *in = NULL;
    double in_bytes = 0;
    int rc;
    run_ctx r;
    memset(&r, 0, sizeof r);
    r.c = c;
    rc = sized_inputs(c, "bench", &d, &sx, &in, &in_bytes);
    if (!rc) rc = run_setup(&r);
    if (!rc) rc = bench_run(c, &r, d, in, in_bytes);
    run_teardown(&r);
    free_inputs(d, sx, in);
    return rc;
}

/* ==== explain ============================================================ */

/* The plan for these sizes and threads, described (tc_plan_describe). */
static int cmd_explain(cli *c) {
    const tc_ir_def *d = NULL;
    int64_t *sx = NULL;
    tc_tensor *in = NULL;
    double in_bytes = 0;
    tc_plan *plan = NULL;
    tc_error err;
    char *text = NULL;
    int rc, n;
    run_ctx r;
    memset(&r, 0, sizeof r);
    r.c = c;
    rc = sized_inputs(c, "explain", &d, &sx, &in, &in_bytes);
    if (!rc) rc = run_setup(&r);
    if (!rc) {
        r.rd.entry = d->name;
        r.rd.inputs = in;
        r.rd.n_inputs = d->n_inputs;
        r.rd.pool = r.pool;
        if (tc_plan_create(c->prog, &r.rd, &plan, &err) != TC_OK) {
            print_error(&err, c->file, c->src);
            rc = EXIT_INPUT;
        }
    }
    if (!rc) {
        n = tc_plan_describe(plan, NULL, 0);
        if (!(text = (char *)malloc((size_t)n + 1))) rc = input_error(c->file, "out of memory");
        else {
            tc_plan_describe(plan, text, (size_t)n + 1);
            fputs(text, stdout);
        }
    }
    free(text);
    tc_plan_free(plan);
    run_teardown(&r);
    free_inputs(d, sx, in);
    return rc;
}

/* ==== main =============================================================== */

static const cli_command commands[] = {
    {"check", 0, cmd_check, &usage_check},
    {"infer", OPT_ENTRY | OPT_JSON | OPT_SIZES, cmd_infer, &usage_infer},
    {"run", OPT_ENTRY | OPT_RUN | OPT_THREADS | OPT_REPS, cmd_run, &usage_run},
    {"disasm", OPT_ENTRY, cmd_disasm, &usage_disasm},
    {"loops", OPT_ENTRY, cmd_loops, &usage_loops},
    {"opencl", OPT_ENTRY | OPT_SIZES, cmd_opencl, &usage_opencl},
    {"c", OPT_ENTRY | OPT_SIZES | OPT_CEMIT, cmd_opencl, &usage_c},
    {"bench", OPT_ENTRY | OPT_SIZES | OPT_THREADS | OPT_REPS | OPT_DISCARD, cmd_bench,
     &usage_bench},
    {"explain", OPT_ENTRY | OPT_SIZES | OPT_THREADS, cmd_explain, &usage_explain},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name) {
    size_t i;
    for (i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) return &commands[i];
    return NULL;
}

/* The whole usage (cmd NULL), or one command's. */
static void print_usage(FILE *f, const cli_command *cmd) {
    size_t i;
    if (cmd) {
        fputs("usage:\n", f);
        fprintf(f, "%s\n%s%s", *cmd->usage, usage_common, usage_exit);
        return;
    }
    fputs("usage: tc COMMAND FILE.tc [OPTIONS]\n\ncommands:\n", f);
    for (i = 0; i < N_COMMANDS; i++) fputs(*commands[i].usage, f);
    fprintf(f, "\n%s%s%s", usage_common, usage_notes, usage_exit);
}

static const char command_list[] =
    "the commands: check infer run disasm loops opencl c bench explain ('tc --help' says more)\n";

static int is_help(const char *a) {
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

int main(int argc, char **argv) {
    const cli_command *cmd = NULL;
    cli c;
    size_t i;
    int rc;
#if defined(SIGXFSZ)
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit: a write error (EFBIG), not a signal */
#endif
    if (argc < 2) {
        usage_error("no command given");
        fputs(command_list, stderr);
        return EXIT_USAGE;
    }
    if (is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        cmd = argc > 2 ? find_command(argv[2]) : NULL;
        if (argc > 2 && !cmd) return usage_error("help: unknown command '%s'", argv[2]);
        print_usage(stdout, cmd);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tc %s\n", TC_VERSION_STRING);
        return 0;
    }
    cmd = find_command(argv[1]);
    if (!cmd) {
        usage_error("unknown command '%s'", argv[1]);
        fputs(command_list, stderr);
        return EXIT_USAGE;
    }
    for (i = 2; i < (size_t)argc; i++)
        if (is_help(argv[i])) {
            print_usage(stdout, cmd);
            return 0;
        }
    memset(&c, 0, sizeof c);
    c.cmd = cmd->name;
    rc = parse_args(&c, cmd->opts, argc, argv);
    if (!rc) rc = cmd->fn(&c);
    if (rc == EXIT_USAGE) fprintf(stderr, "usage:\n%s('tc %s --help' for more)\n", *cmd->usage, cmd->name);
    cli_free(&c);
    fflush(stdout);
    return rc;
}
