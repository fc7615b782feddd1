#!/usr/bin/env bash
# End to end: `tc c --driver` for every BENCH.md kernel and defs with
# gathers, ?:, casts, integer / and % (by 0 too), bool, float16, float64,
# int8/uint8/int64, temporaries, several statements, 0-rank inputs and
# outputs and a size read from a 0-rank input. Each C file is
# compiled with $CC -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror (no
# fast-math), run on the same .npy inputs as `tc run`, and its outputs are
# compared with the VM's: integers and bools bit for bit, floats bit for
# bit where the def has no builtin call and no float reduction, else
# within 2e-5 relative (the VM sums a row in 64 partials, the C in loop
# order; libm's expf against the VM's own). Then the driver's errors (a
# gather out of range, a shape that disagrees, a missing input, baked
# sizes given other shapes: exit 1 and a message) and `tc c`'s CLI.
# Prints "RESULT <passed> <failed>" last.
cd "$(dirname "$0")/.." || exit 1
TC=${TC:-$PWD/build/tc}
PY=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
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
t() { # NAME WANT_RC CMD...
    local name=$1 want=$2 rc
    shift 2
    "$@" >out 2>err
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else
        bad "$name: exit $rc, want $want"
        head -n 8 err out | sed 's/^/    /'
    fi
}
has() { # NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then ok; else
        bad "$1: '$3' not in $2"
        head -n 8 "$2" | sed 's/^/    /'
    fi
}

