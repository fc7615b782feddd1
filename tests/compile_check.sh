#!/usr/bin/env bash
# Compiles the implementation with gcc and clang, as C99, C11 and C++,
# -Wall -Wextra -Wpedantic -Werror (and the stricter C set), with TC_STATIC,
# TC_NO_THREADS and custom allocator macros. One check per configuration.
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
STRICT="-Wshadow -Wconversion -Wdouble-promotion -Wundef -Wstrict-prototypes -Wmissing-prototypes -Wcast-qual -Wwrite-strings"
try() { # name, compiler and flags...
    local name=$1; shift
    if "$@" -I. -c tests/compile_unit.c -o "$tmp/o.o" 2>"$tmp/err"; then pass=$((pass+1));
    else fail=$((fail+1)); echo "FAIL compile: $name"; head -n 20 "$tmp/err"; fi
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
# Two translation units, the implementation in one: links and runs.
if gcc -std=c99 -Wall -Wextra -Werror -I. -c tests/compile_unit.c -o "$tmp/a.o" &&
   gcc -std=c99 -Wall -Wextra -Werror -I. -DTEST_NO_IMPL -c tests/compile_unit.c -o "$tmp/b.o" &&
   gcc "$tmp/a.o" "$tmp/b.o" -o "$tmp/two" -lm -pthread && "$tmp/two"; then pass=$((pass+1));
else fail=$((fail+1)); echo "FAIL two translation units"; fi
# No mutable global state: the implementation has no .data or .bss symbols
# (objdump, not nm: nm shows const pointer tables as `d`).
if gcc -std=c99 -O2 -I. -DTEST_OPENCL -c tests/compile_unit.c -o "$tmp/g.o" &&
   ! objdump -t "$tmp/g.o" | grep -E '[[:space:]]\.(data|bss)[[:space:]]'; then pass=$((pass+1));
else fail=$((fail+1)); echo "FAIL mutable global state in the library"; fi
echo "RESULT $pass $fail"
