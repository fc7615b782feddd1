# tc.h: build the CLI, run the tests, run the benchmarks.
#   make          build/tc (the CLI)
#   make demo     build and run examples/demo.c
#   make examples build every examples/*.c into build/examples/
#   make test     every test: optimized, ASan+UBSan, TSan (threaded), the
#                 gcc/clang C99/C++ compile matrix, numpy oracle; ends with
#                 "N passed, M failed"
#   make bench    benchmark table (tc.h vs naive C vs OpenBLAS)
#   make fuzz     libFuzzer campaigns of tests/fuzz_*.c, FUZZ_SECONDS each (clang)
#   make clean
# Builds run in parallel on every core unless -j is given (the test suite
# compiles each test three ways; CI has 2 cores and 10 minutes).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
CC ?= cc
CXX ?= c++
PYTHON ?= /usr/bin/python3
BUILD := build
WARN := -Wall -Wextra -Wpedantic -Werror
OPT := -O2 -march=native
# The optimized tests carry no -g: it adds a quarter to each compile of
# the header (t_parse: 25 s rather than 32), and a failing check prints
# what it saw; the sanitized build keeps -g for its stack traces.
TOPT := -O2
# Tests whose subject is the front end, the bytecode's plumbing or the
# OpenCL emitter, not the code a compiler makes of the kernels, build at
# -O1: the header compiles in 13 s rather than 24, and the test run is
# near CI's 10 minutes (the kernels' -O2 builds: t_kernels, t_math,
# t_stream, t_discard and the others linked to tc_impl.o; -march=native:
# t_native, t_stream_native, t_contract).
TESTS_O1 := t_parse t_frontend t_vm t_opencl t_cemit
# -O0: the sanitized build compiles in 14 s rather than 32 (a dozen of them
# are most of a test run); its tests run about twice as long, which costs less
SAN := -O0 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
TSAN := -O1 -g -fsanitize=thread
HDRS := tc.h $(wildcard tc_opencl.h)
LIBS := -lm -pthread

# The OpenCL back end is built into build/tc when headers and loader exist.
# (\043 is '#': a literal # inside $(shell) is not portable across make versions)
HAVE_OPENCL := $(shell printf '\043define CL_TARGET_OPENCL_VERSION 120\n\043include <CL/cl.h>\nint main(void){return 0;}' | $(CC) -x c - -o /dev/null -lOpenCL 2>/dev/null && echo 1)
ifeq ($(HAVE_OPENCL),1)
OCL_CFLAGS := -DTC_OPENCL_RUNNER -DCL_TARGET_OPENCL_VERSION=120
OCL_LIBS := -lOpenCL
endif

TESTS_C := $(wildcard tests/t_*.c)
TEST_OPT := $(TESTS_C:tests/%.c=$(BUILD)/test/%)
# t_cemit is not built sanitized: its 368 defs under ASan took 45 s of a run near CI's
# 15 minutes; tests/t_cemit_san.sh runs the emitter under ASan through the CLI instead.
TEST_SAN := $(filter-out %/t_native %/t_stream_native %/t_cemit,$(TESTS_C:tests/%.c=$(BUILD)/test-san/%))
TESTS_THREAD := $(wildcard tests/t_thread*.c)
TEST_TSAN := $(TESTS_THREAD:tests/%.c=$(BUILD)/test-tsan/%)

.PHONY: all demo examples test test-build test-asan test-tsan compile-check bench clean
all: $(BUILD)/tc

EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

$(BUILD) $(BUILD)/test $(BUILD)/test-san $(BUILD)/test-tsan $(BUILD)/examples:
	mkdir -p $@

# tc_opencl.h's emitter needs no OpenCL headers, so `tc opencl` is always
# built in once the header exists; the runner needs headers and loader.
CLI_CFLAGS := $(if $(wildcard tc_opencl.h),-DTC_CLI_HAVE_OPENCL_H)
$(BUILD)/tc: tools/tc.c tools/npy.h tools/c_driver.h $(HDRS) | $(BUILD)
	$(CC) -std=c99 $(OPT) $(WARN) $(CLI_CFLAGS) $(OCL_CFLAGS) -I. tools/tc.c -o $@ $(LIBS) $(OCL_LIBS)

$(BUILD)/examples/%: examples/%.c $(HDRS) | $(BUILD)/examples
	$(CC) -std=c99 $(OPT) $(WARN) -I. $< -o $@ $(LIBS)
examples: $(EXAMPLES)

# The CLI with ASan+UBSan, for tests/t_cli_san.sh.
$(BUILD)/test-san/tc: tools/tc.c tools/npy.h tools/c_driver.h $(HDRS) | $(BUILD)/test-san
	$(CC) -std=c99 $(SAN) -Wall -Wextra $(CLI_CFLAGS) $(OCL_CFLAGS) -I. tools/tc.c -o $@ $(LIBS) $(OCL_LIBS)

