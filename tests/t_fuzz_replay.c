/* t_fuzz_replay: the fuzz targets' committed corpora, replayed (stb's
   fuzz_main idea): every file of tests/fuzz/compile_run/ goes through
   tests/fuzz_compile_run.c's LLVMFuzzerTestOneInput, every file of
   tests/fuzz/npy/ through tests/fuzz_npy.c's, built with the normal
   compiler (and with ASan+UBSan in build/test-san/). One check per file:
   it passes when the target finds nothing wrong (a crash ends the program,
   which tests/run.sh counts as a failure). The corpora hold the seeds and
   every input a campaign (`make fuzz`) found a bug with.
     t_fuzz_replay                          both corpora (run from the repo root)
     t_fuzz_replay compile_run|npy PATH...  those files or directories */
#define _DEFAULT_SOURCE /* dirent.h, and the POSIX parts of stdio.h */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

static jmp_buf replay_jmp;
static int replay_failed_now;
/* A target's failure: said, counted, and the rest of that input skipped
   (what it held is not freed: the run fails anyway). */
#define FUZZ_FAIL(what, src)                                                                   \
    do {                                                                                       \
        fprintf(stderr, "  %s\n  %.300s\n", what, src);                                        \
        replay_failed_now = 1;                                                                 \
        longjmp(replay_jmp, 1);                                                                \
    } while (0)

#define LLVMFuzzerTestOneInput fuzz_compile_run_one
#include "fuzz_compile_run.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_npy_one
#include "fuzz_npy.c"
#undef LLVMFuzzerTestOneInput

#include "harness.h"

typedef int (*replay_fn)(const uint8_t *data, size_t size);

static int replay_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(replay_fn fn, const char *path) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    volatile int ok;
    if (!f) {
        fprintf(stderr, "  %s: cannot open\n", path);
        return 0;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)n + 1)) != NULL &&
        fread(buf, 1, (size_t)n, f) == (size_t)n) {
        fclose(f);
        replay_failed_now = 0;
        if (setjmp(replay_jmp) == 0) fn(buf, (size_t)n);
        ok = !replay_failed_now;
        if (!ok) fprintf(stderr, "FAIL %s\n", path);
        free(buf);
        return ok;
    }
    fclose(f);
    free(buf);
    fprintf(stderr, "  %s: cannot read\n", path);
    return 0;
}

/* Every file of a directory (sorted, so runs are alike), or the one file. */
static int replay_path(replay_fn fn, const char *path) {
    struct stat st;
    DIR *dir;
    struct dirent *de;
    char **names = NULL, full[4096];
    int n = 0, cap = 0, i, count = 0;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "  %s: not found\n", path);
        CHECK(0);
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        CHECKF(replay_file(fn, path), "%s", path);
        return 1;
    }
    dir = opendir(path);
    if (!dir) {
        CHECK(dir != NULL);
        return 0;
    }
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (n == cap) {
            char **more = (char **)realloc(names, sizeof *names * (size_t)(cap = cap ? cap * 2 : 64));
            if (!more) break;
            names = more;
        }
        names[n] = (char *)malloc(strlen(de->d_name) + 1);
        if (!names[n]) break;
        strcpy(names[n++], de->d_name);
    }
    closedir(dir);
    if (n) qsort(names, (size_t)n, sizeof *names, replay_cmp);
    for (i = 0; i < n; i++) {
        snprintf(full, sizeof full, "%s/%s", path, names[i]);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            CHECKF(replay_file(fn, full), "%s", full);
            count++;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv) {
    if (argc > 2) {
        int i;
        replay_fn fn = strcmp(argv[1], "npy") == 0 ? fuzz_npy_one : fuzz_compile_run_one;
        th_current = argv[1];
        for (i = 2; i < argc; i++) replay_path(fn, argv[i]);
        if (fn == fuzz_compile_run_one)
            printf("compile_run: %ld compiled, %ld runs (%ld ok)\n", fcr_compiled, fcr_runs,
                   fcr_runs_ok);
    } else {
        int n;
        th_current = "compile_run";
        n = replay_path(fuzz_compile_run_one, "tests/fuzz/compile_run");
        CHECKF(n >= 20, "only %d files in tests/fuzz/compile_run", n);
        /* the seeds reach the VM: most compile, and runs succeed */
        CHECKF(fcr_compiled >= 30 && fcr_runs_ok >= 20, "%ld compiled, %ld runs ok", fcr_compiled,
               fcr_runs_ok);
        printf("compile_run: %d files, %ld compiled, %ld runs (%ld ok)\n", n, fcr_compiled,
               fcr_runs, fcr_runs_ok);
        th_current = "npy";
        n = replay_path(fuzz_npy_one, "tests/fuzz/npy");
        CHECKF(n >= 20, "only %d files in tests/fuzz/npy", n);
    }
    if (fcr_pool) tc_pool_free(fcr_pool);
    return th_report();
}
