#!/usr/bin/env bash
# Conformance of the front end (and the CLI contracts that expose it) with
# the documents: seeds 000 (grammar), 001 (range inference), 003 (examples)
# as settled by SEMANTICS.md. Cases are written from the documents, not from
# the code: inferred shapes and lowest indices via `tc infer --json`, runs
# against numpy via `tc run`, and errors with their exit status, line:column,
# message and caret. Prints "RESULT <passed> <failed>" last.
cd "$(dirname "$0")/.." || exit 1
export TC=${TC:-$PWD/build/tc}
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

# A small python library the cases share: run/infer/check through the CLI.
cat >conf.py <<'EOF'
import json, os, subprocess, tempfile
import numpy as np
TC = os.environ["TC"]

def _src(src):
    fd, path = tempfile.mkstemp(suffix=".tc", dir=".")
    os.write(fd, src.encode()); os.close(fd)
    return path

def check(src):
    """(exit status, stderr) of `tc check`."""
    p = subprocess.run([TC, "check", _src(src)], capture_output=True, text=True)
    return p.returncode, p.stderr

def infer(src, entry=None, **sizes):
    """(exit status, the --json object or None, stderr)."""
    args = [TC, "infer", _src(src), "--json"] + (["--entry", entry] if entry else [])
    args += ["%s=%d" % kv for kv in sizes.items()]
    p = subprocess.run(args, capture_output=True, text=True)
    j = json.loads(p.stdout) if p.returncode == 0 else None
    return p.returncode, j, p.stderr

def shapes(src, entry=None, **sizes):
    """{output: (shape, min)}; asserts the inference succeeded."""
    rc, j, err = infer(src, entry, **sizes)
    assert rc == 0, (rc, err)
    return {k: (v["shape"], v["min"]) for k, v in j["outputs"].items()}

def run(src, entry=None, threads=None, **ins):
    """(exit status, {output: array}, stderr) of `tc run` on the arrays ins."""
    d = tempfile.mkdtemp(dir=".")
    args = [TC, "run", _src(src)] + (["--entry", entry] if entry else [])
    for k, v in ins.items():
        np.save(os.path.join(d, k + ".npy"), v)
        args += ["-i", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
    args += ["-o", os.path.join(d, "out")] + (["--threads", str(threads)] if threads else [])
    p = subprocess.run(args, capture_output=True, text=True)
    od = os.path.join(d, "out")
    outs = {}
    if os.path.isdir(od):
        for f in os.listdir(od):
            outs[f[:-4]] = np.load(os.path.join(od, f))
    return p.returncode, outs, p.stderr

def ok_run(src, entry=None, **ins):
    rc, outs, err = run(src, entry, **ins)
    assert rc == 0, (rc, err)
    return outs

def fails(src, entry=None, *words, **ins):
    """The run exits 1, writes nothing and its message holds every word."""
    rc, outs, err = run(src, entry, **ins)
    assert rc == 1, (rc, err)
    assert outs == {}, outs
    for w in words:
        assert w in err, (w, err)
    return err

f32 = np.float32
def vec(*v, dtype=f32):
    return np.array(v, dtype=dtype)
rng = np.random.default_rng(1234)
def rnd(*shape, dtype=f32):
    return rng.standard_normal(shape).astype(dtype)
def close(a, b, tol=1e-5):
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.allclose(a, b, rtol=tol, atol=tol), (a, b)
    return True
EOF

# py NAME CODE: python code (conf's names imported) that asserts.
py() {
    if "$PY" -c "from conf import *
from conf import _src
$2" >pyout 2>&1; then ok; else
        bad "$1"
        tail -n 6 pyout | sed 's/^/    /'
    fi
}

# err NAME LINE:COL MESSAGE-PART SOURCE: `tc check` exits 1 and prints
# FILE:LINE:COL: error: ... with MESSAGE-PART, the source line, a caret under COL.
err() {
    local name=$1 pos=$2 msg=$3 line col rc
    printf '%s\n' "$4" >e.tc
    "$TC" check e.tc >out 2>errout
    rc=$?
    line=${pos%%:*}
    col=${pos##*:}
    if [ "$rc" != 1 ]; then
        bad "$name: exit $rc, want 1"
        head -n 3 errout | sed 's/^/    /'
        return
    fi
    local first second third want_src caret
    first=$(sed -n 1p errout)
    second=$(sed -n 2p errout)
    third=$(sed -n 3p errout)
    want_src=$(sed -n "${line}p" e.tc)
    caret=$(printf '%*s' $((col - 1)) '')^
    if [[ "$first" == "e.tc:$pos: error: "*"$msg"* ]] && [ "$second" = "$want_src" ] &&
        [[ "$third" == "$caret"* ]]; then ok; else
        bad "$name: want e.tc:$pos: error: ...$msg..."
        head -n 3 errout | sed 's/^/    /'
    fi
}

# valid NAME SOURCE: `tc check` exits 0.
valid() {
    printf '%s\n' "$2" >v.tc
    if "$TC" check v.tc >out 2>errout; then ok; else
        bad "$1: check failed"
        head -n 3 errout | sed 's/^/    /'
    fi
}

# ======================= seed 001: range inference =======================
py "001 stencil shape" "
S = '''def stencil(float(N) B, float(M) C) -> (A) {
  A(i) = B(i) + C(i-2)
}'''
assert shapes(S, N=10, M=5) == {'A': ([7], [2])}, shapes(S, N=10, M=5)
assert shapes(S, N=10, M=10) == {'A': ([10], [2])}
assert shapes(S, N=3, M=100) == {'A': ([3], [2])}
b, c = rnd(10), rnd(6)
A = ok_run(S, B=b, C=c)['A']
ref = np.zeros(8, f32); ref[2:] = b[2:8] + c[0:6]
assert (A == ref).all(), (A, ref)"

py "001 mat_mul (-> A without parentheses)" "
S = '''def mat_mul(float(I, K) B, float(K, J) C) -> A {
  A(i, j) +=! B(i, k) * C(k, j)
}'''
assert shapes(S, I=3, K=4, J=5) == {'A': ([3, 5], [0, 0])}
b, c = rnd(3, 4), rnd(4, 5)
close(ok_run(S, B=b, C=c)['A'], b @ c)"

py "001 1-D convolution A(i) += B(i+k) * K(k)" "
S = '''def conv(float(N) B, float(L) K) -> (A) {
  A(i) += B(i + k) * K(k)
}'''
assert shapes(S, N=10, L=3) == {'A': ([8], [0])}
assert shapes(S, N=3, L=3) == {'A': ([1], [0])}
b, k = rnd(10), rnd(3)
close(ok_run(S, B=b, K=k)['A'], np.correlate(b, k, 'valid'))"

PRE='def pre(float(I) B, float(N) C, float(J) D) -> (A) {
  A(i, j) = B(i) * C(i + j) * D(j)
}'
py "001 preconditions: run, C large enough" "
S = '''$PRE'''
assert shapes(S, I=3, N=4, J=2) == {'A': ([3, 2], [0, 0])}
b, c, d = rnd(3), rnd(4), rnd(2)
A = ok_run(S, B=b, C=c, D=d)['A']
ref = b[:, None] * c[np.arange(3)[:, None] + np.arange(2)[None, :]] * d[None, :]
close(A, ref)"
py "001 preconditions: C too small is a run-time error naming C" "
fails('''$PRE''', None, 'C', B=rnd(3), C=rnd(3), D=rnd(2))"
py "001 preconditions: the inference does not fail on sizes alone" "
rc, j, e = infer('''$PRE''', I=3, N=3, J=2)
assert rc in (0, 1), rc"

py "001 lut gather" "
S = '''def lut(float(J) B, int32(I) C) -> A {
  A(i) = B(C(i))
}'''
assert shapes(S, J=4, I=6) == {'A': ([6], [0])}
b = rnd(4); c = vec(3, 0, 2, 2, 1, 0, dtype=np.int32)
assert (ok_run(S, B=b, C=c)['A'] == b[c]).all()
e = fails(S, None, 'B', B=b, C=vec(0, 4, 1, dtype=np.int32))
e = fails(S, None, 'B', B=b, C=vec(0, -1, 1, dtype=np.int32))"

py "001 lut clamped" "
S = '''def lut(float(J) B, int32(I) C) -> A {
  A(i) = B(max(min(C(i), J-1), 0))
}'''
b = rnd(4); c = vec(-5, 0, 3, 4, 100, 2, dtype=np.int32)
assert (ok_run(S, B=b, C=c)['A'] == b[np.clip(c, 0, 3)]).all()"

REV='def reverted(float(I) B) -> A {
  A(i) = B(10 - i)
}'
py "001 reverted (SEMANTICS 5 correction)" "
S = '''$REV'''
assert shapes(S, I=5) == {'A': ([11], [6])}, shapes(S, I=5)
assert shapes(S, I=11) == {'A': ([11], [0])}
assert shapes(S, I=20) == {'A': ([11], [0])}
assert shapes(S, I=1) == {'A': ([11], [10])}
b = rnd(4)
A = ok_run(S, B=b)['A']
ref = np.zeros(11, f32); ref[7:] = b[::-1]
assert (A == ref).all(), A
b = rnd(15)
assert (ok_run(S, B=b)['A'] == b[10::-1]).all()"