demo: $(BUILD)/examples/demo
	./$(BUILD)/examples/demo

# Tests that use the public API only link one compiled implementation per
# flavour (tests/tc_impl.c, $(filter %.o,$^) below) instead of compiling tc.h.
LINKED := t_api t_explain t_fuzz t_fuzz_replay t_inplace t_kernels t_late_gather t_loops t_thread_kernels t_thread_vm
$(BUILD)/test/tc_impl.o: tests/tc_impl.c $(HDRS) | $(BUILD)/test
	$(CC) -std=c99 $(TOPT) -Wall -Wextra -I. -c $< -o $@
$(BUILD)/test-san/tc_impl.o: tests/tc_impl.c $(HDRS) | $(BUILD)/test-san
	$(CC) -std=c99 $(SAN) -Wall -Wextra -I. -c $< -o $@
$(BUILD)/test-tsan/tc_impl.o: tests/tc_impl.c $(HDRS) | $(BUILD)/test-tsan
	$(CC) -std=c99 $(TSAN) -Wall -Wextra -I. -c $< -o $@
$(LINKED:%=$(BUILD)/test/%): $(BUILD)/test/tc_impl.o
$(LINKED:%=$(BUILD)/test-san/%): $(BUILD)/test-san/tc_impl.o
# ... and those that fail allocations one by one, with small arena chunks
# (many more allocations to fail)
LINKED_A256 := t_alloc t_discard
$(BUILD)/test/tc_impl_a256.o: tests/tc_impl.c $(HDRS) | $(BUILD)/test
	$(CC) -std=c99 $(TOPT) -Wall -Wextra -DTC_ARENA_CHUNK=256 -I. -c $< -o $@
$(BUILD)/test-san/tc_impl_a256.o: tests/tc_impl.c $(HDRS) | $(BUILD)/test-san
	$(CC) -std=c99 $(SAN) -Wall -Wextra -DTC_ARENA_CHUNK=256 -I. -c $< -o $@
$(LINKED_A256:%=$(BUILD)/test/%): $(BUILD)/test/tc_impl_a256.o
$(LINKED_A256:%=$(BUILD)/test-san/%): $(BUILD)/test-san/tc_impl_a256.o
$(filter $(TEST_TSAN),$(LINKED:%=$(BUILD)/test-tsan/%)): $(BUILD)/test-tsan/tc_impl.o

