#!/usr/bin/env bash
# End-to-end tests of build/tc: check, infer (text and --json), run on .npy
# files against numpy, disasm, loops, opencl, bench, and every usage and
# input error with its exit status (0 ok, 1 input error, 2 usage error;
# never a signal). Prints "RESULT <passed> <failed>" last.
cd "$(dirname "$0")/.." || exit 1
TC=${TC:-$PWD/build/tc}
PY=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
# t NAME WANT_RC CMD...: runs CMD (stdout in out, stderr in err), checks the status.
t() {
    local name=$1 want=$2 rc
    shift 2
    "$@" >out 2>err
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else
        bad "$name: exit $rc, want $want"
        head -n 8 err out | sed 's/^/    /'
    fi
}
# has NAME FILE TEXT: FILE contains the fixed string TEXT.
has() {
    if grep -qF -- "$3" "$2"; then ok; else
        bad "$1: '$3' not in $2"
        head -n 12 "$2" | sed 's/^/    /'
    fi
}
# same NAME FILE EXPECTED-TEXT: FILE is exactly the text.
same() {
    if [ "$(cat "$2")" = "$3" ]; then ok; else
        bad "$1: $2 differs"
        diff <(printf '%s\n' "$3") "$2" | head -n 20 | sed 's/^/    /'
    fi
}
# line NAME FILE TEXT: FILE has a line that is exactly TEXT.
line() {
    if grep -qxF -- "$3" "$2"; then ok; else
        bad "$1: no line '$3' in $2"
        head -n 12 "$2" | sed 's/^/    /'
    fi
}
empty() { if [ ! -s "$2" ]; then ok; else bad "$1: $2 not empty"; head -n 5 "$2" | sed 's/^/    /'; fi; }
# py NAME CODE: runs python code (numpy imported as np); it asserts.
py() {
    if "$PY" -c "import json, sys; import numpy as np
$2" >pyout 2>&1; then ok; else
        bad "$1"
        tail -n 8 pyout | sed 's/^/    /'
    fi
}

# ---- sources ----
cat >mm.tc <<'EOF'
def mm(float(M, K) A, float(K, N) B) -> (C) {
    C(i, j) +=! A(i, k) * B(k, j)
}
EOF
cat >softmax.tc <<'EOF'
def softmax(float(N, D) X) -> (Y) {
    mx(n) max=! X(n, d)
    e(n, d) = exp(X(n, d) - mx(n))
    s(n) +=! e(n, d)
    Y(n, d) = e(n, d) / s(n)
}
EOF
cat >conv.tc <<'EOF'
def conv2d(float(N, C, H, W) I, float(M, C, KH, KW) W1) -> (O) {
    O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)
}
def strided(float(N, C, H, W) I, float(M, C, KH, KW) W1) -> (O) {
    O(n, m, h, w) +=! I(n, c, 2 * h + kh, 2 * w + kw) * W1(m, c, kh, kw)
}
def shifted(float(I) X) -> (O) {
    O(i) = X(i - 1)
}
def reversed(float(I) B) -> (A) {
    A(i) = B(10 - i)
}
EOF
cat >mixed.tc <<'EOF'
def scale(int32(N) x, int32 k) -> (y, total) {
    y(i) = x(i) * k
    total +=! y(i)
}
EOF
cat >scalar_size.tc <<'EOF'
def s4(int32 K) -> (Y) {
    Y(i) = float(i) where i in 0:K*2
}
EOF
cat >const_size.tc <<'EOF'
def c3(float(3) X) -> (Y) {
    Y(i) = X(i) * 2.0
}
EOF
cat >gather.tc <<'EOF'
def embed(float(V, E) T, int64(B) idx) -> (O) {
    O(b, e) = T(idx(b), e)
}
EOF
printf 'def f(float(N) a) -> (b) {\n    b(i) = a(i) + )\n}\n' >bad.tc

# ---- check ----
t "check ok" 0 "$TC" check mm.tc
empty "check ok is silent" err
t "check all defs" 0 "$TC" check conv.tc
t "check syntax error" 1 "$TC" check bad.tc
same "check error text" err "bad.tc:2:19: error: expected an expression after '+', found ')'
    b(i) = a(i) + )
                  ^"
# the caret under the character (the column counts bytes): UTF-8 in a comment before it
printf 'def f(float(N) a) -> (b) {\n    b(i) = a(i) # caf\303\251 \342\202\254' >utf8.tc
t "check UTF-8 before the error" 1 "$TC" check utf8.tc
same "UTF-8 caret" err "utf8.tc:2:28: error: expected '}' to close def f (opened at 1:26), found end of input
    b(i) = a(i) # café €
                        ^"