py "001 subsample_2" "
S = '''def subsample_2(float(I) B) -> A {
  A(i) = B(2*i)
}'''
for n in range(0, 9):
    assert shapes(S, I=n) == {'A': ([(n + 1) // 2], [0])}, n
b = rnd(7)
assert (ok_run(S, B=b)['A'] == b[::2]).all()"

py "001 average_pool_2, unrolled" "
S = '''def average_pool_2(float(I) B) -> A {
  A(i) = B(2*i) + B(2*i + 1)
}'''
for n in range(0, 9):
    assert shapes(S, I=n) == {'A': ([n // 2], [0])}, n
b = rnd(7)
assert (ok_run(S, B=b)['A'] == b[0:6:2] + b[1:6:2]).all()"

py "001 average_pool_2, with where k = [0, 2[" "
S = '''def average_pool_2(float(I) B) -> A {
  A(i) +=! B(2*i + k) where k = [0, 2[
}'''
for n in range(0, 9):
    assert shapes(S, I=n) == {'A': ([n // 2], [0])}, n
b = rnd(9)
close(ok_run(S, B=b)['A'], b[0:8:2] + b[1:8:2])
S2 = S.replace('k = [0, 2[', 'k in 0:2')
assert shapes(S2, I=9) == {'A': ([4], [0])}"

err "001 average_pool_2 with = and a reduction index" 2:27 "k appears only on the right" \
'def average_pool_2(float(I) B) -> A {
  A(i) = B(2*i + k) where k = [0, 2[
}'

err "001 dynamic stride needs a where" 2:10 "where" \
'def subsample_2(float(I) B, int32(1) S) -> A {
  A(i) = B(S(0)*i)
}'
py "001 dynamic stride with a where clause runs, gather checked" "
S = '''def subsample_2(float(I) B, int32(1) S) -> A {
  A(i) = B(S(0)*i) where i in 0:I/2
}'''
b = rnd(8)
assert (ok_run(S, B=b, S=vec(2, dtype=np.int32))['A'] == b[0:8:2]).all()
fails(S, None, 'B', B=b, S=vec(3, dtype=np.int32))"

# ======================= SEMANTICS 5 =======================
py "5 O(i) = I(i - 1)" "
S = '''def shift(float(N) I) -> (O) {
  O(i) = I(i - 1)
}'''
assert shapes(S, N=5) == {'O': ([6], [1])}
x = rnd(5)
O = ok_run(S, I=x)['O']
assert O[0] == 0 and (O[1:] == x).all(), O"

py "5 A(i, j) = B(i) + B(j + 3)" "
S = '''def f(float(N) B) -> (A) {
  A(i, j) = B(i) + B(j + 3)
}'''
assert shapes(S, N=5) == {'A': ([5, 2], [0, 0])}
b = rnd(5)
assert (ok_run(S, B=b)['A'] == b[:, None] + b[None, 3:5]).all()"

err "5 constant where range below 0 on a left-hand index" 2:25 "A(i)" \
'def f(float(N) B) -> (A) {
  A(i) = B(i + 1) where i in -1:3
}'
py "5 where range below 0 decided at run time" "
S = '''def f(float(N) B) -> (A) {
  A(i) = B(i + N) where i in 1 - N:0
}'''
fails(S, None, 'A', B=rnd(4))
O = ok_run(S, B=rnd(1))['A']
assert O.shape == (0,), O.shape"
py "5 an empty where range reaches no index: nothing to check, nothing written" "
for rng in ('-1:-2', '9:3', '-4:-4'):
    S = '''def f(float(N) B) -> (A) {
  A(i) = B(i)
  A(i) += B(i + 7) where i in %s
}''' % rng
    rc, err = check(S)
    assert rc == 0 and 'error' not in err and 'warning' not in err, (rng, rc, err)
    b = rnd(3)
    assert (ok_run(S, B=b)['A'] == b).all(), rng"
py "5 where range past a known size on a left-hand index" "
S = '''def f(float(N) B) -> (A) {
  A(i) = B(i)
  A(i) += 1.0 where i in 0:N + 1
}'''
rc, out, e = run(S, B=rnd(3))
assert rc == 1 and out == {}, (rc, e)"

CONV1='def conv(float(N) B, float(L) K) -> (A) {
  A(i) +=! B(i + k) * K(k)
}'
py "5 negative extent at run time names tensor and sizes" "
e = fails('''$CONV1''', None, 'A', B=rnd(2), K=rnd(4))
assert '-1' in e or 'N' in e, e
rc, j, e = infer('''$CONV1''', N=2, L=4)
assert rc == 1 and 'A' in e, (rc, e)"
py "5 zero extent gives an empty output" "
assert shapes('''$CONV1''', N=2, L=3) == {'A': ([0], [0])}
A = ok_run('''$CONV1''', B=rnd(2), K=rnd(3))['A']
assert A.shape == (0,) and A.dtype == f32, A"
py "5 an extent zero for every size is an empty output too" "
C = '''def f(float(3) B) -> (A) {
  A(i) = B(i + 3)
}'''
assert check(C)[0] == 0, check(C)
assert shapes(C) == {'A': ([0], [0])}
assert ok_run(C, B=rnd(3))['A'].shape == (0,)
S = '''def f(float(N) B) -> (A) {
  A(i) = B(i) + B(i + N)
}'''
assert shapes(S, N=3) == {'A': ([0], [0])}
assert ok_run(S, B=rnd(3))['A'].shape == (0,)
Z = 'def f(float(0) X) -> (A) { A(i) = X(i) * 2 }'
assert ok_run(Z, X=rnd(0))['A'].shape == (0,)"
py "5 size variable bound twice names both tensors" "
S = '''def mm(float(M, K) A, float(K, N) B) -> (C) {
  C(i, j) +=! A(i, k) * B(k, j)
}'''
e = fails(S, None, 'A', 'B', A=rnd(2, 3), B=rnd(4, 5))
assert 'K' in e, e"

# ======================= seed 003 =======================
py "003 mv, +=! and +=" "
for op in ('+=!', '+='):
    S = '''def mv(float(R,C) A, float(C) B) -> (o) {
o(i) %s A(i,j) * B(j)
}''' % op
    assert shapes(S, R=3, C=4) == {'o': ([3], [0])}
    a, b = rnd(3, 4), rnd(4)
    close(ok_run(S, A=a, B=b)['o'], a @ b)"
py "003 mm, corrected" "
S = '''def mm(float(X,Y) A, float(Y,Z) B) -> (R) {
  R(i,j) +=! A(i,k) * B(k,j)
}'''
assert shapes(S, X=2, Y=3, Z=4) == {'R': ([2, 4], [0, 0])}
a, b = rnd(2, 3), rnd(3, 4)
close(ok_run(S, A=a, B=b)['R'], a @ b)"
py "003 mm as printed (valid TC: k reduces)" "
S = '''def mm(float(X,Y) A, float(Y,Z) B) -> (R) {
  R(i,j) += A(i,j) * B(j,k)
}'''
assert shapes(S, X=2, Y=3, Z=4) == {'R': ([2, 3], [0, 0])}
a, b = rnd(2, 3), rnd(3, 4)
close(ok_run(S, A=a, B=b)['R'], a * b.sum(1)[None, :])"
py "003 conv" "
S = '''def conv(float(B,IP,H,W) input, float(OP,IP,KH,KW) weight) -> (output) {
  output(b, op, h, w) += input(b, ip, h + kh, w + kw) * weight(op, ip, kh, kw)
}'''
assert shapes(S, B=2, IP=3, H=6, W=7, OP=4, KH=3, KW=2) == {'output': ([2, 4, 4, 6], [0, 0, 0, 0])}
x, w = rnd(2, 3, 6, 7), rnd(4, 3, 3, 2)
ref = np.zeros((2, 4, 4, 6))
for kh in range(3):
    for kw in range(2):
        ref += np.einsum('bihw,oi->bohw', x[:, :, kh:kh + 4, kw:kw + 6], w[:, :, kh, kw])
close(ok_run(S, input=x, weight=w)['output'], ref.astype(f32), 1e-4)"
py "003 maxpool2x2 with [0, 2[" "
S = '''def maxpool2x2(float(B,C,H,W) input) -> (output) {
output(b,c,i,j) max=! input(b,c,2*i + kw, 2*j + kh)
where kw = [0, 2[, kh = [0, 2[
}'''
assert shapes(S, B=1, C=2, H=5, W=6) == {'output': ([1, 2, 2, 3], [0, 0, 0, 0])}
x = rnd(1, 2, 5, 6)
ref = x[:, :, :4, :].reshape(1, 2, 2, 2, 3, 2).max(axis=(3, 5))
assert (ok_run(S, input=x)['output'] == ref).all()
S2 = S.replace('max=!', 'max=')
assert (ok_run(S2, input=x)['output'] == np.maximum(ref, 0)).all()"

# ======================= seed 000: grammar =======================
MULTI='# several defs
def first(float(N) x) -> (y) {
  y(i) = x(i) + 1.0   // comment
}
# between defs
def second(float(N) x) -> (y) {
  y(i) = x(i) * 2.0   # comment
}'
py "000 several defs, --entry" "
x = rnd(4)
assert (ok_run('''$MULTI''', 'first', x=x)['y'] == x + f32(1)).all()
assert (ok_run('''$MULTI''', 'second', x=x)['y'] == x * f32(2)).all()
assert shapes('''$MULTI''', 'first', N=4) == {'y': ([4], [0])}"

py "000 every type and alias" "
T = {'bool': np.bool_, 'int8': np.int8, 'int16': np.int16, 'int32': np.int32, 'int64': np.int64,
     'uint8': np.uint8, 'uint16': np.uint16, 'uint32': np.uint32, 'uint64': np.uint64,
     'float16': np.float16, 'half': np.float16, 'float32': f32, 'float': f32,
     'float64': np.float64, 'double': np.float64, 'byte': np.uint8}
for name, dt in T.items():
    S = 'def f(%s(N) x) -> (y) { y(i) = x(i) }' % name
    rc, j, e = infer(S, N=3)
    assert rc == 0, (name, e)
    assert j['outputs']['y']['shape'] == [3], (name, j)
    x = (np.arange(3) % 2).astype(dt)
    y = ok_run(S, x=x)['y']
    assert y.dtype == dt and (y == x).all(), (name, y.dtype, y)"

py "000 0-rank parameter and output" "
S = '''def axpy(float alpha, float(N) x, float(N) y) -> (z, s) {
  z(i) = alpha * x(i) + y(i)
  s +=! z(i)
}'''
assert shapes(S, N=4) == {'z': ([4], [0]), 's': ([], [])}
x, y = rnd(4), rnd(4)
o = ok_run(S, alpha=np.array(2.5, f32), x=x, y=y)
assert (o['z'] == f32(2.5) * x + y).all()
assert o['s'].shape == () and abs(float(o['s']) - float(o['z'].sum())) < 1e-5"

py "000 typed output with dims" "
S = '''def f(float(M, N) A) -> (float(M, N) C) {
  C(i, j) = A(i, j)
}'''
assert shapes(S, M=2, N=3) == {'C': ([2, 3], [0, 0])}
a = rnd(2, 3); assert (ok_run(S, A=a)['C'] == a).all()
S = '''def f(float(M, N) A) -> (double(M, N) C) {
  C(i, j) = A(i, j)
}'''
C = ok_run(S, A=a)['C']; assert C.dtype == np.float64 and (C == a).all()"
err "000 typed output dims provably different" 1:23 "C is declared with dimension 0 = M, but its inferred extent is M - 1" \
'def f(float(M) A) -> (float(M) C) {
  C(i) = A(i + 1)
}'
py "000 typed output dims different at run time names both" "
S = '''def f(float(M, N) A) -> (float(N, M) C) {
  C(i, j) = A(i, j)
}'''
a = rnd(3, 3); assert (ok_run(S, A=a)['C'] == a).all()
fails(S, None, 'C', A=rnd(2, 3))"

py "000 T.d in where ranges" "
S = '''def f(float(N) A, float(M, K) B) -> (C) {
  C(i) = A(i) where i in 0:B.1
}'''
assert shapes(S, N=6, M=2, K=4) == {'C': ([4], [0])}
a = rnd(6); assert (ok_run(S, A=a, B=rnd(2, 4))['C'] == a[:4]).all()
S = '''def f(float(N) A) -> (T, C) {
  T(i) = A(i) * 2.0
  C(i) = T(i) where i in 1:T.0 - 1
}'''
assert shapes(S, N=6) == {'T': ([6], [0]), 'C': ([5], [1])}"

py "000 exists" "
S = '''def f(float(N) A, float(M) B) -> (C) {
  C(i) = A(i) where exists B(i)
}'''
assert shapes(S, N=6, M=4) == {'C': ([4], [0])}
a = rnd(6); assert (ok_run(S, A=a, B=rnd(4))['C'] == a[:4]).all()"

py "000 lets and ternary" "
S = '''def f(float(N) x) -> (y) {
  y(i) = t > 0.0 ? t * t : -t where t = x(i) + 1.0
}'''
x = rnd(7); t = x + f32(1)
assert (ok_run(S, x=x)['y'] == np.where(t > 0, t * t, -t)).all()"

py "000 every reduction operator, with and without !" "
x = rnd(3, 4)
for op, fn, ident in (('+', np.sum, 0), ('*', np.prod, 1), ('min', np.min, np.inf), ('max', np.max, -np.inf)):
    S = 'def f(float(N, K) x) -> (y) { y(i) %s=! x(i, k) }' % op
    close(ok_run(S, x=x)['y'], fn(x, 1))
    S = 'def f(float(N, K) x) -> (y) { y(i) %s= x(i, k) }' % op
    ref = {'+': x.sum(1), '*': np.zeros(3), 'min': np.minimum(x.min(1), 0), 'max': np.maximum(x.max(1), 0)}[op]
    close(ok_run(S, x=x)['y'], ref.astype(f32))
    S = 'def f(float(N) x) -> (y) { y(i) %s=! x(i - 1) }' % op
    y = ok_run(S, x=vec(3, 4))['y']
    assert y.shape == (3,) and y[0] == ident and list(y[1:]) == [3, 4], (op, y)"
py "000 T(i) *=! X(i) leaves 1 where it does not write" "
S = '''def f(float(N) X) -> (T) {
  T(i) *=! X(i) where i in 2:N
}'''
assert list(ok_run(S, X=vec(5, 6, 7, 8))['T']) == [1, 1, 7, 8]"
py "000 integer reduction identities" "
S = 'def f(int32(N) x) -> (a, b) { a(i) min=! x(i - 1)  b(i) max=! x(i - 1) }'
o = ok_run(S, x=vec(3, 4, dtype=np.int32))
assert list(o['a']) == [2**31 - 1, 3, 4] and list(o['b']) == [-2**31, 3, 4], o"

CALLS='def two(float(N) x, float(N) y) -> (s, d) {
  s(i) = x(i) + y(i)
  d(i) = x(i) - y(i)
}
def f(float(N) a, float(N) b) -> (p, q) {
  p, q = two(a, b)
}'
py "000 TC-to-TC call a, b = f(x, y)" "
a, b = rnd(5), rnd(5)
o = ok_run('''$CALLS''', 'f', a=a, b=b)
assert sorted(o) == ['p', 'q'] and (o['p'] == a + b).all() and (o['q'] == a - b).all()"
py "000 temporaries are not written" "
S = '''def f(float(N) x) -> (y) {
  t(i) = x(i) * 2.0
  y(i) = t(i) + 1.0
}'''
o = ok_run(S, x=vec(1, 2))
assert sorted(o) == ['y'] and list(o['y']) == [3, 5], o"

# ---- errors of seed 000 / SEMANTICS 2, 3 ----
# sizes that are constants in the source are checked there, with the place
err "constant dimensions whose product overflows" 1:7 "x is too large: 9223372036854775807 x 4 float32 values" \
'def f(float(9223372036854775807, 4) x) -> (y) { y(i) = x(i, 0) }'
err "a where range too large for its output" 1:23 "y is too large: 4611686018427387904 float32 values" \
'def f(float(N) x) -> (y) { y(i) = 1.0 where i in 0:4611686018427387904 }'
err "a constant bound that overflows" 2:25 "this bound overflows 64 bits" \
'def f(float(N) x) -> (y) {
  y(i) = 1 where i in 0:4611686018427387904*4
}'
err "reduction without an operator names the variable" 2:15 "k appears only on the right" \
'def f(float(N, K) x) -> (y) {
  y(i) = x(i, k)
}'
err "writing an input" 2:3 "x" \
'def f(float(N) x) -> (y) {
  x(i) = 1.0
  y(i) = x(i)
}'
err "undefined tensor" 2:10 "q" \
'def f(float(N) x) -> (y) {
  y(i) = q(i) + x(i)
}'
err "undefined callee" 2:7 "g" \
'def f(float(N) x) -> (y) {
  y = g(x)
}'
err "duplicate parameter" 1:28 "x" \
'def f(float(N) x, float(N) x) -> (y) {
  y(i) = x(i)
}'
err "wrong index count" 2:10 "x" \
'def f(float(N, M) x) -> (y) {
  y(i) = x(i)
}'
err "non-integral index" 2:12 "index" \
'def f(float(N) x, float(N) z) -> (y) {
  y(i) = x(z(i))
}'
err "non-bool condition" 2:10 "bool" \
'def f(float(N) x) -> (y) {
  y(i) = x(i) ? 1.0 : 0.0
}'
err "builtin arity" 2:10 "exp" \
'def f(float(N) x) -> (y) {
  y(i) = exp(x(i), 1.0)
}'
err "builtin arity, fma" 2:10 "fma" \
'def f(float(N) x) -> (y) {
  y(i) = fma(x(i), 1.0)
}'
err "redefining a builtin as a parameter" 1:16 "exp" \
'def f(float(N) exp) -> (y) {
  y(i) = exp(i)
}'
err "redefining a builtin as an output" 1:23 "tanh" \
'def f(float(N) x) -> (tanh) {
  tanh(i) = x(i)
}'
err "left-hand indices must be distinct" 2:8 "i" \
'def f(float(N, N) x) -> (y) {
  y(i, i) = x(i, i)
}'
err "syntax error" 3:1 "expected an expression" \
'def f(float(N) x) -> (y) {
  y(i) = x(i) +
}'
err "call arity" 6:3 "two" \
'def two(float(N) x, float(N) y) -> (s) {
  s(i) = x(i) + y(i)
}
def f(float(N) a) -> (p) {
  p(i) = a(i)
  p = two(a)
}'
err "a def cannot take a builtin's name" 1:5 '`exp` is a builtin function and cannot be used as a name' \
'def exp(float(N) x) -> (y) { y(i) = x(i) }'
err "a def cannot take a type's name" 1:5 '`half` is a type name' \
'def half(float(N) x) -> (y) { y(i) = x(i) }'
err "an unknown type in the outputs" 1:26 "unknown type 'flaot'" \
'def f(float(N) x) -> (y, flaot(N) z) {
  y(i) = x(i)
  z(i) = x(i)
}'
err "an error that the call's arguments cause is the call's" 4:3 "in the call to g: C has 2 dimensions but is written with 1 index (raised at 1:28" \
'def g(float(N) X) -> (P) { P(i) = X(i) * 2 }
def f(float(N, M) A, float(N) V) -> (C) {
  C(i, j) = A(i, j)
  C = g(V)
}'
err "a call's arguments are tensor names" 2:32 "a call is a statement of its own whose arguments are tensor names" \
'def g(float(N) X) -> (P) { P(i) = X(i) * 2 }
def f(float(N) A) -> (C) { C = g(A + 1) }'
err "an index only ?: branches bound, left no value, is an error, not an empty output" 2:5 "the accesses that bound i leave it no value for any size: [N, N)" \
'def cat(float(N) A, float(M) B) -> (O) {
  O(i) = (i < N) ? A(i) : B(i - N)
}'
valid "the same with its range given" 'def cat(float(N) A, float(M) B) -> (O) {
  O(i) = (i < N) ? A(i) : B(i - N) where i in 0:N + M
}'
err "narrowing store needs a cast" 2:10 "int32(" \
'def f(float(N) x) -> (int32(N) y) {
  y(i) = x(i)
}'
valid "casts written as calls" 'def f(float(N) x) -> (int32(N) y, z) {
  y(i) = int32(x(i))
  z(i) = float(y(i)) + half(x(i))
}'
valid "every builtin with its arity" 'def f(float(N) x) -> (a, b, c, d) {
  a(i) = acos(x(i)) + acosh(x(i)) + asin(x(i)) + asinh(x(i)) + atan(x(i)) + atanh(x(i)) + cbrt(x(i)) + ceil(x(i)) + cos(x(i)) + cosh(x(i)) + cospi(x(i)) + cyl_bessel_i0(x(i)) + cyl_bessel_i1(x(i)) + erf(x(i)) + erfc(x(i)) + erfcinv(x(i)) + erfcx(x(i)) + erfinv(x(i)) + exp(x(i)) + exp10(x(i)) + exp2(x(i)) + expm1(x(i)) + fabs(x(i)) + floor(x(i)) + j0(x(i)) + j1(x(i)) + lgamma(x(i)) + log(x(i)) + log10(x(i)) + log1p(x(i)) + log2(x(i)) + logb(x(i)) + normcdf(x(i)) + normcdfinv(x(i)) + rcbrt(x(i)) + round(x(i)) + rsqrt(x(i)) + sin(x(i)) + sinh(x(i)) + sinpi(x(i)) + sqrt(x(i)) + tan(x(i)) + tanh(x(i)) + tgamma(x(i)) + trunc(x(i)) + y0(x(i)) + y1(x(i))
  b(i) = atan2(x(i), 1.0) + copysign(x(i), 1.0) + fdim(x(i), 1.0) + fdivide(x(i), 1.0) + fmax(x(i), 1.0) + fmin(x(i), 1.0) + fmod(x(i), 1.0) + hypot(x(i), 1.0) + nextafter(x(i), 1.0) + pow(x(i), 1.0) + remainder(x(i), 1.0) + rhypot(x(i), 1.0)
  c(i) = fma(x(i), 1.0, 2.0) + norm3d(x(i), 1.0, 2.0) + rnorm3d(x(i), 1.0, 2.0) + min(x(i), 1.0) + max(x(i), 1.0)
  d(i) = norm4d(x(i), 1.0, 2.0, 3.0) + rnorm4d(x(i), 1.0, 2.0, 3.0)
}'

