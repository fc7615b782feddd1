#!/usr/bin/env bash
# tests/t_cli.sh again, on the CLI built with ASan+UBSan (make test builds
# build/test-san/tc): every path of the tool, leak-checked.
cd "$(dirname "$0")/.." || exit 1
if [ ! -x build/test-san/tc ]; then echo "build/test-san/tc missing (run make test)"; echo "RESULT 0 1"; exit 1; fi
# PoCL keeps some allocations for the life of the process: suppressed.
TC=$PWD/build/test-san/tc ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$PWD/tests/lsan_opencl.supp exec bash tests/t_cli.sh