# ... and the underline as long as the characters it spans
printf 'def f(double(N) A) -> (half(N) B) {\n  B(i) = A(i) + # \303\251\303\251 \342\202\254\n    A(i)\n}\n' >utf8span.tc
t "check UTF-8 in a span" 1 "$TC" check utf8span.tc
same "UTF-8 underline" err "utf8span.tc:2:10: error: B holds float16 but the right-hand side is float64: convert it explicitly, e.g. float16(...)
  B(i) = A(i) + # éé €
         ^~~~~~~~~~~~~"
t "check missing file" 1 "$TC" check nonexistent.tc
has "missing file message" err "nonexistent.tc: error: cannot open"
head -c 4096 /dev/urandom >garbage.tc
t "check random bytes" 1 "$TC" check garbage.tc
printf 'def f(float(N) a) -> (b) { b(i) = a(i) }\n\0junk' >nul.tc
t "check NUL byte" 1 "$TC" check nul.tc
has "NUL byte message" err "NUL byte"
printf 'def f(float(N) a) -> (b) {\n    b(i) = a(i) * q(i)\n}\n' >undef.tc
t "check undefined tensor" 1 "$TC" check undef.tc
has "undefined tensor position" err "undef.tc:2:19: error:"

# ---- usage errors: exit 2, one error line and the command's synopsis ----
# (not the whole usage: that is `tc --help`)
usage() { # NAME ARGS...
    local name=$1
    shift
    t "usage: $name" 2 "$TC" "$@"
    has "usage error line: $name" err "tc: error: "
    if grep -q '^commands:' err || [ "$(wc -l <err)" -gt 8 ]; then
        bad "usage: $name: the whole usage text again"; head -n 12 err | sed 's/^/    /'
    else ok; fi
}
usage "no command"
usage "unknown command" frobnicate mm.tc
usage "no file" check
usage "extra argument" check mm.tc other.tc
usage "unknown option" infer mm.tc --bogus
usage "size not integer" infer mm.tc M=abc
usage "size given twice" infer mm.tc M=1 M=2
usage "size without name" infer mm.tc =3
usage "sizes on check" check mm.tc M=2
usage "entry without name" infer mm.tc --entry
usage "run without -o" run mm.tc -i A=a.npy -i B=b.npy
usage "run -o without dir" run mm.tc -o
usage "run -o then an option" run mm.tc -i A=a.npy -i B=b.npy -o --time
has "-o then an option: message" err "-o needs a directory"
usage "entry then an option" infer conv.tc --entry --json
usage "run -o then a short option" run mm.tc -o -i A=a.npy -i B=b.npy
has "-o then a short option: message" err "-o needs a directory"
usage "threads then an option" bench mm.tc M=2 N=2 K=2 --threads -o
has "threads then an option: message" err "--threads needs a value"
usage "run bad -i" run mm.tc -i A -o outd
usage "run duplicate -i" run mm.tc -i A=a.npy -i A=b.npy -o outd
usage "run missing input" run mm.tc -i A=a.npy -o outd
usage "threads 0" run mm.tc -i A=a.npy -i B=b.npy -o outd --threads 0
usage "threads not a number" run mm.tc -i A=a.npy -i B=b.npy -o outd --threads x
usage "bad backend" run mm.tc -i A=a.npy -i B=b.npy -o outd --backend cuda
usage "reps without --time" run mm.tc -i A=a.npy -i B=b.npy -o outd --reps 3
usage "reps 0" bench mm.tc M=2 N=2 K=2 --reps 0
t "unknown input name" 2 "$TC" run mm.tc -i A=a.npy -i B=b.npy -i Z=z.npy -o outd
has "unknown input message" err "def mm has no input 'Z'; its inputs: A B"
t "unknown entry" 2 "$TC" infer conv.tc --entry nosuch
has "unknown entry message" err "no def named 'nosuch'; its defs: conv2d strided shifted reversed"
t "unknown size" 2 "$TC" infer mm.tc M=2 Q=3
has "unknown size message" err "unknown size 'Q'; the sizes of def mm: M K N"
t "help" 0 "$TC" --help
has "help text" out "usage: tc COMMAND"
for cmd in check infer run disasm loops opencl c bench; do
    t "$cmd --help" 0 "$TC" $cmd --help
    has "$cmd --help: its synopsis" out "  $cmd "
    t "$cmd -h after arguments" 0 "$TC" $cmd mm.tc -h
    t "help $cmd" 0 "$TC" help $cmd
