#!/usr/bin/env bash
# Everything `make test` runs, in one list for tests/run.sh:
# compiled tests (optimized, sanitized, TSan), the compile matrix, shell
# tests and numpy-oracle tests.
cd "$(dirname "$0")/.."
{
    echo "bash tests/compile_check.sh"
    for t in build/test/t_*; do [ -x "$t" ] && echo "$t"; done
    for t in build/test-san/t_*; do [ -x "$t" ] && echo "ASAN_OPTIONS=detect_leaks=1 $t"; done
    for t in build/test-tsan/t_*; do [ -x "$t" ] && echo "TSAN_OPTIONS=halt_on_error=1 $t"; done
    for t in tests/t_*.sh; do [ -f "$t" ] && echo "bash $t"; done
    for t in tests/t_*.py; do [ -f "$t" ] && echo "${PYTHON:-/usr/bin/python3} $t"; done
} | bash tests/run.sh -