cat >k.tc <<'EOF'
def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }
def mv(float(M,N) A, float(N) x) -> (y) { y(i) +=! A(i,j) * x(j) }
def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) { C(b,i,j) +=! A(b,i,k) * B(b,k,j) }
def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {
    Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)
}
def maxpool2x2(float(N,C,H,W) I) -> (Out) {
    Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in 0:W/2
}
def ew_tanh(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = tanh(a(i) * x(i) + b(i)) }
def ew_fma(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = a(i) * x(i) + b(i) }
def softmax(float(M,N) X) -> (mx, e, s, Y) {
    mx(i) max=! X(i,j)
    e(i,j) = exp(X(i,j) - mx(i))
    s(i) +=! e(i,j)
    Y(i,j) = e(i,j) / s(i)
}
def layernorm(float(M,N) X, float(N) g, float(N) b) -> (mean, d, var, Y) {
    mean(i) +=! X(i,j) / N
    d(i,j) = X(i,j) - mean(i)
    var(i) +=! d(i,j) * d(i,j) / N
    Y(i,j) = d(i,j) / sqrt(var(i) + 1e-5) * g(j) + b(j)
}
def stencil3(float(N) x) -> (y) { y(i) = (x(i) + x(i+1) + x(i+2)) / 3.0 where i in 0:N-2 }
def sum_all(float(N) x) -> (s) { s +=! x(i) }
def rowsum(float(M,N) A) -> (r) { r(i) +=! A(i,j) }
def emb(float(V,D) W, int64(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) }
def sel(float(N) x, int32(N) k) -> (y, z) {
    y(i) = x(i) > 0.25 ? x(i) * 2.0 : -x(i)
    z(i) = int8(x(i) * 300.0) + uint8(k(i))
}
def idiv(int32(N) a, int32(N) b, int8(N) c, uint8(N) u, int64(N) w) -> (q, r, cq, um, wm) {
    q(i) = a(i) / b(i)
    r(i) = a(i) % b(i)
    cq(i) = c(i) / int8(b(i))
    um(i) = u(i) * u(i) - uint8(3)
    wm(i) = w(i) * w(i) % int64(b(i))
}
def logic(bool(N) p, float(N) x) -> (o, m) {
    o(i) = p(i) && x(i) < 0.5 || !p(i)
    m max=! p(i)
}
def halfs(float16(N) h, float(N) x) -> (y, s) {
    y(i) = h(i) * x(i) + 1.0
    s +=! h(i)
}
def mmd(double(M,K) A, double(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }
def tile(float(N) x, int32 R, float alpha) -> (y, s) {
    y(r,i) = alpha * x(i) where r in 0:R
    s +=! x(i)
}
def mlp(float(B,I) X, float(J,I) W1, float(J) B1) -> (R) {
    H(b,j) +=! X(b,i) * W1(j,i)
    R(b,j) = max(H(b,j) + B1(j), 0.0)
}
EOF

# inputs per def: name -> list of (tensor, dtype, shape, low, high)
"$PY" - <<'EOF' || bad "making inputs"
import numpy as np, json
r = np.random.default_rng(7)
f = lambda *s: r.uniform(-1, 1, s).astype(np.float32)
defs = {
 'mm': dict(A=f(13, 17), B=f(17, 19)), 'mv': dict(A=f(9, 70), x=f(70)),
 'bmm': dict(A=f(3, 5, 7), B=f(3, 7, 6)), 'conv2d': dict(I=f(2, 3, 9, 8), W1=f(4, 3, 3, 2)),
 'maxpool2x2': dict(I=f(2, 3, 8, 7)), 'ew_tanh': dict(a=f(100), x=f(100), b=f(100)),
 'ew_fma': dict(a=f(100), x=f(100), b=f(100)), 'softmax': dict(X=f(5, 30)),
 'layernorm': dict(X=f(5, 64), g=f(64), b=f(64)), 'stencil3': dict(x=f(60)),
 'sum_all': dict(x=f(1000)), 'rowsum': dict(A=f(9, 70)),
 'emb': dict(W=f(10, 7), Idx=r.integers(0, 10, 12).astype(np.int64)),
 'sel': dict(x=f(50), k=r.integers(-300, 300, 50).astype(np.int32)),
 'idiv': dict(a=r.integers(-2**31, 2**31, 64).astype(np.int32), b=r.integers(-3, 4, 64).astype(np.int32),
              c=r.integers(-128, 128, 64).astype(np.int8), u=r.integers(0, 256, 64).astype(np.uint8),
              w=r.integers(-2**62, 2**62, 64).astype(np.int64)),
 'logic': dict(p=r.integers(0, 2, 40).astype(bool), x=f(40)),
 'halfs': dict(h=f(50).astype(np.float16), x=f(50)),
 'mmd': dict(A=r.uniform(-1, 1, (6, 33)), B=r.uniform(-1, 1, (33, 10))),
 'mlp': dict(X=f(4, 9), W1=f(7, 9), B1=f(7)),
 'tile': dict(x=np.arange(6, dtype=np.float32), R=np.array(3, np.int32), alpha=np.array(0.5, np.float32)),
}
args = {}
for d, ins in defs.items():
    args[d] = []
    for n, a in ins.items():
        np.save(f'{d}_{n}.npy', a)
        args[d].append(f'{n}={d}_{n}.npy')
np.save('emb_bad.npy', np.array([0, 3, 10, 1], np.int64))
open('args.txt', 'w').write('\n'.join(f"{d} {' '.join(a)}" for d, a in args.items()) + '\n')
EOF

# emit, then compile two at a time
while read -r d rest; do
    t "tc c $d" 0 "$TC" c k.tc --entry "$d" --driver -o "$d.c"
done <args.txt
cut -d' ' -f1 args.txt | xargs -P 2 -I{} sh -c \
    "$CC -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror {}.c -o {}.bin -lm 2>{}.cc || echo {} >>cc_failed"
if [ -s cc_failed ]; then
    bad "compiling: $(tr '\n' ' ' <cc_failed)"
    head -n 20 "$(head -n 1 cc_failed).cc" | sed 's/^/    /'
else ok; fi

while read -r d rest; do
    vm=""
    for a in $rest; do vm="$vm -i $a"; done
    t "tc run $d" 0 "$TC" run k.tc --entry "$d" $vm -o "vm_$d"
    mkdir -p "c_$d"
    t "C driver $d" 0 "./$d.bin" $rest -o "c_$d"
done <args.txt

"$PY" - <<'EOF' >cmp.txt
import numpy as np, os
loose = {'mm', 'mv', 'bmm', 'conv2d', 'ew_tanh', 'softmax', 'layernorm', 'sum_all', 'rowsum',
         'halfs', 'mmd', 'mlp'}  # float reductions or builtins
for line in open('args.txt'):
    d = line.split()[0]
    if not os.path.isdir('c_' + d): continue
    for f in sorted(os.listdir('vm_' + d)):
        v = np.load(f'vm_{d}/{f}')
        try: c = np.load(f'c_{d}/{f}')
        except Exception as e:
            print(f'BAD {d}/{f}: no C output ({e})'); continue
        if v.shape != c.shape or v.dtype != c.dtype:
            print(f'BAD {d}/{f}: {c.dtype}{c.shape} vs {v.dtype}{v.shape}'); continue
        if v.dtype.kind in 'biu' or d not in loose:
            same = v.tobytes() == c.tobytes() or (v.dtype.kind == 'f' and np.array_equal(v, c, equal_nan=True)
                                                  and np.array_equal(np.signbit(v), np.signbit(c)))
            print(('OK' if same else 'BAD') + f' {d}/{f} bitwise')
        else:
            tol = 2e-3 if v.dtype == np.float16 else 1e-12 if v.dtype == np.float64 else 2e-5
            good = np.allclose(c, v, rtol=tol, atol=tol * max(1.0, float(np.abs(v).max())))
            print(('OK' if good else 'BAD') + f' {d}/{f} within {tol} (max diff {np.abs(c.astype(float) - v).max():.3g})')
EOF
while read -r st what; do
    if [ "$st" = OK ]; then ok; else bad "compare: $what"; fi
done <cmp.txt
[ "$(grep -c . cmp.txt)" -ge 30 ] && ok || bad "too few outputs compared: $(grep -c . cmp.txt)"

# ---- the driver's errors: exit 1, a message, no output written ----
mkdir -p e
t "driver: gather out of range" 1 ./emb.bin W=emb_W.npy Idx=emb_bad.npy -o e
has "driver: gather message" err "a gather index is out of range"
t "driver: shapes disagree" 1 ./mm.bin A=mm_A.npy B=mm_A.npy -o e
has "driver: shape message" err "B: dimension 0 is 13, but size K is 17"
t "driver: missing input" 1 ./mm.bin A=mm_A.npy -o e
has "driver: missing input message" err "B: no input given"
t "driver: no such file" 1 ./mm.bin A=nothere.npy B=mm_B.npy -o e
t "driver: wrong dtype" 1 ./mm.bin A=mmd_A.npy B=mm_B.npy -o e
has "driver: dtype message" err "wrong dtype"
t "driver: unknown input" 1 ./mm.bin Q=mm_A.npy -o e
[ -z "$(ls e)" ] && ok || bad "failed driver runs wrote outputs: $(ls e)"

# ---- baked sizes: the C file is for these shapes only ----
t "tc c baked" 0 "$TC" c k.tc --entry mm M=13 K=17 N=19 --driver -o mmb.c
has "tc c baked: no size arguments" mmb.c "int mm(const float *restrict A, const float *restrict B, float *restrict C)"
t "cc baked" 0 "$CC" -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror mmb.c -o mmb.bin -lm
mkdir -p c_b
t "baked driver" 0 ./mmb.bin A=mm_A.npy B=mm_B.npy -o c_b
cmp -s c_b/C.npy c_mm/C.npy && ok || bad "baked and symbolic mm differ"
t "baked driver, other shapes" 1 ./mmb.bin A=mv_A.npy B=mm_B.npy -o c_b

# ---- the CLI ----
t "tc c to stdout" 0 "$TC" c k.tc --entry rowsum
has "tc c stdout: function" out "int rowsum(const float *restrict A, float *restrict r, int64_t M, int64_t N)"
has "tc c stdout: call" out "int rowsum_call(void *const *tensors, const int64_t *sizevars)"
t "tc c matmul order" 0 "$TC" c k.tc --entry mm
has "tc c matmul: i-k-j" out "i-k-j order"
t "tc c partial sizes" 2 "$TC" c k.tc --entry mm M=4
has "tc c partial sizes message" err "missing: K, N"
t "tc c -o without file" 2 "$TC" c k.tc -o
t "tc c unwritable -o" 1 "$TC" c k.tc -o nodir/x.c
t "tc c --help" 0 "$TC" c --help
has "tc c --help synopsis" out "  c      FILE.tc [--entry NAME] [SIZE=VALUE ...] [--driver] [-o OUT.c]"
t "tc help c" 0 "$TC" help c
t "tc --help lists c" 0 "$TC" --help
has "tc --help lists c" out "  c      FILE.tc"

echo "RESULT $pass $fail"
[ "$fail" = 0 ]