# ======================= SEMANTICS 4: integers =======================
py "4 floor division and modulo in kernels" "
S = '''def f(int32(N) x, int32(N) y) -> (q, r, h, m) {
  q(i) = x(i) / y(i)
  r(i) = x(i) % y(i)
  h(i) = x(i) / 2
  m(i) = x(i) % 2
}'''
x = vec(-7, 7, -7, 7, 5, -5, dtype=np.int32); y = vec(2, -2, -2, 2, 0, 0, dtype=np.int32)
o = ok_run(S, x=x, y=y)
assert list(o['q']) == [-4, -4, 3, 3, 0, 0], o['q']
assert list(o['r']) == [1, -1, -1, 1, 0, 0], o['r']
assert list(o['h']) == [-4, 3, -4, 3, 2, -3], o['h']
assert list(o['m']) == [1, 1, 1, 1, 1, 1], o['m']
for dt in (np.int8, np.int16, np.int64):
    S2 = S.replace('int32', np.dtype(dt).name)
    o = ok_run(S2, x=x.astype(dt), y=y.astype(dt))
    assert list(o['q']) == [-4, -4, 3, 3, 0, 0] and list(o['r']) == [1, -1, -1, 1, 0, 0], (dt, o)"
py "4 float modulo has the sign of the divisor too (numpy's %)" "
S = '''def f(float(N) x, float(N) y, double(N) u, double(N) v) -> (r, s) {
  r(i) = x(i) % y(i)
  s(i) = u(i) % v(i)
}'''
x = vec(5.5, -5.5, 5.5, -5.5, 0.0, -0.0, -1e-30, 6.0, 7.25)
y = vec(2, 2, -2, -2, 2, -2, 1, -3, 0.5)
o = ok_run(S, x=x, y=y, u=x.astype(np.float64), v=y.astype(np.float64))
for got, a, b in ((o['r'], x, y), (o['s'], x.astype(np.float64), y.astype(np.float64))):
    want = np.mod(a, b)
    assert got.dtype == a.dtype and (got == want).all(), (got, want)
    assert (np.signbit(got) == np.signbit(want)).all(), (got, want)
