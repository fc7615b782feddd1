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
echo "RESULT $pass $fail"
