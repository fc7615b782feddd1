#!/usr/bin/env bash
# Compiles the implementation with gcc and clang, as C99, C11 and C++,
# -Wall -Wextra -Wpedantic -Werror (and the stricter C set), with TC_STATIC,
# TC_NO_THREADS and custom allocator macros. One check per configuration.
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0; n=0
STRICT="-Wshadow -Wconversion -Wdouble-promotion -Wundef -Wstrict-prototypes -Wmissing-prototypes -Wcast-qual -Wwrite-strings"
jobs_max=$(nproc 2>/dev/null || echo 1)
# One compile per configuration, as many at once as there are CPUs; each
# leaves $tmp/N.name, and $tmp/N.ok when it compiled (tallied at the end).
slot() { # name: the next check's number, once a CPU is free
    n=$((n + 1))
    echo "$1" >"$tmp/$n.name"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
}
try() { # name, compiler and flags...
    slot "$1"; shift
    ( "$@" -I. -c tests/compile_unit.c -o "$tmp/$n.o" 2>"$tmp/$n.err" && touch "$tmp/$n.ok" ) &
}
try_sh() { # name, a shell command (its own output files)
    slot "$1"
    ( bash -c "$2" >"$tmp/$n.err" 2>&1 && touch "$tmp/$n.ok" ) &
}
for cc in gcc clang; do
    try "$cc c99"          $cc -std=c99 -Wall -Wextra -Wpedantic -Werror $STRICT
    try "$cc c11"          $cc -std=c11 -Wall -Wextra -Wpedantic -Werror $STRICT
    try "$cc c99 static"   $cc -std=c99 -Wall -Wextra -Wpedantic -Werror -DTC_STATIC
    try "$cc c99 nothreads" $cc -std=c99 -Wall -Wextra -Wpedantic -Werror -DTC_NO_THREADS
    try "$cc c99 malloc"   $cc -std=c99 -Wall -Wextra -Wpedantic -Werror -DTEST_CUSTOM_MALLOC
    try "$cc c99 opencl"   $cc -std=c99 -Wall -Wextra -Wpedantic -Werror $STRICT -DTEST_OPENCL
    if [ -f /usr/include/CL/cl.h ]; then
        try "$cc c99 opencl runner" $cc -std=c99 -Wall -Wextra -Wpedantic -Werror -DTEST_OPENCL \
            -DTC_OPENCL_RUNNER -DCL_TARGET_OPENCL_VERSION=120
    fi
done
for cxx in g++ clang++; do
    try "$cxx c++11 opencl" $cxx -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -DTEST_OPENCL
    try "$cxx c++11" $cxx -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror
    try "$cxx c++17" $cxx -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror
done
# Optimized, with the AVX-512 kernels (the intrinsics of some compilers
# warn about themselves only when optimizing): compiles on any x86-64.
# clang++ at -O1: 14 s a compile rather than 32 (the longest of the
# checks), its front end checked above and its optimizer's warnings
# clang's at -O2 (g++ takes as long at -O1 as at -O2).
if [ "$(uname -m)" = x86_64 ]; then
    for cc in "gcc -std=c99 -O2" "clang -std=c99 -O2" "g++ -x c++ -std=c++11 -O2" "clang++ -x c++ -std=c++11 -O1"; do
        try "${cc%% *} ${cc##* } avx512" $cc -mavx512f -mavx2 -mfma -Wall -Wextra -Wpedantic -Werror
    done
fi
# Two translation units, the implementation in one: links and runs.
try_sh "two translation units" "gcc -std=c99 -Wall -Wextra -Werror -I. -c tests/compile_unit.c -o $tmp/a.o &&
    gcc -std=c99 -Wall -Wextra -Werror -I. -DTEST_NO_IMPL -c tests/compile_unit.c -o $tmp/b.o &&
    gcc $tmp/a.o $tmp/b.o -o $tmp/two -lm -pthread && $tmp/two"
# No mutable global state: the implementation has no .data or .bss symbols
# (objdump, not nm: nm shows const pointer tables as `d`). -O0: an
# optimizer may drop a variable nothing writes, never add one (and -O2
# took 24 s of the checks' 3 minutes).
try_sh "mutable global state in the library" "gcc -std=c99 -O0 -I. -DTEST_OPENCL -c tests/compile_unit.c -o $tmp/g.o &&
    ! objdump -t $tmp/g.o | grep -E '[[:space:]]\.(data|bss)[[:space:]]'"
wait
for i in $(seq 1 "$n"); do
    if [ -f "$tmp/$i.ok" ]; then pass=$((pass+1));
    else fail=$((fail+1)); echo "FAIL compile: $(cat "$tmp/$i.name")"; head -n 20 "$tmp/$i.err"; fi
done
echo "RESULT $pass $fail"