assert list(o['r'][:4]) == [1.5, 0.5, -0.5, -1.5] and o['r'][6] == 1.0, o['r']"
py "4 floor division and modulo in size expressions" "
def ext(expr, **sizes):
    S = 'def f(float(N) x, float(M) z) -> (A) { A(i) = z(i) where i in 0:%s }' % expr
    rc, j, e = infer(S, **sizes)
    assert rc == 0, (expr, e)
    return j['outputs']['A']['shape'][0]
assert ext('(N - 9) / 2 + 5', N=2, M=10) == 1
assert ext('(N - 9) / -2', N=2, M=10) == 3
assert ext('(N - 9) % 4', N=2, M=10) == 1
assert ext('(9 - N) % -4 + 2', N=2, M=10) == 1
assert ext('N / (N - N) + 2', N=2, M=10) == 2
assert ext('N % (N - N) + 2', N=2, M=10) == 2
z = rnd(10)
S = 'def f(float(N) x, float(M) z) -> (A) { A(i) = z(i) where i in 0:(N - 9) / -2 }'
assert (ok_run(S, x=rnd(2), z=z)['A'] == z[:3]).all()"
py "4 signed overflow wraps" "
S = '''def f(int32(N) x) -> (a, b, c) {
  a(i) = x(i) + 2147483647
  b(i) = x(i) * 65536 * 65536
  c(i) = -x(i) - 2147483647 - 2
}'''
o = ok_run(S, x=vec(1, 3, dtype=np.int32))
assert list(o['a']) == [-2**31, -2**31 + 2], o['a']
assert list(o['b']) == [0, 0], o['b']
assert o['a'].dtype == np.int32 and list(o['c']) == [2**31 - 2, 2**31 - 4], o['c']
S = 'def f(int64(N) x) -> (a) { a(i) = x(i) + 9223372036854775807 }'
assert list(ok_run(S, x=vec(1, dtype=np.int64))['a']) == [-2**63]"
py "1 literals: int32 / float32 / int64" "
S = '''def f(int8(N) a, half(N) h, float(N) x) -> (p, q, r, s) {
  p(i) = a(i) * 3
  q(i) = h(i) / 3.0
  r(i) = double(x(i)) * 1e-3
  s(i) = a(i) + 4294967296
}'''
a = vec(100, -100, dtype=np.int8); h = vec(1, 2, dtype=np.float16); x = vec(1, 3)
o = ok_run(S, a=a, h=h, x=x)
assert o['p'].dtype == np.int32 and list(o['p']) == [300, -300], o['p']
assert o['q'].dtype == f32 and (o['q'] == h.astype(f32) / f32(3)).all(), o['q']
assert o['r'].dtype == np.float64 and o['s'].dtype == np.int64
assert list(o['s']) == [4294967396, 4294967196], o['s']"