done
t "help of an unknown command" 2 "$TC" help frob

# ---- infer: text ----
t "infer symbolic" 0 "$TC" infer mm.tc
has "infer i range" out "    i in [0, M)"
has "infer k reduction" out "    k in [0, K)  reduction"
has "infer output shape" out "  output C: float32(M, N)"
t "infer numbers" 0 "$TC" infer mm.tc M=2 N=4 K=3
has "infer numeric j" out "    j in [0, 4)"
has "infer numeric output" out "  output C: float32(2, 4)"
has "infer sizes line" out "  sizes: M=2 N=4 K=3"
t "infer sizes before the file" 0 "$TC" infer M=2 N=4 K=3 mm.tc
has "infer sizes before the file" out "  output C: float32(2, 4)"
t "infer conv symbolic" 0 "$TC" infer conv.tc --entry conv2d
has "infer conv h" out "h in [0, H - KH + 1)"
has "infer conv O" out "output O: float32(N, M, H - KH + 1, W - KW + 1)"
t "infer shifted symbolic" 0 "$TC" infer conv.tc --entry shifted
has "infer shifted" out "output O: float32(I + 1), lowest index written (1)"
t "infer temporaries" 0 "$TC" infer softmax.tc N=3 D=5
has "infer temporary" out "  temporary e: float32(3, 5)"
t "infer all defs" 0 "$TC" infer conv.tc
has "infer all defs: last" out "def reversed"
t "infer sizes from 0-rank inputs only, symbolic" 0 "$TC" infer scalar_size.tc
line "infer symbolic sizes line names the 0-rank input" out "  sizes: symbolic (missing: K)"
t "infer sizes from 0-rank inputs only, numbers" 0 "$TC" infer scalar_size.tc K=3
line "infer sizes line with the 0-rank input" out "  sizes: K=3"
line "infer 0-rank input sizes the output" out "  output Y: float32(6)"
t "infer constant extents" 0 "$TC" infer const_size.tc
line "infer: no sizes at all" out "  sizes: none (every extent is a number)"
t "infer scalar size input" 0 "$TC" infer mixed.tc N=4 k=3
line "infer 0-rank output" out "  output total: int32"
line "infer 0-rank output y" out "  output y: int32(4)"

# ---- infer: --json ----
json() { # NAME ENTRY SIZES PYTHON-ASSERTS (j: the parsed object)
    t "infer --json $1" 0 "$TC" infer conv.tc --json --entry "$2" $3
    cp out "$1.json"
    py "json $1" "j = json.load(open('$1.json'))
$4"
}
json conv2d conv2d "N=1 C=2 H=5 W=6 M=3 KH=3 KW=2" \
    "assert j['outputs']['O']['shape'] == [1, 3, 3, 5], j; assert j['outputs']['O']['min'] == [0, 0, 0, 0]; assert j['def'] == 'conv2d'"
json strided strided "N=1 C=2 H=7 W=6 M=3 KH=3 KW=2" \
    "assert j['outputs']['O']['shape'] == [1, 3, 3, 3], j"
json shifted shifted "I=5" \
    "assert j['outputs']['O'] == {'dtype': 'float32', 'shape': [6], 'min': [1]}, j"
json reversed reversed "I=4" \
    "assert j['outputs']['A']['shape'] == [11] and j['outputs']['A']['min'] == [7], j"
json loops conv2d "N=1 C=2 H=5 W=6 M=3 KH=3 KW=2" \
    "L = {l['name']: l for l in j['statements'][0]['loops']}; assert L['h']['hi'] == 3 and L['kh']['reduction'] and not L['h']['reduction'], j; assert j['sizes']['KH'] == 3"
