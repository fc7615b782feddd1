#!/usr/bin/python3
"""t_numpy: the numpy oracle. Every kernel family of the execution issue is
written to a .tc file, its random inputs (fixed seed) to .npy files, run
through `build/tc run FILE.tc --entry NAME -i X=x.npy ... -o OUTDIR` with
1, 2 and 3 threads, and the outputs compared with a numpy computation of the
same kernel: exactly where the arithmetic is the same (integers, element-
wise float32 work in the same order), within a tolerance for reductions
(float64 reference) and transcendentals. The thread counts must agree
bitwise, temporaries must not be written, and the CLI's error paths give
exit 1 (input errors, failed checks) and 2 (usage errors) with a message.
Prints `RESULT <passed> <failed>` last."""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TC = os.environ.get("TC") or os.path.join(ROOT, "build", "tc")
RNG = np.random.default_rng(20260321)
F32, F64, F16 = np.float32, np.float64, np.float16
I8, I16, I32, I64 = np.int8, np.int16, np.int32, np.int64
U8, U16, U32, U64 = np.uint8, np.uint16, np.uint32, np.uint64

passed = 0
failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, file=sys.stderr)
    return cond


# ---- inputs ----
def unif(shape, lo=-1.0, hi=1.0, dtype=F32):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def ints(shape, lo, hi, dtype):
    return RNG.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64).astype(dtype)


def bits(shape, dtype):
    raw = RNG.integers(0, 2**63 - 1, size=shape, dtype=np.int64, endpoint=True)
    raw = raw.astype(np.uint64) * np.uint64(2) + RNG.integers(0, 1, size=shape, endpoint=True).astype(np.uint64)
    return raw.astype(dtype)


def f32c(x):
    """A float32 literal of the source, as numpy float32."""
    return F32(x)


# ---- running the CLI ----
def run_tc(src, entry, inputs, threads=None, extra=(), outdir_name="out"):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.tc")
        with open(path, "w") as f:
            f.write(src)
        cmd = [TC, "run", path]
        if entry:
            cmd += ["--entry", entry]
        for name, arr in inputs.items():
            p = os.path.join(tmp, name + ".npy")
            np.save(p, arr)
            cmd += ["-i", "%s=%s" % (name, p)]
        out = os.path.join(tmp, outdir_name)
        os.mkdir(out)
        cmd += ["-o", out]
        if threads is not None:
            cmd += ["--threads", str(threads)]
        cmd += list(extra)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return 127, {}, str(e)
        outs = {}
        for fn in sorted(os.listdir(out)):
            if fn.endswith(".npy"):
                outs[fn[:-4]] = np.load(os.path.join(out, fn))
        return r.returncode, outs, r.stderr


