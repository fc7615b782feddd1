#!/usr/bin/env bash
# Runs every test program given on the command line (or listed, one command
# a line, on stdin with -), adds up their "RESULT <passed> <failed>" lines
# and prints the closing line CI reads: "N passed, M failed".
# A program that crashes or prints no RESULT line counts as one failure.
passed=0; failed=0
run_one() {
    local cmd=$1 out rc line
    out=$(eval "$cmd" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^RESULT [0-9]+ [0-9]+$' | tail -n 1)
    if [ -z "$line" ]; then
        echo "== $cmd: no RESULT line (exit $rc)"; printf '%s\n' "$out" | tail -n 30
        failed=$((failed + 1)); return
    fi
    set -- $line
    passed=$((passed + $2)); failed=$((failed + $3))
    if [ "$3" != 0 ] || [ "$rc" != 0 ]; then
        echo "== $cmd: $2 passed, $3 failed (exit $rc)"; printf '%s\n' "$out" | grep -v '^RESULT' | tail -n 40
        [ "$3" = 0 ] && failed=$((failed + 1))
    else
        echo "ok $cmd: $2 checks"
    fi
}
if [ "$1" = "-" ]; then
    while IFS= read -r cmd; do [ -n "$cmd" ] && run_one "$cmd"; done
else
    for cmd in "$@"; do run_one "$cmd"; done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