t "infer --json one object" 0 "$TC" infer conv.tc --json I=4
py "json default def is the last" "j = json.loads(open('out').read()); assert j['def'] == 'reversed'"
t "infer --json missing sizes" 2 "$TC" infer conv.tc --json --entry conv2d N=1 C=2
has "missing sizes named" err "missing: H, W, M, KH, KW"
t "infer negative extent" 1 "$TC" infer conv.tc --entry conv2d N=1 C=1 H=1 W=2 M=1 KH=3 KW=1
has "negative extent message" err "conv.tc: error:"
has "negative extent names the sizes" err "H - KH + 1 = -1 (H = 1, KH = 3)"
cat >neg.tc <<'EOF'
def f(float(3) A, float(5) W) -> (O) {
    O(i) +=! A(i + k) * W(k)
}
EOF
t "an index range empty for every size is a source error" 1 "$TC" check neg.tc
line "an empty range at the index" err "neg.tc:2:7: error: the accesses that bound i leave it no value for any size: [0, -1) (their ranges are intersected); give it one with \`where i in lo:hi\`"
cat >negw.tc <<'EOF'
def f(float(3) A) -> (O) {
    O(i) = A(0) where i in 0:-1
}
EOF
t "a negative extent for every size is a source error" 1 "$TC" check negw.tc
line "negative extent at the left-hand side" err "negw.tc:2:5: error: O: dimension 0 has negative extent -1 (i in [0, -1))"
cat >scal.tc <<'EOF'
def f(uint8(N) A, int8 S) -> (O) {
    O(i) = A(i) where i in 0:S
}
EOF
t "a scalar size that fits its type" 0 "$TC" infer scal.tc --json N=500 S=127
py "the scalar size is the one used" "j = json.loads(open('out').read()); assert j['outputs']['O']['shape'] == [127], j"
t "a scalar size that does not fit its type" 1 "$TC" infer scal.tc --json N=500 S=300
line "the scalar size's range" err "scal.tc: error: size S=300 does not fit S's type int8 (-128 to 127)"
t "bench: a scalar size that does not fit" 1 "$TC" bench scal.tc N=500 S=-129

printf 'def f(float(N) A) -> (B) {\n  B(i) = A(i)\000 + 1\n}\n' >nul.tc
t "a NUL byte is a source error" 1 "$TC" check nul.tc
line "a NUL byte at its line and column" err "nul.tc:2:14: error: unexpected character (byte 0x00): a NUL byte in the source"
printf '\357\273\277def f(float(N) A) -> (B) {\r\n  B(i) = A(i) + Q\r\n}\r\n' >crlf.tc
t "a byte order mark and CRLF lines" 1 "$TC" check crlf.tc
same "CRLF: the echoed line has no CR" err "crlf.tc:2:17: error: Q is not declared: it is not a parameter, a size or a where binding, and no tensor is indexed by it; declare it as a parameter (float Q) or give it a range (where Q in 0:N)
  B(i) = A(i) + Q
                ^"
printf '\357\273\277def f(float(N) A) -> (B) { B(i) = A(i) + Q }' >bom.tc
t "a byte order mark before the first def" 1 "$TC" check bom.tc
same "columns after a byte order mark" err "bom.tc:1:42: error: Q is not declared: it is not a parameter, a size or a where binding, and no tensor is indexed by it; declare it as a parameter (float Q) or give it a range (where Q in 0:N)
def f(float(N) A) -> (B) { B(i) = A(i) + Q }
                                         ^"

