#!/usr/bin/env bash
# Runs every test program given on the command line (or listed, one command
# a line, on stdin with -), adds up their "RESULT <passed> <failed>" lines
# and prints the closing line CI reads: "N passed, M failed".
# A program that crashes or prints no RESULT line counts as one failure.
# Programs run as many at once as there are CPUs (TEST_JOBS overrides);
# each one's report comes in the order given. Every test keeps its files in
# a directory of its own, so they do not meet. Each report gives the
# program's wall time, to see where a test run's minutes go.
passed=0; failed=0
jobs_max=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0

start_one() { # command; its output and exit status go to $tmp/N.out, N.rc
    n=$((n + 1))
    printf '%s\n' "$1" >"$tmp/$n.cmd"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    ( t0=$(date +%s%N); (eval "$1") </dev/null >"$tmp/$n.out" 2>&1; echo $? >"$tmp/$n.rc"
      echo $((($(date +%s%N) - t0) / 100000000)) >"$tmp/$n.time" ) &
}

report_one() { # N
    local cmd out rc line secs
    cmd=$(cat "$tmp/$1.cmd"); out=$(cat "$tmp/$1.out"); rc=$(cat "$tmp/$1.rc")
    secs=$(cat "$tmp/$1.time"); secs="$((secs / 10)).$((secs % 10)) s"
    line=$(printf '%s\n' "$out" | grep -E '^RESULT [0-9]+ [0-9]+$' | tail -n 1)
    if [ -z "$line" ]; then
        echo "== $cmd: no RESULT line (exit $rc, $secs)"; printf '%s\n' "$out" | tail -n 30
        failed=$((failed + 1)); return
    fi
    set -- $line
    passed=$((passed + $2)); failed=$((failed + $3))
    if [ "$3" != 0 ] || [ "$rc" != 0 ]; then
        echo "== $cmd: $2 passed, $3 failed (exit $rc, $secs)"; printf '%s\n' "$out" | grep -v '^RESULT' | tail -n 40
        [ "$3" = 0 ] && failed=$((failed + 1))
    else
        echo "ok $cmd: $2 checks, $secs"
    fi
}

if [ "$1" = "-" ]; then
    while IFS= read -r cmd; do [ -n "$cmd" ] && start_one "$cmd"; done
else
    for cmd in "$@"; do start_one "$cmd"; done
fi
wait
for i in $(seq 1 "$n"); do report_one "$i"; done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
