#!/usr/bin/env bash
# The examples build (make test builds them) and run to their "ok" line.
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0
for ex in demo threads; do
    out=$(./build/examples/$ex 2>&1); rc=$?
    if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -qx "$ex ok"; then pass=$((pass + 1));
    else fail=$((fail + 1)); echo "FAIL: examples/$ex.c (exit $rc)"; printf '%s\n' "$out" | tail -n 15; fi
done
# demo's deliberate compile error is rendered with file:line:col and a caret
if ./build/examples/demo 2>&1 | grep -q '^scale.tc:2:[0-9]*: error: '; then pass=$((pass + 1));
else fail=$((fail + 1)); echo "FAIL: demo did not print scale.tc:2:COL: error:"; fi
# README's embedding example, as written, in a main: it builds warning-free
# as C99 and as C++ and runs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
snippet=$(awk '/^## Embedding/ {e = 1} e && /^```c$/ {on = 1; next} on && /^```$/ {exit} on' README.md)
{
    printf '%s\n' "$snippet" | grep '^#'
    printf '#include <stdio.h>\n#include <string.h>\nint main(void) {\n'
    printf '%s\n' "$snippet" | grep -v '^#'
    printf '    return 0;\n}\n'
} >"$tmp/readme.c"
for build in "${CC:-cc} -std=c99 -x c" "c++ -std=c++11 -x c++"; do
    if [ -z "$snippet" ]; then fail=$((fail + 1)); echo "FAIL: no C example under README's Embedding"; break; fi
    if $build -Wall -Wextra -Werror -I. "$tmp/readme.c" -o "$tmp/readme" -lm -pthread 2>"$tmp/err" &&
        "$tmp/readme"; then pass=$((pass + 1));
    else fail=$((fail + 1)); echo "FAIL: README's example with $build"; head -n 20 "$tmp/err"; fi
done
# README's command-line examples, on the example sources
if ./build/tc infer examples/conv.tc N=1 C=3 H=32 W=32 M=8 KH=3 KW=3 2>&1 |
    grep -q 'output O: float32(1, 8, 30, 30)' && ./build/tc loops examples/mm.tc >/dev/null; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: README's tc infer / tc loops examples"; fi
echo "RESULT $pass $fail"