# ---- run: .npy in, .npy out, against numpy ----
py "make inputs" "rng = np.random.default_rng(7)
np.save('a.npy', rng.standard_normal((5, 7)).astype(np.float32))
np.save('b.npy', rng.standard_normal((7, 3)).astype(np.float32))
np.save('x.npy', rng.standard_normal((4, 9)).astype(np.float32))
np.save('ab.npy', rng.standard_normal((7, 5)).astype(np.float32))
np.save('a64.npy', rng.standard_normal((5, 7)))
np.save('fortran.npy', np.asfortranarray(rng.standard_normal((5, 7)).astype(np.float32)))
np.save('big.npy', rng.standard_normal((5, 7)).astype('>f4'))
np.save('ix.npy', np.arange(6, dtype=np.int32) - 2)
np.save('k.npy', np.array(3, dtype=np.int32))
np.save('v5.npy', np.arange(1, 6, dtype=np.float32))
np.save('table.npy', rng.standard_normal((10, 4)).astype(np.float32))
np.save('idx.npy', np.array([3, 0, 9, 3, 7], dtype=np.int64))
np.save('idx_bad.npy', np.array([3, 10, 1], dtype=np.int64))
open('trunc.npy', 'wb').write(open('a.npy', 'rb').read()[:100])"
t "run mm" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o res
empty "run mm is silent" err
py "mm matches numpy" "c = np.load('res/C.npy'); a = np.load('a.npy'); b = np.load('b.npy')
assert c.dtype == np.float32 and c.shape == (5, 3), (c.dtype, c.shape)
assert np.allclose(c, a @ b, rtol=1e-5, atol=1e-5), abs(c - a @ b).max()"
t "run mm 1 thread" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o res1 --threads 1
t "run mm 3 threads" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o res3 --threads 3
if cmp -s res1/C.npy res3/C.npy; then ok; else bad "threads: results differ"; fi
t "run softmax" 0 "$TC" run softmax.tc -i X=x.npy -o nested/out/dir
py "softmax matches numpy" "x = np.load('x.npy'); y = np.load('nested/out/dir/Y.npy')
e = np.exp(x - x.max(1, keepdims=True)); ref = e / e.sum(1, keepdims=True)
assert y.shape == (4, 9) and np.allclose(y, ref, rtol=1e-5, atol=1e-6), abs(y - ref).max()
import os; assert sorted(os.listdir('nested/out/dir')) == ['Y.npy'], os.listdir('nested/out/dir')"
t "run 0-rank in and out" 0 "$TC" run mixed.tc -i x=ix.npy -i k=k.npy -o resm
py "0-rank output is a 0-d array" "y = np.load('resm/y.npy'); s = np.load('resm/total.npy')
assert y.dtype == np.int32 and list(y) == [-6, -3, 0, 3, 6, 9], y
assert s.shape == () and s.dtype == np.int32 and int(s) == 9, s"
t "run shifted" 0 "$TC" run conv.tc --entry shifted -i X=v5.npy -o ress
py "shifted output: O(0) is 0" "o = np.load('ress/O.npy'); assert list(o) == [0, 1, 2, 3, 4, 5], o"
t "run --time" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o rest --time --reps 3
has "run --time line" err "time: "
has "run --time runs" err "over 3 runs"
py "--time leaves one run's result" "c = np.load('rest/C.npy'); a = np.load('a.npy'); b = np.load('b.npy')
assert np.allclose(c, a @ b, rtol=1e-5, atol=1e-5)"
t "run unchecked gathers flag" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o resu --unchecked-gathers
# with inputs that exist, a forgotten -o value made a directory named --time
t "run -o then an option, inputs present" 2 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o --time
if [ ! -e ./--time ] && [ ! -e ./-i ]; then ok; else bad "-o then an option: a directory named after it"; fi
t "run -o then -i, inputs present" 2 "$TC" run mm.tc -o -i A=a.npy -i B=b.npy
if [ ! -e ./-i ]; then ok; else bad "-o then -i: a directory named -i"; fi

t "run gather" 0 "$TC" run gather.tc -i T=table.npy -i idx=idx.npy -o resg
py "gather matches numpy" "o = np.load('resg/O.npy'); ref = np.load('table.npy')[np.load('idx.npy')]
assert o.shape == (5, 4) and (o == ref).all(), o"
t "run gather unchecked" 0 "$TC" run gather.tc -i T=table.npy -i idx=idx.npy -o resgu --unchecked-gathers
if cmp -s resg/O.npy resgu/O.npy; then ok; else bad "unchecked gathers: results differ"; fi
t "run gather out of range" 1 "$TC" run gather.tc -i T=table.npy -i idx=idx_bad.npy -o resgx
has "gather error names the file" err "gather.tc: error:"
if [ ! -e resgx/O.npy ]; then ok; else bad "failed gather wrote an output"; fi

