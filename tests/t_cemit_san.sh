#!/usr/bin/env bash
# tests/t_cemit.sh again, with the CLI built with ASan+UBSan (make test
# builds build/test-san/tc): tc c's emission of every def there, leak-checked
# (the compiled t_cemit is not built sanitized: see the Makefile).
cd "$(dirname "$0")/.." || exit 1
if [ ! -x build/test-san/tc ]; then echo "build/test-san/tc missing (run make test)"; echo "RESULT 0 1"; exit 1; fi
TC=$PWD/build/test-san/tc ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$PWD/tests/lsan_opencl.supp exec bash tests/t_cemit.sh