py "1 literals: a float literal is float32 in a float64 context too (widened), also through a where binding" "
S = '''def f(double(N) d) -> (a, b, c, e, g, h) {
  a(i) = d(i) * 0.1
  b(i) = d(i) * c1 where c1 = 0.1
  c(i) = d(i) > 2.0 ? c2 : d(i) where c2 = -0.1
  e(i) = d(i) * 1e30
  g(i) = double(0.1) + d(i) * 0
  h(i) = d(i) / 10
}'''
d = np.arange(5.0)
o = ok_run(S, d=d)
w = np.float64(f32(0.1))
assert o['a'].dtype == np.float64 and (o['a'] == d * w).all() and (o['b'] == d * w).all(), (o['a'], o['b'])
assert (o['c'] == np.where(d > 2, -w, d)).all(), o['c']
assert (o['e'] == d * np.float64(f32(1e30))).all() and (o['g'] == w).all(), (o['e'], o['g'])
assert (o['h'] == d / 10).all(), o['h']
rc, e = check('def f(double(N) d) -> (a) { a(i) = d(i) * 1e300 }')
assert rc == 1 and ':1:43: error: number 1e300 is too large for float32' in e, e"
py "1 literals in C syntax: hex, octal, integer suffixes, hex floats" "
S = '''def f(float(N) x) -> (a, b, c, d, e, g, h, k) {
  a(i) = 0x1F + 010 + 0 where i in 0:N
  b(i) = 10u where i in 0:N
  c(i) = -1u where i in 0:N
  d(i) = 10L + 7ll where i in 0:N
  e(i) = 10ul + 0XFFFFFFFFFFFFFFF0 where i in 0:N
  g(i) = 0x1.8p1 + 0x1p-2f + x(i) * 0
  h(i) = 4294967296u where i in 0:N
  k(i) = 1.5e0f + 2.F where i in 0:N
}'''
o = ok_run(S, x=rnd(1))
want = {'a': (np.int32, 39), 'b': (np.uint32, 10), 'c': (np.uint32, 2**32 - 1), 'd': (np.int64, 17),
        'e': (np.uint64, 2**64 - 6), 'g': (f32, 3.25), 'h': (np.uint64, 2**32), 'k': (f32, 3.5)}
for k, (t, v) in want.items():
    assert o[k].dtype == t and int(o[k][0]) == v if t != f32 else o[k][0] == v, (k, o[k], o[k].dtype)
for bad, why in (('019', 'octal'), ('0x1.8', 'exponent'), ('10uu', 'invalid number')):
    rc, e = check('def f(float(N) x) -> (a) { a(i) = x(i) + %s }' % bad)
    assert rc == 1 and why in e, (bad, e)"
py "1 literals: float32's largest value, and past it" "
S = 'def f(float(N) x) -> (a) { a(i) = x(i) * 0 + 3.40282347e38 }'
assert (ok_run(S, x=rnd(2))['a'] == np.finfo(f32).max).all()
rc, e = check('def f(float(N) x) -> (a) { a(i) = x(i) + 1e39 }')
assert rc == 1 and ':1:42: error: number 1e39 is too large for float32' in e, e"
py "1 literals: the digits give an integer its type, a minus keeps it (as in C)" "
S = '''def f(int32(N) x) -> (a, b) {
  a(i) = x(i) * 0 + -2147483648 - 1
  b(i) = x(i) + -2147483647 - 1
}'''
o = ok_run(S, x=vec(0, 1, dtype=np.int32))
assert o['a'].dtype == np.int64 and list(o['a']) == [-2**31 - 1] * 2, o['a']
assert o['b'].dtype == np.int32 and list(o['b']) == [-2**31, -2**31 + 1], o['b']"