# run: input errors exit 1
t "run shape mismatch" 1 "$TC" run mm.tc -i A=a.npy -i B=a.npy -o resx
has "shape mismatch message" err "mm.tc: error:"
if [ ! -e resx/C.npy ]; then ok; else bad "failed run wrote an output"; fi
cat >three.tc <<'EOF'
def three(float(N) X) -> (A, B, C) {
    A(i) = X(i)
    B(i) = X(i) * 2.0
    C(i) = X(i) + 1.0
}
EOF
mkdir -p resw/B.npy
t "output path is a directory" 1 "$TC" run three.tc -i X=v5.npy -o resw
has "output path message" err "resw/B.npy: error: cannot create: Is a directory"
py "a failed write leaves no output, not even the ones before it" "import os
assert sorted(os.listdir('resw')) == ['B.npy'], os.listdir('resw')"
long=$(printf 'A%.0s' $(seq 246))
printf 'def f(float(N) X) -> (%s) { %s(i) = X(i) }\n' "$long" "$long" >long.tc
t "an output name as long as a file name may be" 0 "$TC" run long.tc -i X=v5.npy -o resl
if [ -f "resl/$long.npy" ] && [ "$(ls -A resl | wc -l)" = 1 ]; then ok; else bad "long output name: $(ls -A resl)"; fi
"$PY" -c "import numpy as np; np.save('x4k.npy', np.zeros(4096, np.float32))"
(ulimit -f 8; "$TC" run three.tc -i X=x4k.npy -o resf >out 2>err)
rc=$?
if [ "$rc" = 1 ]; then ok; else bad "a file-size limit: exit $rc, want 1 (no signal)"; fi
has "file-size limit message" err "write failed"
py "a file-size limit leaves no output" "import os
assert os.listdir('resf') == [], os.listdir('resf')"
t "run dtype mismatch" 1 "$TC" run mm.tc -i A=a64.npy -i B=b.npy -o resx
has "dtype mismatch message" err "a64.npy: error: input A of def mm is float32, but the file holds float64"
t "run Fortran order" 1 "$TC" run mm.tc -i A=fortran.npy -i B=b.npy -o resx
has "Fortran message" err "fortran.npy: error: Fortran-order arrays are not supported"
t "run big-endian" 1 "$TC" run mm.tc -i A=big.npy -i B=b.npy -o resx
has "big-endian message" err "big.npy: error: big-endian arrays are not supported"
t "run truncated npy" 1 "$TC" run mm.tc -i A=trunc.npy -i B=b.npy -o resx
has "truncated message" err "trunc.npy: error: truncated"
t "run missing npy" 1 "$TC" run mm.tc -i A=nope.npy -i B=b.npy -o resx
has "missing npy message" err "nope.npy: error: cannot open"
t "run not a npy" 1 "$TC" run mm.tc -i A=mm.tc -i B=b.npy -o resx
has "bad magic message" err "not a .npy file"
touch afile
t "run -o is a file" 1 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o afile/sub
t "run compile error" 1 "$TC" run bad.tc -i a=a.npy -o resx
has "run compile error text" err "bad.tc:2:19: error:"

# ---- disasm, loops, bench ----
t "disasm" 0 "$TC" disasm mm.tc
if [ -s out ]; then ok; else bad "disasm printed nothing"; fi
t "disasm --entry" 0 "$TC" disasm conv.tc --entry strided
if [ -s out ]; then ok; else bad "disasm --entry printed nothing"; fi
t "loops" 0 "$TC" loops mm.tc
has "loops header" out "// def mm (line 1)"
has "loops for" out "for (int i = 0; i < M; i++)"
has "loops body" out "C[i][j] += A[i][k] * B[k][j];"
has "loops fill" out "fill(C, 0);"
t "loops conv" 0 "$TC" loops conv.tc --entry strided
has "loops strided read" out "I[n][c][2*h + kh][2*w + kw]"
t "loops reversed" 0 "$TC" loops conv.tc --entry reversed
has "loops reversed read" out "A[i] = B[10 - i];"
t "loops unknown entry" 2 "$TC" loops conv.tc --entry nosuch
t "bench" 0 "$TC" bench mm.tc M=16 N=16 K=16 --reps 3 --threads 2
has "bench line" out "bench mm: M=16 N=16 K=16"
has "bench time" out "over 3 runs (2 threads, vm)"
t "bench missing sizes" 2 "$TC" bench mm.tc M=16
has "bench missing message" err "missing: K, N"
cat >softmax.tc <<'EOF'
def softmax(float(M,N) X) -> (mx, e, s, Y) {
    mx(i) max=! X(i,j)
    e(i,j) = exp(X(i,j) - mx(i))
    s(i) +=! e(i,j)
    Y(i,j) = e(i,j) / s(i)
}
EOF
t "bench discard" 0 "$TC" bench softmax.tc M=64 N=100 --reps 3 --threads 2 --discard mx,e,s
has "bench discard bytes" out "(0.051 MB of inputs + outputs"
t "bench keep all" 0 "$TC" bench softmax.tc M=64 N=100 --reps 3
has "bench keep all bytes" out "(0.077 MB of inputs + outputs"
usage "discard unknown output" bench softmax.tc M=4 N=4 --discard e,q
has "discard unknown message" err "--discard: def softmax has no output 'q'"
usage "discard no names" bench softmax.tc M=4 N=4 --discard
usage "discard on run" run mm.tc -i A=a.npy -i B=b.npy -o outd --discard C

