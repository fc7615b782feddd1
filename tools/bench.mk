# Benchmarks: build/tc-bench and `make bench` (-included by the Makefile).
#   make bench                      readable table, summary, then the CSV lines
#   make bench BENCH_ARGS='--quick mm softmax'
#   build/tc-bench --csv [KERNEL ...]
# tc.h, the harness and the naive loops are built -O3 -march=native; the
# naive loops a second time with -ffast-math (family naive-ffm), under their
# own names (BENCH_PREFIX). OpenBLAS and the OpenCL runner are linked in
# when they are installed.
BENCH_OPT := -O3 -march=native
BENCH_WARN := -Wall -Wextra
BENCH_ARGS ?=

HAVE_OPENBLAS := $(shell printf '\043include <cblas.h>\nint main(void){openblas_set_num_threads(1);return 0;}' | $(CC) -x c - -o /dev/null -lopenblas 2>/dev/null && echo 1)
ifeq ($(HAVE_OPENBLAS),1)
BENCH_BLAS_CFLAGS := -DTC_BENCH_BLAS
BENCH_BLAS_LIBS := -lopenblas
endif
# The tc-opencl family needs the runner of tc_opencl.h as well as OpenCL.
ifeq ($(HAVE_OPENCL)$(if $(wildcard tc_opencl.h),1),11)
BENCH_OCL_CFLAGS := $(OCL_CFLAGS) -DTC_BENCH_OPENCL
BENCH_OCL_LIBS := $(OCL_LIBS)
endif

# --random compares tc with the C of tc_opencl.h's tc_c_emit, when that
# header has it; the generated C is compiled at run time and dlopen()ed.
ifneq ($(shell grep -s -l 'tc_c_emit' tc_opencl.h),)
BENCH_C_CFLAGS := -DTC_BENCH_C_EMIT
endif

$(BUILD)/bench-naive.o: tools/bench_naive.c | $(BUILD)
	$(CC) $(BENCH_OPT) $(BENCH_WARN) -DBENCH_PREFIX=naive_ -c $< -o $@
$(BUILD)/bench-naive-ffm.o: tools/bench_naive.c | $(BUILD)
	$(CC) $(BENCH_OPT) -ffast-math $(BENCH_WARN) -DBENCH_PREFIX=nffm_ -c $< -o $@
$(BUILD)/bench-main.o: tools/bench.c tools/bench_naive.c tools/bench_random.c $(HDRS) | $(BUILD)
	$(CC) $(BENCH_OPT) $(BENCH_WARN) $(BENCH_BLAS_CFLAGS) $(BENCH_OCL_CFLAGS) $(BENCH_C_CFLAGS) -I. -c $< -o $@

$(BUILD)/tc-bench: $(BUILD)/bench-main.o $(BUILD)/bench-naive.o $(BUILD)/bench-naive-ffm.o
	$(CC) $^ -o $@ $(BENCH_BLAS_LIBS) $(BENCH_OCL_LIBS) $(LIBS) -ldl

# OPENBLAS_CORETYPE=Haswell from the environment would pin OpenBLAS to its
# AVX2 kernels; tc-bench then picks the best core type itself (see
# blas_setup in tools/bench.c). Passive OpenMP waits: spinning threads stall
# when the hypervisor deschedules a virtual CPU.
.PHONY: bench
bench: $(BUILD)/tc-bench
	env -u OPENBLAS_CORETYPE OMP_WAIT_POLICY=passive $(BUILD)/tc-bench $(BENCH_ARGS)
