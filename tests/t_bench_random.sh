#!/usr/bin/env bash
# tc-bench --random runs end to end: 5 defs of seed 3 with --quick (a few
# calls each, no figure looked at), every def checked "ok" against its C
# (tc_c_emit, compiled at run time), the 2-thread result against the
# 1-thread one, exit status 0, and the last line in its documented form.
# --dump is deterministic. Needs build/tc-bench (make test builds it;
# run alone, make build/tc-bench first); without it the
# checks are skipped and say so.
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0
bench=./build/tc-bench
if [ ! -x "$bench" ]; then
    echo "skipped: no $bench (make build/tc-bench)"
    echo "RESULT 0 0"; exit 0
fi
out=$(env -u OPENBLAS_CORETYPE "$bench" --random 5 --seed 3 --quick 2>&1); rc=$?
rows=$(printf '%s\n' "$out" | grep -cE '^r00[0-4]_[a-z]+ ')
okrows=$(printf '%s\n' "$out" | grep -E '^r00[0-4]_[a-z]+ ' | grep -c ' ok ')
last=$(printf '%s\n' "$out" | tail -n 1)
if [ "$rc" = 0 ] && [ "$rows" = 5 ] && [ "$okrows" = 5 ]; then pass=$((pass + 1));
else fail=$((fail + 1)); echo "FAIL: --random 5 --seed 3 --quick: exit $rc, $okrows of $rows rows ok"
    printf '%s\n' "$out" | tail -n 30; fi
if printf '%s\n' "$last" | grep -qE '^random: geomean [0-9]+\.[0-9]{2}x over 5 defs at 1T, [0-9]+\.[0-9]{2}x at 2T \(worst family [a-z]+ [0-9]+\.[0-9]{2}x\)$'; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: last line: $last"; fi
# the CSV form: a header, then tc and c rows at 1 and 2 threads per def
csv=$("$bench" --random 2 --seed 3 --quick --csv 2>/dev/null)
if [ "$(printf '%s\n' "$csv" | grep -cE '^(tc|c),r00[01]_[a-z]+,[^,]*,[a-z]+\.[a-z0-9-]+,[12],[0-9.]+,[0-9.]+,[0-9.]+,[0-9]+,,,ok$')" = 8 ] &&
    printf '%s\n' "$csv" | head -n 1 | grep -qx 'family,kernel,size,variant,threads,ms_med,ms_min,ms_max,reps,gflops,gbs,check'; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --csv"; printf '%s\n' "$csv" | head -n 12; fi
# the generator is the seed's alone; another seed gives other defs
a=$("$bench" --random 30 --seed 7 --dump); b=$("$bench" --random 30 --seed 7 --dump)
c=$("$bench" --random 30 --seed 8 --dump)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ]; then pass=$((pass + 1));
else fail=$((fail + 1)); echo "FAIL: --dump is not deterministic per seed"; fi
# a def picked by name is the one the full run has
one=$("$bench" --random 30 --seed 7 --dump r013_reduce)
if [ -n "$one" ] && printf '%s\n' "$a" | grep -qF "$(printf '%s\n' "$one" | grep '^def ')" &&
    [ "$(printf '%s\n' "$one" | grep -c '^def ')" = 1 ]; then pass=$((pass + 1));
else fail=$((fail + 1)); echo "FAIL: --dump r013_reduce"; printf '%s\n' "$one"; fi
echo "RESULT $pass $fail"