# ---- OpenCL: emission always; the runner when make found OpenCL ----
t "opencl symbolic" 0 "$TC" opencl mm.tc
has "opencl kernel" out "__kernel void mm_C_s0("
t "opencl sizes baked in" 0 "$TC" opencl conv.tc --entry conv2d N=1 C=2 H=5 W=6 M=3 KH=3 KW=2
has "opencl conv kernel" out "__kernel void conv2d_O_s0("
t "opencl partial sizes" 2 "$TC" opencl mm.tc M=4
has "opencl missing sizes" err "missing: K, N"
t "opencl unknown entry" 2 "$TC" opencl conv.tc --entry nosuch
cat >zeros.tc <<'EOF'
def zeros(float(N) X, double(N) D) -> (A, B, C, E, F) {
    A(i) = sinpi(X(i))
    B(i) = cospi(X(i))
    C(i) = normcdfinv(X(i) * 0.0 + 0.5)
    E(i) = sinpi(D(i))
    F(i) = cospi(D(i))
}
EOF
py "zeros inputs" "x = np.array([1, -1, 2, -2, 0.5, 2.5, -0.5, 1.5, 0, -0.0], np.float32)
np.save('zx.npy', x); np.save('zd.npy', x.astype(np.float64))"
# IEEE sinPi/cosPi: sinpi(n) has the sign of n, cospi(n + 1/2) is +0; normcdfinv(0.5) is +0
ZEROS="x = np.load('zx.npy'); d = np.load(D + '/A.npy'), np.load(D + '/B.npy'), np.load(D + '/C.npy'), np.load(D + '/E.npy'), np.load(D + '/F.npy')
z = lambda v: [(float(a), bool(np.signbit(a))) for a in v if a == 0]
want_sin = [(0.0, bool(np.signbit(a))) for a in x if a == int(a)]
assert z(d[0]) == want_sin and z(d[3]) == want_sin, (z(d[0]), z(d[3]))
assert z(d[1]) == [(0.0, False)] * 4 and z(d[4]) == [(0.0, False)] * 4, (z(d[1]), z(d[4]))
assert z(d[2]) == [(0.0, False)] * 10, z(d[2])"
t "run signed zeros" 0 "$TC" run zeros.tc -i X=zx.npy -i D=zd.npy -o zvm
py "vm: signed zeros of sinpi, cospi, normcdfinv" "D = 'zvm'
$ZEROS"
if [ -z "${HAVE_OPENCL+x}" ]; then
    HAVE_OPENCL=$(printf '#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\nint main(void){return 0;}' |
        ${CC:-cc} -x c - -o /dev/null -lOpenCL 2>/dev/null && echo 1)
fi
if [ "$HAVE_OPENCL" = 1 ]; then
    t "run --backend opencl" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o reso --backend opencl
    py "opencl mm matches numpy" "c = np.load('reso/C.npy'); ref = np.load('a.npy') @ np.load('b.npy')
assert c.shape == (5, 3) and np.allclose(c, ref, rtol=1e-5, atol=1e-5), abs(c - ref).max()"
    t "run --backend opencl softmax" 0 "$TC" run softmax.tc -i X=x.npy -o resos --backend opencl
    py "opencl softmax matches numpy" "x = np.load('x.npy'); y = np.load('resos/Y.npy')
e = np.exp(x - x.max(1, keepdims=True)); ref = e / e.sum(1, keepdims=True)
assert np.allclose(y, ref, rtol=1e-5, atol=1e-6), abs(y - ref).max()"
    t "opencl gather out of range" 1 "$TC" run gather.tc -i T=table.npy -i idx=idx_bad.npy -o resox --backend opencl
    has "opencl gather error" err "gather.tc: error:"
    t "opencl shape mismatch" 1 "$TC" run mm.tc -i A=a.npy -i B=a.npy -o resox --backend opencl
    if [ ! -e resox ]; then ok; else bad "failed opencl runs wrote outputs"; fi
    t "opencl signed zeros" 0 "$TC" run zeros.tc -i X=zx.npy -i D=zd.npy -o zocl --backend opencl
    py "opencl: signed zeros of sinpi, cospi, normcdfinv" "D = 'zocl'
$ZEROS"
    t "opencl --time" 0 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o reso --backend opencl --time --reps 2
    has "opencl --time line" err "over 2 runs (opencl)"
else
    t "no opencl runner" 2 "$TC" run mm.tc -i A=a.npy -i B=b.npy -o reso --backend opencl
    has "no opencl runner message" err "no OpenCL runner"
fi