def close(got, want, tol):
    """got and want as arrays of the expected dtype; tol: exact, reduce, loose."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return "dtype/shape %s %s, want %s %s" % (got.dtype, got.shape, want.dtype, want.shape)
    if tol == "exact" or want.dtype.kind not in "f":
        if want.dtype.kind == "f":
            gb = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(-1, got.itemsize)
            wb = np.ascontiguousarray(want).reshape(-1).view(np.uint8).reshape(-1, want.itemsize)
            same = (gb == wb).all(axis=1).reshape(got.shape)
            same |= np.isnan(got) & np.isnan(want)
        else:
            same = got == want
        if same.all():
            return None
        i = np.argwhere(~np.asarray(same))[0] if got.ndim else ()
        return "at %s: got %r, want %r" % (tuple(i), got[tuple(i)], want[tuple(i)])
    g = got.astype(F64)
    w = want.astype(F64)
    fin = np.isfinite(w)
    maxabs = float(np.max(np.abs(w[fin]))) if fin.any() else 0.0
    if want.dtype == F16:
        rtol, atol = 4e-3, 4e-3 * maxabs
    elif tol == "reduce":
        rtol, atol = (1e-4, 1e-5 * maxabs) if want.dtype == F32 else (1e-12, 1e-13 * maxabs)
    else:
        rtol, atol = (2e-6, 2e-7 * max(1.0, maxabs)) if want.dtype == F32 else (1e-12, 1e-13 * max(1.0, maxabs))
    ok = (g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w))
    if ok.all():
        return None
    i = tuple(np.argwhere(~ok)[0]) if got.ndim else ()
    return "at %s: got %r, want %r (rtol %g atol %g)" % (i, g[i], w[i], rtol, atol)


CASES = []


def case(family, src, inputs, expect, tol="exact", entry=None):
    CASES.append((family, src, inputs, expect, tol, entry))


def run_case(family, src, inputs, expect, tol, entry):
    with np.errstate(all="ignore"):
        want = expect(**inputs)
    rc1, o1, err1 = run_tc(src, entry, inputs, threads=1)
    if not check(rc1 == 0, "%s: tc run exit %d: %s" % (family, rc1, err1.strip()[:500])):
        return
    check(set(o1) == set(want), "%s: outputs %s, want %s" % (family, sorted(o1), sorted(want)))
    for name, w in want.items():
        if name in o1:
            why = close(o1[name], np.asarray(w), tol)
            check(why is None, "%s: output %s: %s" % (family, name, why))
    for threads in (2, 3):
        rcn, on, errn = run_tc(src, entry, inputs, threads=threads)
        same = rcn == 0 and set(on) == set(o1) and all(
            on[n].dtype == o1[n].dtype and on[n].tobytes() == o1[n].tobytes() for n in o1)
        check(same, "%s: --threads %d differs from --threads 1 (%s)" % (family, threads, errn.strip()[:300]))


# ---- numpy versions of the kernels ----
def conv2d(I, W, stride=1):
    N, C, H, Wd = I.shape
    O, _, KH, KW = W.shape
    OH, OW = (H - KH) // stride + 1, (Wd - KW) // stride + 1
    out = np.zeros((N, O, OH, OW))
    I64_, W64 = I.astype(F64), W.astype(F64)
    for kh in range(KH):
        for kw in range(KW):
            patch = I64_[:, :, kh:kh + stride * (OH - 1) + 1:stride, kw:kw + stride * (OW - 1) + 1:stride]
            out += np.einsum("nchw,oc->nohw", patch, W64[:, :, kh, kw])
    return out


def conv_grad_weight(dO, I):
    N, O, OH, OW = dO.shape
    C, H, W = I.shape[1:]
    dW = np.zeros((O, C, H - OH + 1, W - OW + 1))
    for kh in range(H - OH + 1):
        for kw in range(W - OW + 1):
            dW[:, :, kh, kw] = np.einsum("nohw,nchw->oc", dO.astype(F64), I[:, :, kh:kh + OH, kw:kw + OW])
    return dW


def conv_grad_input(dO, W):
    N, O, OH, OW = dO.shape
    _, C, KH, KW = W.shape
    dI = np.zeros((N, C, OH + KH - 1, OW + KW - 1))
    for kh in range(KH):
        for kw in range(KW):
            dI[:, :, kh:kh + OH, kw:kw + OW] += np.einsum("nohw,oc->nchw", dO.astype(F64), W[:, :, kh, kw].astype(F64))
    return dI


def define_contractions():
    A, B = unif((13, 17)), unif((17, 19))
    case("matmul", "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
         {"A": A, "B": B}, lambda A, B: {"C": (A.astype(F64) @ B).astype(F32)}, "reduce", "mm")
    A, B = unif((5, 300)), unif((300, 270))
    case("matmul-large", "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
         {"A": A, "B": B}, lambda A, B: {"C": (A.astype(F64) @ B).astype(F32)}, "reduce", "mm")
    case("matmul-AtB", "def mtm(float(K,M) A, float(K,N) B) -> (C) { C(i,j) +=! A(k,i) * B(k,j) }",
         {"A": unif((23, 11)), "B": unif((23, 9))}, lambda A, B: {"C": (A.T.astype(F64) @ B).astype(F32)},
         "reduce", "mtm")
    case("matmul-ABt", "def mmt(float(M,K) A, float(N,K) B) -> (C) { C(i,j) +=! A(i,k) * B(j,k) }",
         {"A": unif((7, 29)), "B": unif((12, 29))}, lambda A, B: {"C": (A.astype(F64) @ B.T).astype(F32)},
         "reduce", "mmt")
    case("matmul-batched",
         "def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) { C(b,i,j) +=! A(b,i,k) * B(b,k,j) }",
         {"A": unif((3, 7, 9)), "B": unif((3, 9, 5))}, lambda A, B: {"C": np.matmul(A.astype(F64), B).astype(F32)},
         "reduce", "bmm")
    case("matmul-f64", "def mmd(double(M,K) A, double(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
         {"A": unif((6, 33), dtype=F64), "B": unif((33, 10), dtype=F64)}, lambda A, B: {"C": A @ B}, "reduce", "mmd")
    case("matmul-int32", "def mmi(int32(M,K) A, int32(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
         {"A": bits((6, 13), I32), "B": bits((13, 10), I32)},
         lambda A, B: {"C": (A.astype(I64) @ B.astype(I64)).astype(I32)}, "exact", "mmi")
    case("matvec", "def mv(float(M,N) A, float(N) x) -> (y) { y(i) +=! A(i,j) * x(j) }",
         {"A": unif((7, 600)), "x": unif(600)}, lambda A, x: {"y": (A.astype(F64) @ x).astype(F32)}, "reduce", "mv")
    case("tensordot", "def td(float(I,K,L) A, float(K,L,J) B) -> (C) { C(i,j) +=! A(i,k,l) * B(k,l,j) }",
         {"A": unif((5, 4, 6)), "B": unif((4, 6, 7))},
         lambda A, B: {"C": np.einsum("ikl,klj->ij", A.astype(F64), B).astype(F32)}, "reduce", "td")
    case("kronecker", "def kron(float(M,N) A, float(P,Q) B) -> (K) { K(i,j,k,l) = A(i,k) * B(j,l) }",
         {"A": unif((3, 4)), "B": unif((5, 2))}, lambda A, B: {"K": np.einsum("ik,jl->ijkl", A, B)}, "exact", "kron")


def define_convolutions():
    conv = ("def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
            "    Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}\n")
    case("conv2d", conv, {"I": unif((2, 3, 9, 8)), "W1": unif((4, 3, 3, 2))},
         lambda I, W1: {"Out": conv2d(I, W1).astype(F32)}, "reduce")
    case("conv2d-strided", "def sconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
         "    Out(n,o,h,w) +=! I(n,c,2*h+kh,2*w+kw) * W1(o,c,kh,kw)\n}\n",
         {"I": unif((2, 3, 11, 10)), "W1": unif((2, 3, 3, 3))}, lambda I, W1: {"Out": conv2d(I, W1, 2).astype(F32)},
         "reduce")
    case("conv2d-strided-where", "def sconvw(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
         "    Out(n,o,h,w) +=! I(n,c,2*h+kh,2*w+kw) * W1(o,c,kh,kw)\n"
         "        where h in 0:(H-KH)/2+1, w in 0:(W-KW)/2+1\n}\n",
         {"I": unif((2, 2, 10, 9)), "W1": unif((3, 2, 3, 2))}, lambda I, W1: {"Out": conv2d(I, W1, 2).astype(F32)},
         "reduce")
    case("conv2d-grouped", "def gconv(float(N,G,C,H,W) I, float(G,O,C,KH,KW) W1) -> (Out) {\n"
         "    Out(n,g,o,h,w) +=! I(n,g,c,h+kh,w+kw) * W1(g,o,c,kh,kw)\n}\n",
         {"I": unif((2, 3, 2, 7, 6)), "W1": unif((3, 2, 2, 3, 2))},
         lambda I, W1: {"Out": np.stack([conv2d(I[:, g], W1[g]) for g in range(3)], axis=1).astype(F32)}, "reduce")
    case("conv2d-padded", "def pconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
         "    Out(n,o,h,w) +=! (h+kh >= 1 && h+kh < H+1 && w+kw >= 1 && w+kw < W+1)\n"
         "        ? I(n,c,h+kh-1,w+kw-1) * W1(o,c,kh,kw) : 0.0\n"
         "        where n in 0:N, o in 0:O, c in 0:C, kh in 0:KH, kw in 0:KW,\n"
         "              h in 0:H+3-KH, w in 0:W+3-KW\n}\n",
         {"I": unif((2, 2, 6, 5)), "W1": unif((3, 2, 3, 3))},
         lambda I, W1: {"Out": conv2d(np.pad(I, ((0, 0), (0, 0), (1, 1), (1, 1))), W1).astype(F32)}, "reduce")
    case("conv-grad-weight", "def cgw(float(N,O,OH,OW) dO, float(N,C,H,W) I) -> (dW) {\n"
         "    dW(o,c,kh,kw) +=! dO(n,o,h,w) * I(n,c,h+kh,w+kw)\n}\n",
         {"dO": unif((2, 3, 5, 4)), "I": unif((2, 2, 7, 6))},
         lambda dO, I: {"dW": conv_grad_weight(dO, I).astype(F32)}, "reduce")
    gi = {"dO": unif((2, 3, 4, 5)), "W1": unif((3, 2, 3, 2))}
    case("conv-grad-input-guard", "def cgi(float(N,O,OH,OW) dO, float(O,C,KH,KW) W1) -> (dI) {\n"
         "    dI(n,c,y,x) +=! (y >= kh && y - kh < OH && x >= kw && x - kw < OW)\n"
         "        ? dO(n,o,y-kh,x-kw) * W1(o,c,kh,kw) : 0.0\n"
         "        where n in 0:N, c in 0:C, o in 0:O, kh in 0:KH, kw in 0:KW,\n"
         "              y in 0:OH+KH-1, x in 0:OW+KW-1\n}\n",
         gi, lambda dO, W1: {"dI": conv_grad_input(dO, W1).astype(F32)}, "reduce")
    case("conv-grad-input-flip", "def cgi2(float(N,O,OH,OW) dO, float(O,C,KH,KW) W1) -> (dI) {\n"
         "    P(n,o,y,x) = (y >= KH-1 && y < OH+KH-1 && x >= KW-1 && x < OW+KW-1)\n"
         "        ? dO(n,o,y-KH+1,x-KW+1) : 0.0\n"
         "        where n in 0:N, o in 0:O, y in 0:OH+2*KH-2, x in 0:OW+2*KW-2\n"
         "    dI(n,c,y,x) +=! P(n,o,y+kh,x+kw) * W1(o,c,KH-1-kh,KW-1-kw)\n}\n",
         gi, lambda dO, W1: {"dI": conv_grad_input(dO, W1).astype(F32)}, "reduce")
    case("maxpool", "def maxpool2x2(float(N,C,H,W) I) -> (Out) {\n"
         "    Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in 0:W/2\n}\n",
         {"I": unif((2, 3, 8, 7))},
         lambda I: {"Out": I[:, :, :8, :6].reshape(2, 3, 4, 2, 3, 2).max(axis=(3, 5))}, "exact")
    case("avgpool", "def avgpool(float(N,C,H,W) I) -> (Out) {\n"
         "    Out(n,c,h,w) +=! I(n,c,2*h+kh,2*w+kw) / 4.0 where kh in 0:2, kw in 0:2\n}\n",
         {"I": unif((2, 2, 9, 6))},
         lambda I: {"Out": I[:, :, :8, :6].astype(F64).reshape(2, 2, 4, 2, 3, 2).mean(axis=(3, 5)).astype(F32)},
         "reduce")
    case("stencil-1d-kernel", "def conv1(float(N) x, float(K) w) -> (y) { y(i) +=! x(i+k) * w(k) }",
         {"x": unif(40), "w": unif(5)}, lambda x, w: {"y": np.convolve(x.astype(F64), w[::-1], "valid").astype(F32)},
         "reduce")


def define_normalisations():
    def softmax(X):
        mx = X.max(1)
        e = np.exp(X.astype(F64) - mx[:, None])
        s = e.astype(F32).astype(F64).sum(1)
        return {"mx": mx, "e": e.astype(F32), "s": s.astype(F32), "Y": (e / s[:, None]).astype(F32)}
    case("softmax", "def softmax(float(M,N) X) -> (mx, e, s, Y) {\n    mx(i) max=! X(i,j)\n"
         "    e(i,j) = exp(X(i,j) - mx(i))\n    s(i) +=! e(i,j)\n    Y(i,j) = e(i,j) / s(i)\n}\n",
         {"X": unif((5, 300), -4, 4)}, softmax, "reduce")

    def lse(X):
        mx = X.astype(F64).max(1)
        return {"L": (mx + np.log(np.exp(X - mx[:, None]).sum(1))).astype(F32)}
    case("logsumexp", "def lse(float(M,N) X) -> (L) {\n    mx(i) max=! X(i,j)\n"
         "    s(i) +=! exp(X(i,j) - mx(i))\n    L(i) = mx(i) + log(s(i))\n}\n",
         {"X": unif((6, 77), -4, 4)}, lse, "reduce")
    eps = float(F32(1e-5))

    def layernorm(X, g, b):
        X64 = X.astype(F64)
        mean = X64.mean(1)
        d = X64 - mean[:, None]
        var = (d * d).mean(1)
        Y = d / np.sqrt(var + eps)[:, None] * g + b
        return {"mean": mean.astype(F32), "d": d.astype(F32), "var": var.astype(F32), "Y": Y.astype(F32)}
    case("layernorm", "def layernorm(float(M,N) X, float(N) g, float(N) b) -> (mean, d, var, Y) {\n"
         "    mean(i) +=! X(i,j) / N\n    d(i,j) = X(i,j) - mean(i)\n    var(i) +=! d(i,j) * d(i,j) / N\n"
         "    Y(i,j) = d(i,j) / sqrt(var(i) + 1e-5) * g(j) + b(j)\n}\n",
         {"X": unif((5, 64), -4, 4), "g": unif(64, 0.5, 1.5), "b": unif(64, -0.5, 0.5)}, layernorm, "reduce")

    def groupnorm(X, gamma, beta):
        X64 = X.astype(F64)
        mean = X64.mean(2, keepdims=True)
        var = ((X64 - mean) ** 2).mean(2, keepdims=True)
        return {"Y": ((X64 - mean) / np.sqrt(var + eps) * gamma + beta).astype(F32)}
    case("groupnorm", "def gn(float(N,G,D) X, float(G,D) gamma, float(G,D) beta) -> (Y) {\n"
         "    mean(n,g) +=! X(n,g,d) / D\n"
         "    var(n,g) +=! (X(n,g,d) - mean(n,g)) * (X(n,g,d) - mean(n,g)) / D\n"
         "    Y(n,g,d) = (X(n,g,d) - mean(n,g)) / sqrt(var(n,g) + 1e-5) * gamma(g,d) + beta(g,d)\n}\n",
         {"X": unif((3, 4, 10), -4, 4), "gamma": unif((4, 10), 0.5, 1.5), "beta": unif((4, 10))}, groupnorm, "reduce")

    def batchnorm(X, gamma, beta):
        X64 = X.astype(F64)
        mean = X64.mean((0, 2, 3), keepdims=True)
        var = ((X64 - mean) ** 2).mean((0, 2, 3), keepdims=True)
        return {"Y": ((X64 - mean) / np.sqrt(var + eps) * gamma[:, None, None] + beta[:, None, None]).astype(F32)}
    case("batchnorm", "def bn(float(N,C,H,W) X, float(C) gamma, float(C) beta) -> (Y) {\n"
         "    mean(c) +=! X(n,c,h,w) / (N*H*W)\n"
         "    var(c) +=! (X(n,c,h,w) - mean(c)) * (X(n,c,h,w) - mean(c)) / (N*H*W)\n"
         "    Y(n,c,h,w) = (X(n,c,h,w) - mean(c)) * rsqrt(var(c) + 1e-5) * gamma(c) + beta(c)\n}\n",
         {"X": unif((2, 3, 4, 5), -2, 2), "gamma": unif(3, 0.5, 1.5), "beta": unif(3)}, batchnorm, "reduce")

    def mlp(X, W1, B1, W2, B2):
        R = np.maximum(X.astype(F64) @ W1.T + B1, 0)
        return {"Y": (R @ W2.T + B2).astype(F32)}
    case("mlp-relu-max", "def mlp(float(B,I) X, float(J,I) W1, float(J) B1, float(K,J) W2, float(K) B2) -> (Y) {\n"
         "    H(b,j) +=! X(b,i) * W1(j,i)\n    R(b,j) = max(H(b,j) + B1(j), 0)\n"
         "    Z(b,k) +=! R(b,j) * W2(k,j)\n    Y(b,k) = Z(b,k) + B2(k)\n}\n",
         {"X": unif((4, 9)), "W1": unif((7, 9)), "B1": unif(7), "W2": unif((5, 7)), "B2": unif(5)}, mlp, "reduce")
    case("mlp-relu-select", "def mlp2(float(B,I) X, float(J,I) W1, float(J) B1) -> (R) {\n"
         "    H(b,j) +=! X(b,i) * W1(j,i)\n    R(b,j) = H(b,j) + B1(j) > 0.0 ? H(b,j) + B1(j) : 0.0\n}\n",
         {"X": unif((6, 11)), "W1": unif((8, 11)), "B1": unif(8)},
         lambda X, W1, B1: {"R": np.maximum(X.astype(F64) @ W1.T + B1, 0).astype(F32)}, "reduce")


def define_indexing():
    W = unif((10, 7))
    case("gather-int32", "def emb(float(V,D) W, int32(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) }",
         {"W": W, "Idx": ints(12, 0, 9, I32)}, lambda W, Idx: {"E": W[Idx]})
    case("gather-int64", "def emb64(float(V,D) W, int64(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) }",
         {"W": unif((10, 300)), "Idx": ints(5, 0, 9, I64)}, lambda W, Idx: {"E": W[Idx]})
    case("gather-2d", "def g2(float(V,W) T, int32(L) R, int64(L) C) -> (E) { E(i) = T(R(i), C(i)) }",
         {"T": unif((5, 6)), "R": ints(40, 0, 4, I32), "C": ints(40, 0, 5, I64)}, lambda T, R, C: {"E": T[R, C]})
    case("gather-clamped", "def lut(float(J) B, int32(I) C) -> (A) { A(i) = B(max(min(C(i), J-1), 0)) }",
         {"B": unif(8), "C": ints(50, -5, 15, I32)}, lambda B, C: {"A": B[np.clip(C, 0, 7)]})
    case("stencil-1d", "def stencil3(float(N) x) -> (y) { y(i) = (x(i) + x(i+1) + x(i+2)) / 3.0 where i in 0:N-2 }",
         {"x": unif(600)}, lambda x: {"y": (x[:-2] + x[1:-1] + x[2:]) / f32c(3.0)})
    case("stencil-2d", "def lap(float(H,W) X) -> (O) {\n"
         "    O(i,j) = X(i,j+1) + X(i+2,j+1) + X(i+1,j) + X(i+1,j+2) - 4.0 * X(i+1,j+1)\n}\n",
         {"X": unif((9, 11))},
         lambda X: {"O": X[0:-2, 1:-1] + X[2:, 1:-1] + X[1:-1, 0:-2] + X[1:-1, 2:] - f32c(4.0) * X[1:-1, 1:-1]})
    case("shift", "def shift(float(N) I) -> (O) { O(i) = I(i-1) }", {"I": unif(9)},
         lambda I: {"O": np.concatenate([np.zeros(1, F32), I])})

    def rev(B):
        n = B.shape[0]
        A = np.zeros(11, F32)
        for i in range(max(0, 11 - n), 11):
            A[i] = B[10 - i]
        return {"A": A}
    case("reverse", "def rev(float(N) B) -> (A) { A(i) = B(10 - i) }", {"B": unif(7)}, rev)
    case("reverse-long", "def rev(float(N) B) -> (A) { A(i) = B(10 - i) }", {"B": unif(14)}, rev)
    case("subsample", "def sub2(float(N) B) -> (A) { A(i) = B(2*i) }", {"B": unif(9)}, lambda B: {"A": B[::2]})
    case("avgpool-1d", "def ap(float(N) B) -> (A) { A(i) = B(2*i) + B(2*i + 1) }", {"B": unif(9)},
         lambda B: {"A": B[0:8:2] + B[1:8:2]})
    case("precondition", "def pre(float(N) B, float(M) C, float(K) D) -> (A) { A(i,j) = B(i) * C(i+j) * D(j) }",
         {"B": unif(4), "C": unif(9), "D": unif(5)},
         lambda B, C, D: {"A": B[:, None] * C[np.arange(4)[:, None] + np.arange(5)[None, :]] * D[None, :]})
    case("index-arith", "def ia(int32(N) x) -> (a, b) {\n"
         "    a(i) = (i - 7) / 3 + (i - 7) % 3 * 100 + x(i) / (i - 5)\n"
         "    b(i,j) = i * N + j + x(j) % (j - 3) where i in 0:4\n}\n",
         {"x": ints(20, -20, 20, I32)},
         lambda x: {"a": ((np.arange(20) - 7) // 3 + (np.arange(20) - 7) % 3 * 100 + x // (np.arange(20) - 5)).astype(I32),
                    "b": (np.arange(4)[:, None] * 20 + np.arange(20)[None, :] + x % (np.arange(20) - 3)).astype(I32)})


def define_scalars_and_reductions():
    case("scalar-sum", "def sum_all(float(N) x) -> (s) { s +=! x(i) }", {"x": unif(1000)},
         lambda x: {"s": np.array(x.astype(F64).sum(), F32)}, "reduce")
    case("scalar-max-int", "def smax(int32(N) x) -> (m) { m max=! x(i) }", {"x": bits(77, I32)},
         lambda x: {"m": np.array(x.max(), I32)})
    case("scalar-min-uint", "def smin(uint16(N) x) -> (m) { m min=! x(i) }", {"x": bits(77, U16)},
         lambda x: {"m": np.array(x.min(), U16)})
    case("scalar-input", "def axpy(float alpha, float(N) x, float(N) y) -> (z) { z(i) = alpha * x(i) + y(i) }",
         {"alpha": np.array(1.75, F32), "x": unif(50), "y": unif(50)}, lambda alpha, x, y: {"z": alpha * x + y})
    case("scalar-in-out", "def sc(double a, double b) -> (c) { c = a * b - a }",
         {"a": np.array(1.25, F64), "b": np.array(-3.5, F64)}, lambda a, b: {"c": np.array(a * b - a, F64)})
    case("size-from-scalar", "def tile(float(N) x, int32 R) -> (y) { y(r,i) = x(i) where r in 0:R }",
         {"x": unif(6), "R": np.array(3, I32)}, lambda x, R: {"y": np.tile(x, (3, 1))})
    case("rowsum", "def rowsum(float(M,N) A) -> (r) { r(i) +=! A(i,j) }", {"A": unif((9, 700))},
         lambda A: {"r": A.astype(F64).sum(1).astype(F32)}, "reduce")
    red = ("def red(%s(M,N) X) -> (s, p, mn, mx) {\n"
           "    s(i) +=! X(i,j)\n    p(i) *=! X(i,j)\n    mn(i) min=! X(i,j)\n    mx(i) max=! X(i,j)\n}\n")
    reda = ("def reda(%s(M,N) X) -> (s, p, mn, mx) {\n"
            "    s(i) += X(i,j)\n    p(i) *= X(i,j)\n    mn(i) min= X(i,j)\n    mx(i) max= X(i,j)\n}\n")
    X = unif((6, 40), 0.5, 1.5)
    case("reduce-float", red % "float", {"X": X},
         lambda X: {"s": X.astype(F64).sum(1).astype(F32), "p": X.astype(F64).prod(1).astype(F32),
                    "mn": X.min(1), "mx": X.max(1)}, "reduce")
    # without `!` the CLI's outputs start zeroed (SEMANTICS.md section 5)
    case("reduce-float-acc-zero", reda % "float", {"X": X},
         lambda X: {"s": X.astype(F64).sum(1).astype(F32), "p": np.zeros(6, F32),
                    "mn": np.zeros(6, F32), "mx": X.max(1)}, "reduce")
    Xd = unif((3, 50), 0.5, 1.5, F64)
    case("reduce-double", red % "double", {"X": Xd},
         lambda X: {"s": X.sum(1), "p": X.prod(1), "mn": X.min(1), "mx": X.max(1)}, "reduce")
    for T, ti in ((I32, "int32"), (U8, "uint8"), (I64, "int64")):
        Xi = bits((5, 30), T)
        wide = U64 if T == U8 else I64
        case("reduce-" + ti, red % ti, {"X": Xi},
             lambda X, T=T, wide=wide: {"s": X.astype(wide).sum(1).astype(T), "p": X.astype(wide).prod(1).astype(T),
                                        "mn": X.min(1), "mx": X.max(1)})
        case("reduce-acc-zero-" + ti, reda % ti, {"X": Xi},
             lambda X, T=T, wide=wide: {"s": X.astype(wide).sum(1).astype(T), "p": np.zeros(5, T),
                                        "mn": np.minimum(X.min(1), T(0)), "mx": np.maximum(X.max(1), T(0))})
    case("reduce-half", "def hred(float16(M,N) X) -> (s, mx) { s(i) +=! X(i,j)\n mx(i) max=! X(i,j) }",
         {"X": unif((4, 20), -2, 2, F16)},
         # a float16 read is a float16 value (tc_sema.h), so the outputs are float16
         lambda X: {"s": X.astype(F64).sum(1).astype(F16), "mx": X.max(1)}, "reduce")
    # float16 contractions run on the bytecode (the microkernel read halves as floats)
    case("mm-half", "def mmh(float16(M,K) A, float16(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
         {"A": unif((5, 7), -2, 2, F16), "B": unif((7, 3), -2, 2, F16)},
         lambda A, B: {"C": (A.astype(F64) @ B.astype(F64)).astype(F16)}, "reduce")
    case("mm-half-float", "def mmhf(float16(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
         {"A": unif((33, 40), -2, 2, F16), "B": unif((40, 70), -2, 2, F32)},
         lambda A, B: {"C": (A.astype(F64) @ B.astype(F64)).astype(F32)}, "reduce")
    case("reduce-bool", "def bred(bool(M,N) X) -> (a, o) { a(i) min=! X(i,j)\n o(i) max=! X(i,j) }",
         {"X": RNG.integers(0, 2, (20, 3)).astype(bool)}, lambda X: {"a": X.all(1), "o": X.any(1)})
    case("init-no-reduction", "def pw(float(N) X) -> (T) { T(i) *=! X(i-1) }", {"X": unif(7)},
         lambda X: {"T": np.concatenate([np.ones(1, F32), X])})


def define_dtypes():
    int_ew = ("def ew(T(N) a, T(N) b) -> (c, d, e, f, g, h) {\n"
              "    c(i) = a(i) * b(i) + a(i) - b(i)\n    d(i) = a(i) / b(i)\n    e(i) = a(i) % b(i)\n"
              "    f(i) = min(a(i), b(i)) - max(a(i), -b(i))\n    g(i) = a(i) < b(i) ? a(i) : -b(i)\n"
              "    h(i) = a(i) * 3 + 1\n}\n")
    # a(i) * 3: an int32 literal promotes to the signed type of the wider width
    promoted = {I8: I32, I16: I32, I32: I32, I64: I64, U8: I32, U16: I32, U32: I32, U64: I64}
    specs = [(I8, "int8", 2000, lambda n: ints(n, -5, 5, I8)), (I16, "int16", 500, lambda n: ints(n, -300, 300, I16)),
             (I32, "int32", 500, lambda n: ints(n, -70000, 70000, I32)), (I64, "int64", 500, lambda n: ints(n, -5, 5, I64)),
             (U8, "uint8", 600, lambda n: ints(n, 0, 5, U8)), (U16, "uint16", 500, lambda n: ints(n, 0, 300, U16)),
             (U32, "uint32", 500, lambda n: bits(n, U32)), (U64, "uint64", 500, lambda n: ints(n, 0, 5, U64))]
    for T, name, n, mk_b in specs:
        def expect(a, b, T=T):
            P = promoted[T]
            return {"c": a * b + a - b, "d": a // b, "e": a % b,
                    "f": np.minimum(a, b) - np.maximum(a, -b), "g": np.where(a < b, a, -b),
                    "h": (a.astype(P) * P(3) + P(1)).astype(P)}
        case("dtype-" + name, int_ew.replace("T(N)", name + "(N)"), {"a": bits(n, T), "b": mk_b(n)}, expect)
    case("dtype-bool", "def eb(bool(N) a, bool(N) b) -> (c, d, e) {\n"
         "    c(i) = a(i) && !b(i) || b(i) == a(i)\n    d(i) = a(i) != b(i)\n    e(i) = a(i) ? 1 : 2\n}\n",
         {"a": RNG.integers(0, 2, 64).astype(bool), "b": RNG.integers(0, 2, 64).astype(bool)},
         lambda a, b: {"c": (a & ~b) | (b == a), "d": a != b, "e": np.where(a, 1, 2).astype(I32)})
    case("dtype-float16", "def eh(float16(N) a, float16(N) b) -> (c, h) {\n"
         "    c(i) = a(i) * b(i) + a(i) / 3.0\n    h(i) = float16(a(i) * b(i) + 0.1)\n}\n",
         {"a": unif(300, -70, 70, F16), "b": unif(300, -1000, 1000, F16)},
         lambda a, b: {"c": a.astype(F32) * b.astype(F32) + a.astype(F32) / f32c(3.0),
                       "h": (a.astype(F32) * b.astype(F32) + f32c(0.1)).astype(F16)})
    case("dtype-float16-declared", "def ehd(float16(N) a) -> (float16(N) c) { c(i) = float16(a(i) * 3.0 + 1.0) }",
         {"a": unif(300, -20000, 20000, F16)}, lambda a: {"c": (a.astype(F32) * f32c(3) + f32c(1)).astype(F16)})
    case("dtype-float64", "def ed(double(N) a, double(N) b) -> (c, d) {\n"
         "    c(i) = a(i) * b(i) - a(i) / b(i)\n    d(i) = a(i) % b(i) + min(a(i), b(i))\n}\n",
         {"a": unif(300, -10, 10, F64), "b": unif(300, -3, 3, F64)},
         lambda a, b: {"c": a * b - a / b, "d": np.mod(a, b) + np.minimum(a, b)})
    case("dtype-float32-ops", "def ef(float(N) a, float(N) b) -> (c, d, e) {\n"
         "    c(i) = a(i) % b(i)\n    d(i) = -a(i) / b(i) + max(a(i), b(i))\n"
         "    e(i) = a(i) <= b(i) || a(i) > 2.0 * b(i) ? 1.0 : 0.0\n}\n",
         {"a": unif(300, -10, 10), "b": unif(300, -3, 3)},
         lambda a, b: {"c": np.mod(a, b), "d": -a / b + np.maximum(a, b),
                       "e": np.where((a <= b) | (a > f32c(2) * b), f32c(1), f32c(0))})
    case("promotion", "def mix(int8(N) a, uint16(N) b, float(N) x, int64(N) w) -> (c, d, e, f) {\n"
         "    c(i) = a(i) + b(i)\n    d(i) = x(i) * a(i)\n    e(i) = w(i) - b(i)\n    f(i) = x(i) + 1.5\n}\n",
         {"a": bits(100, I8), "b": bits(100, U16), "x": unif(100), "w": bits(100, I64)},
         lambda a, b, x, w: {"c": a.astype(I16) + b.astype(I16), "d": x * a.astype(F32), "e": w - b.astype(I64),
                             "f": x + f32c(1.5)})
    # d: a float literal is float32, widened next to a float64 (SEMANTICS.md 1)
    case("casts", "def casts(float(N) x, int32(N) k) -> (a, b, c, d, e) {\n"
         "    a(i) = int32(x(i) * 10.0)\n    b(i) = float(k(i)) / 3.0\n    c(i) = uint8(k(i))\n"
         "    d(i) = double(x(i)) * 1e-3\n    e(i) = int8(k(i) * 7)\n}\n",
         {"x": unif(200, -50, 50), "k": bits(200, I32)},
         lambda x, k: {"a": (x * f32c(10)).astype(I32), "b": k.astype(F32) / f32c(3), "c": k.astype(U8),
                       "d": x.astype(F64) * F64(F32(1e-3)), "e": (k * I32(7)).astype(I8)})
    case("multi-statement", "def multi(float(N) x) -> (y, z) {\n"
         "    t(i) = x(i) * 2.0\n    y(i) = t(i) + 1.0\n    y(i) += x(i)\n    z(i) = y(i) * t(i)\n}\n",
         {"x": unif(300)}, lambda x: {"y": x * f32c(2) + f32c(1) + x, "z": (x * f32c(2) + f32c(1) + x) * (x * f32c(2))})
    case("call", "def sq(float(N) x) -> (y) { y(i) = x(i) * x(i) }\n"
         "def callk(float(N) a) -> (b) {\n    t = sq(a)\n    b(i) = t(i) + a(i)\n}\n",
         {"a": unif(50)}, lambda a: {"b": a * a + a}, "exact", "callk")
    case("call-two-outputs", "def mm2(float(M,K) A, float(K,N) B) -> (C, D) { C(i,j) +=! A(i,k) * B(k,j)\n"
         " D(i,j) = C(i,j) * 2.0 }\n"
         "def chain(float(M,K) A, float(K,N) B, float(N,P) E) -> (F, G) {\n"
         "    C, D = mm2(A, B)\n    F, G = mm2(D, E)\n}\n",
         {"A": unif((4, 5)), "B": unif((5, 6)), "E": unif((6, 3))},
         lambda A, B, E: {"F": (2 * (A.astype(F64) @ B) @ E).astype(F32), "G": (4 * (A.astype(F64) @ B) @ E).astype(F32)},
         "reduce", "chain")


def erf_v(x):
    return np.vectorize(math.erf)(x)


def erfc_v(x):
    return np.vectorize(math.erfc)(x)


BUILTINS = [  # name, arity, (lo, hi) per argument, numpy in float64, exact?
    ("acos", 1, [(-0.99, 0.99)], np.arccos, 0), ("acosh", 1, [(1, 5)], np.arccosh, 0),
    ("asin", 1, [(-0.99, 0.99)], np.arcsin, 0), ("asinh", 1, [(-5, 5)], np.arcsinh, 0),
    ("atan", 1, [(-5, 5)], np.arctan, 0), ("atanh", 1, [(-0.95, 0.95)], np.arctanh, 0),
    ("cbrt", 1, [(-10, 10)], np.cbrt, 0), ("ceil", 1, [(-10, 10)], np.ceil, 1),
    ("cos", 1, [(-6, 6)], np.cos, 0), ("cosh", 1, [(-5, 5)], np.cosh, 0),
    ("cospi", 1, [(-3, 3)], lambda x: np.cos(np.pi * x), 0), ("erf", 1, [(-3, 3)], erf_v, 0),
    ("erfc", 1, [(-3, 3)], erfc_v, 0), ("exp", 1, [(-10, 10)], np.exp, 0),
    ("exp10", 1, [(-4, 4)], lambda x: 10.0 ** x, 0), ("exp2", 1, [(-10, 10)], np.exp2, 0),
    ("expm1", 1, [(-3, 3)], np.expm1, 0), ("fabs", 1, [(-10, 10)], np.fabs, 1),
    ("floor", 1, [(-10, 10)], np.floor, 1), ("lgamma", 1, [(0.1, 6)], np.vectorize(math.lgamma), 0),
    ("log", 1, [(0.01, 10)], np.log, 0), ("log10", 1, [(0.01, 10)], np.log10, 0),
    ("log1p", 1, [(-0.9, 10)], np.log1p, 0), ("log2", 1, [(0.01, 10)], np.log2, 0),
    ("logb", 1, [(0.01, 1000)], lambda x: np.floor(np.log2(np.abs(x))), 1),
    ("normcdf", 1, [(-5, 5)], lambda x: 0.5 * erfc_v(-x / math.sqrt(2)), 0),
    ("rcbrt", 1, [(0.1, 10)], lambda x: 1 / np.cbrt(x), 0),
    ("round", 1, [(-10, 10)], lambda x: np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)), 1),
    ("rsqrt", 1, [(0.01, 10)], lambda x: 1 / np.sqrt(x), 0), ("sin", 1, [(-6, 6)], np.sin, 0),
    ("sinh", 1, [(-5, 5)], np.sinh, 0), ("sinpi", 1, [(-3, 3)], lambda x: np.sin(np.pi * x), 0),
    ("sqrt", 1, [(0, 100)], np.sqrt, 1), ("tan", 1, [(-1.4, 1.4)], np.tan, 0),
    ("tanh", 1, [(-5, 5)], np.tanh, 0), ("tgamma", 1, [(0.1, 6)], np.vectorize(math.gamma), 0),
    ("trunc", 1, [(-10, 10)], np.trunc, 1),
    ("atan2", 2, [(-3, 3), (-3, 3)], np.arctan2, 0), ("copysign", 2, [(-3, 3), (-3, 3)], np.copysign, 1),
    ("fdim", 2, [(-3, 3), (-3, 3)], lambda x, y: np.where(x > y, x - y, 0.0), 1),
    ("fdivide", 2, [(-3, 3), (0.5, 3)], lambda x, y: x / y, 0),
    ("fmax", 2, [(-3, 3), (-3, 3)], np.fmax, 1), ("fmin", 2, [(-3, 3), (-3, 3)], np.fmin, 1),
    ("fmod", 2, [(-10, 10), (0.5, 3)], np.fmod, 1), ("hypot", 2, [(-5, 5), (-5, 5)], np.hypot, 0),
    ("pow", 2, [(0.1, 5), (-3, 3)], np.power, 0),
    ("remainder", 2, [(-10, 10), (0.5, 3)], np.vectorize(math.remainder), 1),
    ("rhypot", 2, [(-5, 5), (-5, 5)], lambda x, y: 1 / np.hypot(x, y), 0),
    ("fma", 3, [(-3, 3)] * 3, lambda x, y, z: x * y + z, 0),
    ("norm3d", 3, [(-3, 3)] * 3, lambda x, y, z: np.sqrt(x * x + y * y + z * z), 0),
    ("rnorm3d", 3, [(-3, 3)] * 3, lambda x, y, z: 1 / np.sqrt(x * x + y * y + z * z), 0),
    ("norm4d", 4, [(-3, 3)] * 4, lambda x, y, z, w: np.sqrt(x * x + y * y + z * z + w * w), 0),
    ("rnorm4d", 4, [(-3, 3)] * 4, lambda x, y, z, w: 1 / np.sqrt(x * x + y * y + z * z + w * w), 0),
]


def define_builtins():
    for name, arity, doms, fn, exact in BUILTINS:
        for ty, T in (("float", F32), ("double", F64)):
            params = ", ".join("%s(N) x%d" % (ty, a) for a in range(arity))
            args = ", ".join("x%d(i)" % a for a in range(arity))
            src = "def b_%s(%s) -> (o) { o(i) = %s(%s) }" % (name, params, name, args)
            inputs = {"x%d" % a: unif(300, lo, hi, T) for a, (lo, hi) in enumerate(doms)}

            def expect(fn=fn, T=T, **kw):
                args = [kw["x%d" % a].astype(F64) for a in range(len(kw))]
                return {"o": np.asarray(fn(*args), F64).astype(T)}
            case("builtin-%s-%s" % (name, ty), src, inputs, expect, "exact" if exact else "loose")
    case("nextafter-float", "def na(float(N) x, float(N) y) -> (o) { o(i) = nextafter(x(i), y(i)) }",
         {"x": unif(100, -3, 3), "y": unif(100, -3, 3)}, lambda x, y: {"o": np.nextafter(x, y)})
    case("ew-tanh", "def ew_tanh(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = tanh(a(i) * x(i) + b(i)) }",
         {"a": unif(700), "x": unif(700, -2, 2), "b": unif(700)},
         lambda a, x, b: {"y": np.tanh((a * x + b).astype(F64)).astype(F32)}, "loose")
    case("ew-fma", "def ew_fma(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = a(i) * x(i) + b(i) }",
         {"a": unif(700), "x": unif(700, -2, 2), "b": unif(700)}, lambda a, x, b: {"y": a * x + b})
    case("sigmoid-gelu", "def act(float(N) x) -> (s, g) {\n    s(i) = 1.0 / (1.0 + exp(-x(i)))\n"
         "    g(i) = 0.5 * x(i) * (1.0 + erf(x(i) * 0.70710678))\n}\n", {"x": unif(300, -6, 6)},
         lambda x: {"s": (1 / (1 + np.exp(-x.astype(F64)))).astype(F32),
                    "g": (0.5 * x * (1 + erf_v(x.astype(F64) * F64(f32c(0.70710678))))).astype(F32)}, "loose")


# ---- error paths of the CLI ----
def run_raw(args):
    try:
        r = subprocess.run([TC] + args, capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, str(e)


def test_errors():
    gather = "def emb(float(V,D) W, int32(L) Idx) -> (E) { E(i,j) = W(Idx(i), j) }"
    rc, outs, err = run_tc(gather, None, {"W": unif((4, 3)), "Idx": np.array([0, 4, 1], I32)})
    check(rc == 1 and err.strip() != "" and not outs, "gather out of range: exit %d, outputs %s, %r" % (rc, sorted(outs), err))
    rc, outs, err = run_tc(gather, None, {"W": unif((4, 3)), "Idx": np.array([0, -1], I64).astype(I32)})
    check(rc == 1 and err.strip() != "", "negative gather: exit %d %r" % (rc, err))
    pre = "def pre(float(N) B, float(M) C, float(K) D) -> (A) { A(i,j) = B(i) * C(i+j) * D(j) }"
    rc, outs, err = run_tc(pre, None, {"B": unif(4), "C": unif(7), "D": unif(5)})
    check(rc == 1 and err.strip() != "" and not outs, "failed precondition: exit %d %r" % (rc, err))
    mm = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }"
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3)), "B": unif((4, 2))})
    check(rc == 1 and "K" in err, "size variable mismatch: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3), dtype=F64), "B": unif((3, 2))})
    check(rc == 1 and err.strip() != "", "wrong dtype: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif(3), "B": unif((3, 2))})
    check(rc == 1 and err.strip() != "", "wrong rank: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": np.asfortranarray(unif((2, 3))), "B": unif((3, 2))})
    check(rc == 1 and "ortran" in err, "Fortran order: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3)).astype(">f4"), "B": unif((3, 2))})
    check(rc == 1 and err.strip() != "", "big-endian: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3)).astype(np.complex64), "B": unif((3, 2))})
    check(rc == 1 and err.strip() != "", "complex dtype: exit %d %r" % (rc, err))
    rc, _, err = run_tc("def mm(float(M,K) A) -> (C) { C(i) = A(i, }", None, {"A": unif((2, 3))})
    check(rc == 1 and ":1:" in err and "^" in err, "syntax error: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, "nope", {"A": unif((2, 3)), "B": unif((3, 2))})
    check(rc == 2 and "nope" in err, "unknown entry: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3))})
    check(rc == 2 and "B" in err, "missing input: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3)), "B": unif((3, 2)), "Z": unif(2)})
    check(rc == 2, "unknown input name: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3)), "B": unif((3, 2))}, extra=["--bogus"])
    check(rc == 2 and err.strip() != "", "unknown option: exit %d %r" % (rc, err))
    rc, _, err = run_tc(mm, None, {"A": unif((2, 3)), "B": unif((3, 2))}, threads=0)
    check(rc == 2, "--threads 0: exit %d %r" % (rc, err))
    for args in ([], ["frobnicate"], ["run"], ["run", "/nonexistent/x.tc", "-o", "/tmp"]):
        rc, out = run_raw(args)
        want = 1 if args[-1:] == ["/tmp"] else 2
        check(rc == want and out.strip() != "", "tc %s: exit %d (want %d) %r" % (" ".join(args), rc, want, out[:200]))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.tc")
        with open(path, "w") as f:
            f.write(mm)
        np.save(os.path.join(tmp, "A.npy"), unif((2, 3)))
        rc, out = run_raw(["run", path, "-i", "A=" + os.path.join(tmp, "A.npy"), "-i",
                           "B=" + os.path.join(tmp, "missing.npy"), "-o", tmp])
        check(rc == 1 and out.strip() != "", "missing .npy file: exit %d %r" % (rc, out))
        rc, out = run_raw(["run", path, "-i", "A", "-o", tmp])
        check(rc == 2, "-i without =: exit %d %r" % (rc, out))
        rc, out = run_raw(["run", path, "-i", "A=" + os.path.join(tmp, "A.npy")])
        check(rc == 2, "run without -o: exit %d %r" % (rc, out))


def main():
    if not check(os.access(TC, os.X_OK), "%s is not built (make)" % TC):
        print("RESULT %d %d" % (passed, failed))
        return 1
    define_contractions()
    define_convolutions()
    define_normalisations()
    define_indexing()
    define_scalars_and_reductions()
    define_dtypes()
    define_builtins()
    for c in CASES:
        run_case(*c)
    test_errors()
    print("RESULT %d %d" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