$(TESTS_O1:%=$(BUILD)/test/%): TOPT := -O1
$(BUILD)/test/%: tests/%.c $(wildcard tests/*.h) $(HDRS) | $(BUILD)/test
	$(CC) -std=c99 $(TOPT) -Wall -Wextra $(OCL_CFLAGS) -I. $< $(filter %.o,$^) -o $@ $(LIBS) $(OCL_LIBS)
$(BUILD)/test-san/%: tests/%.c $(wildcard tests/*.h) $(HDRS) | $(BUILD)/test-san
	$(CC) -std=c99 $(SAN) -Wall -Wextra $(OCL_CFLAGS) -I. $< $(filter %.o,$^) -o $@ $(LIBS) $(OCL_LIBS)
# t_contract's optimized build runs the contraction engine's vector code
# (AVX-512 or AVX2 where this machine has them), its sanitized build the
# portable code
$(BUILD)/test/t_contract: tests/t_contract.c $(wildcard tests/*.h) $(HDRS) | $(BUILD)/test
	$(CC) -std=c99 $(OPT) -Wall -Wextra -I. $< -o $@ $(LIBS)
# t_native is t_kernels against the library built as a user's default
# build would be (GNU C, -march=native: gcc contracts a * b + c into an fma
# there), the tests' own references in ISO C
$(BUILD)/test/tc_impl_native.o: tests/tc_impl.c $(HDRS) | $(BUILD)/test
	$(CC) -std=gnu99 $(OPT) -Wall -Wextra -I. -c $< -o $@
$(BUILD)/test/t_native: tests/t_kernels.c $(BUILD)/test/tc_impl_native.o
# t_stream is t_kernels with streaming stores and the fma kernels forced on
$(BUILD)/test/t_stream $(BUILD)/test-san/t_stream: tests/t_kernels.c
# t_inplace_stream is t_inplace with the same two routes forced on
$(BUILD)/test/t_inplace_stream $(BUILD)/test-san/t_inplace_stream: tests/t_inplace.c
# t_stream_native streams too, built for this machine: the kernels' AVX-512
# lines (sanitized, -O0 without -march, it would be t_stream again)
$(BUILD)/test/t_stream_native: tests/t_stream_native.c tests/t_kernels.c $(wildcard tests/*.h) $(HDRS) | $(BUILD)/test
	$(CC) -std=c99 $(OPT) -Wall -Wextra $(OCL_CFLAGS) -I. $< -o $@ $(LIBS) $(OCL_LIBS)
# t_cemit loads the C it compiles with dlopen (in libc since glibc 2.34, -ldl before)
$(BUILD)/test/t_cemit $(BUILD)/test-san/t_cemit: LIBS += -ldl
# t_npy includes the CLI's .npy reader and writer
$(BUILD)/test/t_npy $(BUILD)/test-san/t_npy: tools/npy.h
# t_fuzz_replay includes both fuzz targets (and so npy.h)
$(BUILD)/test/t_fuzz_replay $(BUILD)/test-san/t_fuzz_replay: tests/fuzz_compile_run.c tests/fuzz_npy.c tools/npy.h
$(BUILD)/test-tsan/%: tests/%.c $(wildcard tests/*.h) $(HDRS) | $(BUILD)/test-tsan
	$(CC) -std=c99 $(TSAN) -Wall -Wextra -I. $< $(filter %.o,$^) -o $@ $(LIBS)

# The test binaries build on every CPU (each compiles the whole header, so
# a serial build is most of a test run); the tests then run one at a time.
NPROC := $(shell nproc 2>/dev/null || echo 1)
test:
	@$(MAKE) --no-print-directory -j$(NPROC) test-build
	@HAVE_OPENCL=$(HAVE_OPENCL) PYTHON=$(PYTHON) CC=$(CC) bash tests/all.sh
test-build: all examples $(BUILD)/test-san/tc $(BUILD)/tc-bench $(TEST_OPT) $(TEST_SAN) $(TEST_TSAN)

test-asan: $(TEST_SAN)
	@bash tests/run.sh $(TEST_SAN)
test-tsan: $(TEST_TSAN)
	@bash tests/run.sh $(TEST_TSAN)
compile-check:
	@bash tests/run.sh "bash tests/compile_check.sh"

clean:
	rm -rf $(BUILD)

# Fuzzing (not part of `make test`): both libFuzzer targets, built with
# clang's fuzzer, ASan and UBSan, each run for FUZZ_SECONDS in one process,
# seeded from the committed corpora (tests/fuzz/compile_run, tests/fuzz/npy;
# read only) with what they find kept in build/fuzz/corpus/ and crashes in
# build/fuzz/artifacts/. Replay a crash: build/fuzz/fuzz_compile_run FILE,
# or build/test/t_fuzz_replay compile_run FILE. A bug's input belongs in
# the committed corpus once fixed (t_fuzz_replay runs it in every test run).
#   make fuzz FUZZ_SECONDS=600
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_SAN := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_ARGS ?=
FUZZ_RUN = -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1
.PHONY: fuzz fuzz-build
$(BUILD)/fuzz:
	mkdir -p $@ $@/artifacts $@/corpus/compile_run $@/corpus/npy
$(BUILD)/fuzz/tc_impl.o: tests/tc_impl.c $(HDRS) | $(BUILD)/fuzz
	$(FUZZ_CC) -std=c99 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Wall -Wextra -I. -c $< -o $@
$(BUILD)/fuzz/fuzz_compile_run: tests/fuzz_compile_run.c $(BUILD)/fuzz/tc_impl.o | $(BUILD)/fuzz
	$(FUZZ_CC) -std=c99 $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) -I. $^ -o $@ $(LIBS)
$(BUILD)/fuzz/fuzz_npy: tests/fuzz_npy.c tools/npy.h tc.h | $(BUILD)/fuzz
	$(FUZZ_CC) -std=c99 $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) -I. $< -o $@ $(LIBS)
fuzz-build: $(BUILD)/fuzz/fuzz_compile_run $(BUILD)/fuzz/fuzz_npy
fuzz: fuzz-build
	$(BUILD)/fuzz/fuzz_compile_run $(BUILD)/fuzz/corpus/compile_run tests/fuzz/compile_run \
	    -dict=tests/fuzz/tc.dict -max_len=2048 -artifact_prefix=$(BUILD)/fuzz/artifacts/compile_run- \
	    $(FUZZ_RUN) $(FUZZ_ARGS)
	$(BUILD)/fuzz/fuzz_npy $(BUILD)/fuzz/corpus/npy tests/fuzz/npy \
	    -dict=tests/fuzz/npy.dict -max_len=1024 -malloc_limit_mb=256 \
	    -artifact_prefix=$(BUILD)/fuzz/artifacts/npy- $(FUZZ_RUN) $(FUZZ_ARGS)

# Benchmarks (build/tc-bench, `make bench`) live in their own fragment.
-include tools/bench.mk