# ---- what new users hit: inline scalars, warnings per def, -q ----
printf 'def step(float(N,C) P, float(N,C) V, float dt) -> (P2) { P2(i,c) = P(i,c) + V(i,c) * dt }\n' >step.tc
"$PY" -c "import numpy as np; np.save('P.npy', np.ones((4,3), np.float32)); np.save('V.npy', np.arange(12, dtype=np.float32).reshape(4,3)); np.save('dt.npy', np.array(0.25, np.float32))"
t "inline scalar" 0 "$TC" run step.tc -i P=P.npy -i V=V.npy -i dt=0.5 -o sc1
py "inline scalar result" "assert (np.load('sc1/P2.npy') == 1 + np.arange(12, dtype=np.float32).reshape(4,3) * np.float32(0.5)).all()"
t "inline scalar, exponent form" 0 "$TC" run step.tc -i P=P.npy -i V=V.npy -i dt=1e-1 -o sc2
t "a 0-rank input from a file still" 0 "$TC" run step.tc -i P=P.npy -i V=V.npy -i dt=dt.npy -o sc3
py "0-rank file result" "assert (np.load('sc3/P2.npy') == 1 + np.arange(12, dtype=np.float32).reshape(4,3) * np.float32(0.25)).all()"
t "a 0-rank input that is neither" 1 "$TC" run step.tc -i P=P.npy -i V=V.npy -i dt=abc -o sc4
has "neither message" err "input dt is 0-rank: give a number"
t "a number for a tensor input is a path" 1 "$TC" run step.tc -i P=3 -i V=V.npy -i dt=1 -o sc5
printf 'def s(int8 k, float(N) A) -> (B, C) { B(i) = A(i) * k\n C(j) = A(j) where j in 0:N }\n' >k8.tc
"$PY" -c "import numpy as np; np.save('a3.npy', np.arange(3, dtype=np.float32))"
t "inline integer scalar" 0 "$TC" run k8.tc -i A=a3.npy -i k=-3 -o sc6
py "inline integer result" "assert (np.load('sc6/B.npy') == np.arange(3, dtype=np.float32) * -3).all()"
t "an integer input given a float" 1 "$TC" run k8.tc -i A=a3.npy -i k=0.5 -o sc7
t "an integer input out of its range" 1 "$TC" run k8.tc -i A=a3.npy -i k=300 -o sc8
has "range message" err "out of its range"
t "forgotten scalar" 1 "$TC" check <(printf 'def step(float(N,C) P, float(N,C) V) -> (P2) { P2(i,c) = P(i,c) + V(i,c) * dt }\n')
has "forgotten scalar message" err "dt is not declared"
has "forgotten scalar hint" err "declare it as a parameter (float dt)"
printf 'def acc(float(N) A) -> (S) { S(j) += A(i) where j in 0:1 }\ndef odd(float(I) X) -> (O) { O(i) = X(2*i + 1) where i in 0:(I+1)/2 }\ndef fine(float(N) A) -> (B) { B(i) = A(i) }\n' >warn.tc
"$PY" -c "import numpy as np; np.save('a4.npy', np.arange(4, dtype=np.float32))"
t "check warns about every def" 0 "$TC" check warn.tc
has "check: acc's warning" err "warn.tc:1:"
has "check: odd's warning" err "warn.tc:2:"
t "check -q" 0 "$TC" check warn.tc -q
empty "check -q is quiet" err
t "check --no-warnings" 0 "$TC" check --no-warnings warn.tc
empty "check --no-warnings is quiet" err
t "run warns only about the def it runs" 0 "$TC" run warn.tc --entry fine -i A=a4.npy -o w1
empty "run --entry fine: no warnings" err
t "run of a def with a warning" 0 "$TC" run warn.tc --entry acc -i A=a4.npy -o w2
has "run --entry acc warns" err "warn.tc:1:"
if grep -q 'warn.tc:2:' err; then bad "run --entry acc warned about odd"; else ok; fi
t "infer --entry odd" 0 "$TC" infer warn.tc --entry odd
if grep -q 'warn.tc:1:' err; then bad "infer --entry odd warned about acc"; else ok; fi
printf 'def mm(float(M,K) A, float(K,N) B) -> (O) {\n  O(i,j) +=! A(i,k) * B(k,j) <=> matmul(A(i,k), B(k,j))\n}\n' >equiv.tc
t "equivalence annotation" 0 "$TC" check equiv.tc
echo "RESULT $pass $fail"