py "2 a call's size variable bound twice names the callee's size" "
S = '''def f(float(N) X, float(N) Y) -> (Z) { Z(i) = X(i) + Y(i) }
def main(float(P) A, float(Q) B) -> (C) { C = f(A, B) }'''
e = fails(S, None, 'dimension 0 of B is Q', \"f's N\", '4 != 6', A=rnd(6), B=rnd(4))"

# ======================= SEMANTICS 6: reads =======================
py "6 ?: guards an out-of-range read (padding, 0-rank size input)" "
S = '''def pad(float(H) I, int32 P) -> (O) {
  O(h) = (h >= P && h < H + P) ? I(h - P) : 0.0 where h in 0:H + 2*P
}'''
x = rnd(4)
O = ok_run(S, I=x, P=np.array(2, np.int32))['O']
assert (O == np.pad(x, 2)).all(), O"
py "6 ?: guarding a shifted read without a where" "
S = '''def f(float(N) X) -> (O) {
  O(i) = i >= 1 ? X(i - 1) : 0.0 where i in 0:N
}'''
assert list(ok_run(S, X=vec(1, 2, 3))['O']) == [0, 1, 2]"
py "6 && and || guard a read as C does: the right side only where it decides" "
S = '''def f(float(N) B) -> (A, C) {
  A(i) = i > 0 && B(i - 1) > 0.5 ? 1.0 : 0.0 where i in 0:N
  C(i) = i == 0 || B(i - 1) > 0.5 ? 1.0 : 0.0 where i in 0:N
}'''
B = vec(0.9, 0.1, 0.7, 0.2)
for t in (1, 2):
    rc, o, e = run(S, None, t, B=B)
    assert rc == 0, e
    assert list(o['A']) == [0, 1, 0, 1] and list(o['C']) == [1, 1, 0, 1], o
G = '''def g(float(N) B, int32(M) I) -> (A) {
  A(i) = I(i) >= 0 && I(i) < N && B(I(i)) > 0.5 ? 1.0 : 0.0
}'''
o = ok_run(G, B=B, I=vec(-1, 0, 1, 2, 4, 9, dtype=np.int32))
assert list(o['A']) == [0, 1, 0, 1, 0, 0], o"
py "6 && keeps the ranges of ordinary programs: its right side's reads bound them" "
S = 'def both(float(N) X, float(M) Z) -> (Y) { Y(i) = X(i) > 0 && Z(i) > 0 }'
assert shapes(S, N=5, M=3) == {'Y': ([3], [0])}
o = ok_run(S, X=vec(1, -1, 2, 3, -4), Z=vec(1, -1, 2))
assert list(o['Y']) == [True, False, True], o
rc, e = check('def f(float(N) x) -> (y) { y(i) = x(i) where i in 0:N + -1u }')
assert rc == 1 and 'not a size expression' in e, e"
py "6 gather out of range names the access" "
S = '''def embed(float(V, E) T, int64(B) idx) -> (O) {
  O(b, e) = T(idx(b), e)
}'''
t = rnd(4, 3)
assert (ok_run(S, T=t, idx=vec(3, 0, 1, dtype=np.int64))['O'] == t[[3, 0, 1]]).all()
fails(S, None, 'T(idx(b), e)', T=t, idx=vec(3, 4, dtype=np.int64))"

# ======================= shapes of the kernel families =======================
py "shapes: conv2d, strided, padded via where, pooling" "
S = '''def conv2d(float(N, C, H, W) I, float(M, C, KH, KW) W1) -> (O) {
  O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)
}'''
assert shapes(S, N=2, C=3, H=8, W=9, M=4, KH=3, KW=2) == {'O': ([2, 4, 6, 8], [0] * 4)}
S = '''def sconv(float(N, C, H, W) I, float(M, C, KH, KW) W1) -> (O) {
  O(n, m, h, w) +=! I(n, c, 2 * h + kh, 3 * w + kw) * W1(m, c, kh, kw)
}'''
assert shapes(S, N=1, C=1, H=8, W=9, M=1, KH=3, KW=2) == {'O': ([1, 1, 3, 3], [0] * 4)}
S = '''def avgpool(float(N, C, H, W) I) -> (O) {
  O(n, c, h, w) +=! I(n, c, 3 * h + kh, 3 * w + kw) / 9.0 where kh in 0:3, kw in 0:3
}'''
assert shapes(S, N=1, C=2, H=10, W=9) == {'O': ([1, 2, 3, 3], [0] * 4)}"
py "shapes: conv gradients" "
S = '''def conv_grad_input(float(N, M, OH, OW) dO, float(M, C, KH, KW) W1) -> (dI) {
  dI(n, c, h, w) +=! (h - kh >= 0 && h - kh < OH && w - kw >= 0 && w - kw < OW) ? dO(n, m, h - kh, w - kw) * W1(m, c, kh, kw) : 0.0
    where h in 0:OH + KH - 1, w in 0:OW + KW - 1
}
def conv_grad_weight(float(N, M, OH, OW) dO, float(N, C, H, W) I) -> (dW) {
  dW(m, c, kh, kw) +=! dO(n, m, oh, ow) * I(n, c, oh + kh, ow + kw)
}'''
assert shapes(S, 'conv_grad_input', N=1, M=2, OH=4, OW=5, C=3, KH=3, KW=2) == {'dI': ([1, 3, 6, 6], [0] * 4)}
assert shapes(S, 'conv_grad_weight', N=1, M=2, OH=4, OW=5, C=3, H=6, W=7) == {'dW': ([2, 3, 3, 3], [0] * 4)}
dO, w = rnd(1, 2, 4, 5), rnd(2, 3, 3, 2)
dI = ok_run(S, 'conv_grad_input', dO=dO, W1=w)['dI']
ref = np.zeros((1, 3, 6, 6))
for kh in range(3):
    for kw in range(2):
        ref[:, :, kh:kh + 4, kw:kw + 5] += np.einsum('nmhw,mc->nchw', dO, w[:, :, kh, kw])
close(dI, ref.astype(f32), 1e-4)"
py "shapes: stencils, shifts, reversal, subsampling" "
S = '''def st2(float(H, W) X) -> (Y) {
  Y(i, j) = X(i - 1, j) + X(i + 1, j) + X(i, j - 1) + X(i, j + 1)
}'''
assert shapes(S, H=5, W=6) == {'Y': ([4, 5], [1, 1])}
x = rnd(5, 6); Y = ok_run(S, X=x)['Y']
ref = np.zeros((4, 5), f32); ref[1:, 1:] = x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:]
assert (Y == ref).all()
S = 'def sh(float(N) X) -> (Y) { Y(i) = X(i + 2) }'
assert shapes(S, N=5) == {'Y': ([3], [0])}
S = 'def rv(float(N) X) -> (Y) { Y(i) = X(N - 1 - i) }'
assert shapes(S, N=5) == {'Y': ([5], [0])}
assert (ok_run(S, X=vec(1, 2, 3))['Y'] == vec(3, 2, 1)).all()
S = 'def ss(float(N) X) -> (Y) { Y(i) = X(3 * i + 1) }'
for n in range(0, 10):
    assert shapes(S, N=n) == {'Y': ([max(0, (n + 1) // 3)], [0])}, n
S = 'def t(float(M, N) X) -> (Y) { Y(j, i) = X(i, j) }'
assert shapes(S, M=2, N=3) == {'Y': ([3, 2], [0, 0])}"

# ---- regressions found by this suite ----
py "reads in ?: branches bound otherwise unbound variables through pure indices" "
S = '''def f(float(N) X, float(M) Y) -> (O) {
  O(i, j) = (i >= 1) ? X(i - 1) * Y(j) : 0.0 where i in 0:N + 1
}'''
assert shapes(S, N=3, M=4) == {'O': ([4, 4], [0, 0])}
x, y = rnd(3), rnd(4)
ref = np.zeros((4, 4), f32); ref[1:] = x[:, None] * y[None, :]
assert (ok_run(S, X=x, Y=y)['O'] == ref).all()"
py "floor division in an index bounds the range (upsampling)" "
S = 'def up(float(N) B) -> (A) { A(i) = B(i / 2) }'
assert shapes(S, N=5) == {'A': ([10], [0])}
assert (ok_run(S, B=vec(1, 2, 3))['A'] == vec(1, 1, 2, 2, 3, 3)).all()
S = 'def up(float(N) B) -> (A) { A(i) = B((i - 3) / 2) }'
assert shapes(S, N=5) == {'A': ([13], [3])}
S = 'def up(float(N) B) -> (A) { A(i) = B((2 * i + 1) / 3) }'
assert shapes(S, N=5) == {'A': ([7], [0])}
S = 'def up2(float(H, W) B) -> (A) { A(i, j) = B(i / 2, j / 3) }'
assert shapes(S, H=2, W=2) == {'A': ([4, 6], [0, 0])}
b = rnd(2, 2)
assert (ok_run(S, B=b)['A'] == np.repeat(np.repeat(b, 2, 0), 3, 1)).all()"

py "a floor quotient plus an affine rest bounds the range as the one quotient it equals" "
# floor(X / c) + Y = floor((X + c Y) / c); -(X / c) = floor((c - 1 - X) / c); X / -c = -X / c
cases = [('i / 2 + 1', lambda i: i // 2 + 1), ('1 + i / 2', lambda i: 1 + i // 2),
         ('i / 2 - 1', lambda i: i // 2 - 1), ('i / 2 + N - 3', lambda i: i // 2 + 2),
         ('i / -2 + N - 1', lambda i: -i // 2 + 4), ('-(i / -3) - 1', lambda i: -(-i // 3) - 1),
         ('3 + (2 * i - 1) / 3 - 1', lambda i: 2 + (2 * i - 1) // 3)]
b = rnd(5)
for idx, f in cases:
    S = 'def f(float(N) B) -> (A) { A(i) = B(%s) }' % idx
    good = [i for i in range(100) if 0 <= f(i) < 5]
    lo, hi = good[0], good[-1] + 1
    assert good == list(range(lo, hi)), idx
    assert shapes(S, N=5) == {'A': ([hi], [lo])}, (idx, shapes(S, N=5), lo, hi)
    ref = np.zeros(hi, f32); ref[lo:] = b[[f(i) for i in range(lo, hi)]]
    assert (ok_run(S, B=b)['A'] == ref).all(), idx
S = 'def f(float(N) B) -> (A) { A(i) +=! B(i / 2 + k) where k in 0:2 }'
assert shapes(S, N=6) == {'A': ([10], [0])}
b = rnd(6)
assert close(ok_run(S, B=b)['A'], np.array([b[i // 2] + b[i // 2 + 1] for i in range(10)], f32))"
err "a where binding the statement does not use" 2:21 "where binding \`x\` is not used" \
'def f(float(N) B) -> (A) {
  A(i) = B(i) where x = Q(i) + exp(1.0, 2.0)
}'
err "the unused where binding named is the one no other binding uses" 2:28 "where binding \`y\` is not used" \
'def f(float(N) B) -> (A) {
  A(i) = B(i) where x = i, y = x
}'
err "a where binding bounding a range is reported as such, not as unused" 2:39 "\`n\` is not a size" \
'def f(float(N) B) -> (A) {
  A(i) = B(i) where n = N - 1, i in 0:n
}'
valid "a where binding used through another" 'def f(float(N) B) -> (A) {
  A(i) = y where x = B(i), y = x * 2
}'
py "a failed run-time precondition names the sizes behind it" "
S = '''def f(float(I) A, float(J) B, float(L) C) -> (O) {
  O(i, j) = A(i) + B(j) + C(i + j)
}'''
fails(S, None, 'C(i + j)', 'I = 3', 'J = 3', 'L = 4', A=rnd(3), B=rnd(3), C=rnd(4))"

py "c * ((x + a) / c) keeps the constant a in the size prover (3*((N+2)/3) is N + 2 - (N+2) % 3)" "
# the prover had dropped it: min(2*((N+1)/2), N) simplified to the first term
S = 'def f(float(N) X) -> (O) { O(i) = X(i) where i in 0:min(2*((N+1)/2), N) }'
for n in (4, 5):
    assert shapes(S, N=n) == {'O': ([n], [0])}, (n, shapes(S, N=n))
    x = rnd(n)
    assert (ok_run(S, X=x)['O'] == x).all()
# round 2 intersects i < N + 2 - 2*((N+1)/2) (from X(i + 2*j)) with i < 2 (from W(i + m))
S = 'def f(float(N) X, float(1) V, float(2) W) -> (O) { O(i) +=! X(2*j) * X(i + 2*j) * V(m) * W(i + m) }'
for n, hi in ((5, 1), (4, 2)):
    assert shapes(S, N=n) == {'O': ([hi], [0])}, (n, shapes(S, N=n))
    x, v, w = rnd(n), rnd(1), rnd(2)
    ref = np.array([sum(x[2 * j] * x[i + 2 * j] for j in range((n + 1) // 2)) * v[0] * w[i]
                    for i in range(hi)], f32)
    close(ok_run(S, X=x, V=v, W=w)['O'], ref)
# X(2*i + 1) over i < (I+1)/2 is past X's end for odd I: checked at run time, never proven
S = 'def f(float(I) X) -> (O) { O(i) = X(2*i + 1) where i in 0:(I+1)/2 }'
rc, err = check(S)
assert rc == 0 and 'warning: range inference does not prove X(2*i + 1) in bounds' in err, err
rc, j, err = infer(S, I=5)
assert rc == 1 and 'X(2*i + 1)' in err and 'I = 5' in err, err
fails(S, None, 'X(2*i + 1)', 'I = 5', X=rnd(5))
x = rnd(6)
assert shapes(S, I=6) == {'O': ([3], [0])}
assert (ok_run(S, X=x)['O'] == x[1::2]).all()
# a lower bound 3*((N+2)/3) - N - 2, 0 for N = 4 and -1 for N = 5: a run-time matter
S = 'def f(float(N) X) -> (O) { O(i) = X(i) where i in 3*((N+2)/3)-N-2:N }'
rc, err = check(S)
assert rc == 0, err
x = rnd(4)
assert (ok_run(S, X=x)['O'] == x).all()
fails(S, None, 'O(i)', 'N = 5', X=rnd(5))"
py "a literal argument of a builtin counts as float32 (SEMANTICS.md 1, 3): it widens a float16 call" "
S = ('def f(half(N) H, double(N) D) -> (a, b, c, d, e, g) {\n'
     '  a(i) = hypot(H(i), 2.5)\n  b(i) = pow(H(i), 2)\n  c(i) = H(i) * 2.5\n'
     '  d(i) = exp(H(i))\n  e(i) = hypot(D(i), 0.1)\n  g(i) = fma(H(i), H(i), 1)\n}')
rc, j, err = infer(S, N=2)
assert rc == 0, err
got = {k: v['dtype'] for k, v in j['outputs'].items()}
assert got == dict(a='float32', b='float32', c='float32', d='float16', e='float64', g='float32'), got
h, dd = vec(1, 3, dtype=np.float16), vec(0.5, 2, dtype=np.float64)
o = ok_run(S, H=h, D=dd)
assert o['a'].dtype == f32 and close(o['a'], np.hypot(h.astype(f32), f32(2.5)))
assert o['e'].dtype == np.float64 and np.allclose(o['e'], np.hypot(dd, np.float64(f32(0.1))), rtol=1e-15, atol=0)"
py "size expressions at the ends of int64: no trap, no wrong proof" "
# (N - 2^63) / -1 divided INT64_MIN by -1 inside the simplifier (SIGFPE)
S = 'def f(float(N) A) -> (B) { B(i) = A(i) where i in 0:(N - 9223372036854775807 - 1) / -1 }'
rc, err = check(S)
assert rc == 0 and 'warning' in err, (rc, err)
rc, j, err = infer(S, N=3)
assert rc == 1 and 'overflows' in err, (rc, err)
# 1 + INT64_MIN is -INT64_MAX, the unbounded marker: read as +inf, it proved
# min(N / M, INT64_MIN) + 1 >= 0 and dropped the check of C's lower bound
S = 'def f(float(N) A, float(M) C) -> (B) { B(i) = A(i) + C(i + min(N / M, -9223372036854775807 - 1) + 1) where i in 0:N }'
rc, err = check(S)
assert rc == 1 and ':1:54: error:' in err and 'below 0' in err, (rc, err)"
py "half(x) is a float16 value where it is written (rounded to nearest even), not only where stored" "
S = ('def f(float(N) F, double(N) D, int32(N) I) -> (a, b, c, d) {\n'
     '  a(i) = float(half(F(i)))\n  b(i) = float(half(D(i)))\n  c(i) = float(half(I(i)))\n'
     '  d(i) = float(half(0.1)) where i in 0:N\n}')
f = np.array([0.1, 1 / 3, 65519, 65520, -1e-8, 3e-5, 2049, np.inf], f32)
dd = np.array([0.1, 1 + 2.0 ** -11 + 2.0 ** -40, -70000, 2.0 ** -25, 2.0 ** -25 + 2.0 ** -60, 1e300,
               -0.0, np.nan])
ii = np.array([2049, 4097, -65519, 65520, 70000, -1, 0, 2 ** 31 - 1], np.int32)
o = ok_run(S, F=f, D=dd, I=ii)
same = lambda x, y: np.array_equal(x, y, equal_nan=True) and (np.signbit(x) == np.signbit(y)).all()
assert o['a'].dtype == f32 and same(o['a'], f.astype(np.float16).astype(f32)), o['a']
assert o['b'].dtype == f32 and same(o['b'], dd.astype(np.float16).astype(f32)), o['b']
assert same(o['c'], ii.astype(np.float16).astype(f32)), o['c']
assert (o['d'] == f32(np.float16(0.1))).all(), o['d']"
py "infer --json: min is the lowest index written, the extent when no statement writes anything" "
S = ('def f(float(N) X) -> (O, P) {\n  O(i) = 1 where i in 3:1\n'
     '  P(i) = X(i) where i in 1:N\n  P(i) = 2 where i in 4:2\n}')
assert shapes(S, N=5) == {'O': ([1], [1]), 'P': ([5], [1])}, shapes(S, N=5)
o = ok_run(S, X=rnd(5))
assert (o['O'] == 0).all() and o['P'][0] == 0"
py "half(x) of float16 arithmetic rounds it too (it computed in float32)" "
S = ('def f(float16(N) H) -> (b, c, d) {\n  b(i) = float(half(H(i) * H(i) + H(i)))\n'
     '  c(i) = float(half(sqrt(H(i))))\n  d(i) = float(half(H(i)))\n}')
h = np.array([2048, 1, 0.1, 3, 300, -7.5], np.float16)
o = ok_run(S, H=h)
with np.errstate(all='ignore'):
    want = dict(b=(h.astype(f32) * h.astype(f32) + h.astype(f32)).astype(np.float16),
                c=np.sqrt(h.astype(f32)).astype(np.float16), d=h)
for k, w in want.items():
    w = w.astype(f32)
    assert np.array_equal(o[k], w, equal_nan=True), (k, o[k], w)"
py "a tensor named like an earlier def is read, not called (SEMANTICS.md 2: a call names a def)" "
S = ('def sq(float(N) X) -> (Y) { Y(i) = X(i) * X(i) }\n'
     'def t(float(N) sq, int32 K) -> (S, T) {\n  S = sq(K)\n  T(i) = sq(i)\n}\n'
     'def u(float(N) A) -> (V, W) {\n  sq(i) = A(i) + 1\n  V = sq(N - 1)\n  W = sq(0)\n}')
x = rnd(4)
o = ok_run(S, 't', sq=x, K=np.array(2, np.int32))
assert o['S'] == x[2] and np.array_equal(o['T'], x), o
o = ok_run(S, 'u', A=x)
assert o['V'] == x[3] + f32(1) and o['W'] == x[0] + f32(1), o
# an output of that name that nothing has written yet cannot be read: a call
S2 = ('def sq(float(N) X) -> (Y) { Y(i) = X(i) * X(i) }\n'
      'def v(float(N) A) -> (sq, R) {\n  sq = sq(A)\n  R(i) = sq(i) + 1\n}')
o = ok_run(S2, 'v', A=x)
assert close(o['sq'], x * x) and close(o['R'], x * x + 1), o"
py "6 an out-of-range uint64 gather index is named by the value it holds" "
S = 'def g(float(N) A, uint64(M) I) -> (C) { C(i) = A(I(i)) }'
fails(S, None, 'index 18446744073709551615 out of range [0, 5)', 'C(i) = A(I(i))',
      A=rnd(5), I=np.array([0, 2**64 - 1, 1], np.uint64))
fails(S, None, 'index 9223372036854775808 out of range', A=rnd(5), I=np.array([2**63], np.uint64))
fails(S.replace('A(I(i))', 'A(int32(I(i)))'), None, 'index -1 out of range', A=rnd(5),
      I=np.array([0, 2**64 - 1], np.uint64))"
py "1 C's floating suffixes f and l: neither changes the literal's type" "
S = ('def f(float(N) X, double(N) D) -> (a, b) {\n  a(i) = X(i) * 1.5L + 1e2l - 0x1p3L + 2.5f\n'
     '  b(i) = D(i) + 0.1L\n}')
x, d = rnd(3), rnd(3, dtype=np.float64)
o = ok_run(S, X=x, D=d)
assert o['a'].dtype == f32 and o['b'].dtype == np.float64
assert close(o['a'], x * f32(1.5) + f32(100) - f32(8) + f32(2.5)) and np.array_equal(o['b'], d + np.float64(f32(0.1)))"
py "size expressions: any expression over integral scalars (seed 000): comparisons, && || !, ?:" "
# each bound against the same expression in Python, for sizes around its edges
cases = [('(N > 3 ? 2 : 1)', lambda N: 2 if N > 3 else 1, 1),
         ('(N >= 3 ? 3 : N)', lambda N: 3 if N >= 3 else N, 0),
         ('(!(N > 4 || N < 2) ? N - 1 : N)', lambda N: N - 1 if not (N > 4 or N < 2) else N, 0),
         ('(N == 0 ? 0 : N - 1) + (N != 2 && N <= 5)', lambda N: (0 if N == 0 else N - 1) + (N != 2 and N <= 5), 0),
         ('min(N, 4) * (N > 1)', lambda N: min(N, 4) * (N > 1), 0)]
for bound, want, least in cases:
    S = 'def f(float(N) x) -> (y) { y(i) = x(i) * 2.0 where i in 0:%s }' % bound
    for N in range(least, 8):
        if want(N) > N:
            continue
        x = rnd(N)
        y = ok_run(S, x=x)['y']
        assert y.shape == (want(N),) and (y == x[:want(N)] * 2).all(), (bound, N, y)
# printed as written, in tc infer and in a run-time error
S = 'def f(float(N) x) -> (y) { y(i) = x(i) where i in 0:(N > 3 ? N + 1 : N) }'
def infer_text(S):
    p = subprocess.run([TC, 'infer', _src(S)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout
assert 'output y: float32(N > 3 ? N + 1 : N)' in infer_text(S), infer_text(S)
fails(S, None, 'x(i)', x=rnd(5))
# a 0-rank input in a condition; a condition the sizes decide folds away
S = 'def f(float(N) x, int32 K) -> (y) { y(i) = x(i) where i in 0:(K > N ? N : K) }'
for k in (0, 2, 9):
    x = rnd(5)
    assert (ok_run(S, x=x, K=np.array(k, dtype=np.int32))['y'] == x[:min(k, 5)]).all(), k
S = 'def f(float(N) x) -> (y) { y(i) = x(i) where i in 0:(N + 1 > N && N >= 0 ? N : 0) }'
assert 'output y: float32(N)' in infer_text(S), infer_text(S)
# a part the sizes decide folds: && || with a decided side, == of equal sizes
for bound, want in (('(N < 0 && M < 3 ? 5 : 6)', '6'), ('((16 >= 8) && (4 > N) ? 1 : 2)', '4 > N ? 1 : 2'),
                    ('(N == N ? 5 : 6)', '5'), ('(N < 0 || M >= 0 ? 7 : 6)', '7')):
    S = 'def f(float(N) x, float(M) z) -> (y) { y(i) = 1.0 where i in 0:%s }' % bound
    assert 'output y: float32(%s)\n' % want in infer_text(S), (bound, infer_text(S))
# a constant part that overflows is an error whatever the condition
for cond in ('N < 2', 'N >= 0', '1 < 2'):
    rc, e = check('def f(float(N) x) -> (y) { y(i) = 1.0 where i in 0:(%s ? 5 : 4611686018427387904 * 4) }' % cond)
    assert rc == 1 and 'this bound overflows 64 bits' in e, (cond, e)
# the C-like loops put a bound with a comparison or ?: in parentheses
S = 'def f(float(N) x, float(M) z) -> (y) { y(i) +=! x(k) where i in 0:(N == M), k in 0:(N > M ? M : N) }'
p = subprocess.run([TC, 'loops', _src(S)], capture_output=True, text=True)
assert 'i < (N == M);' in p.stdout and 'k < (N > M ? M : N);' in p.stdout, p.stdout
# extents built from earlier ones by ?: share parts: printing and checking stay linear
lines = ['def f(float(N) x, float(M) z) -> (t30) {', '  t0(i) = 1.0 where i in 0:N']
lines += ['  t%d(i) = 1.0 where i in 0:(t%d.0 > M ? t%d.0 : t%d.0 + 1)' % (k, k - 1, k - 1, k - 1) for k in range(1, 31)]
text = infer_text('\n'.join(lines + ['}']))
assert '...' in text and len(text) < 4000000, len(text)
# a branch is proven in bounds under its condition: no run-time check, no warning
for bound, rhs in (('0:(N > 4 ? 4 : N)', 'x(i)'), ('0:(4 <= N ? 4 : N - 1)', 'x(i)'),
                   ('(N > 2 ? 1 : 0):(N < M ? N : M)', 'x(i) + z(i)'),
                   ('0:(M > 2 && N > 4 ? 4 : N)', 'x(i)'), ('0:(N < 5 || M < 2 ? N : 4)', 'x(i)')):
    S = 'def f(float(N) x, float(M) z) -> (y) { y(i) = %s where i in %s }' % (rhs, bound)
    rc, e = check(S)
    assert rc == 0 and e == '', (bound, e)
for bound in ('0:(N > 4 || M > 2 ? 4 : N)', '0:(N < 5 && M < 2 ? N : 4)'):  # not implied
    rc, e = check('def f(float(N) x, float(M) z) -> (y) { y(i) = x(i) where i in %s }' % bound)
    assert rc == 0 and 'checked at run time' in e, (bound, e)
S = 'def f(float(N) x) -> (y) { y(i) = x(i) where i in 0:(N >= 3 ? 4 : N) }'
rc, e = check(S)
assert rc == 0 and 'checked at run time' in e, e
fails(S, None, 'x(i)', x=rnd(3))
assert ok_run(S, x=rnd(4))['y'].shape == (4,)
# the condition of ?: and the operands of && || ! are comparisons, as in a kernel
for bad in ('(N ? 2 : 1)', '(N && N > 1 ? 1 : 0)', '!N'):
    rc, e = check('def f(float(N) x) -> (y) { y(i) = x(i) where i in 0:%s }' % bad)
    assert rc == 1 and 'not a size expression' in e and 'c ? a : b with c a comparison' in e, (bad, e)"
echo "RESULT $pass $fail"
