"""The Exp's fast path against table candidates in rows' real hot blocks (issue 39).

    python bench/exp_fast_variants.py [OP:KERNEL ...] [--candidates 6/4 7/3] [--turns 9] [--scan 97]

A candidate ``BITS/DEG`` (N = 2**BITS): ``k = round(t N / ln2)`` by the 1.5 * 2**52 shifter, ``j = k mod N``,
``r = t - k (ln2 / N)`` by one fused multiply-add (``ln2 / N`` is kernel.exp's binary64 ln 2 over N, exact;
its error times ``|k| <= 110 N / ln2`` is at most 2**-48 relative in the result), ``e**r`` by a degree-DEG
polynomial in Horner form (a relative near-minimax fit on ``|r| <= 1.0001 ln2 / (2N)``: Lawson's iteration in
40-digit mpmath), times 2**(j/N) read from a table (binary64, from 40-digit decimal, rounded once; kept less
``j << (52 - BITS)``, so that adding ``k << (52 - BITS)`` to its bits also multiplies it by 2**(k div N)), the
product rounded once. Key and subnormal flag as kernel.exp's, so the guard (2**9 ulps) and the hot tier's use
are unchanged. The table read is a vector gather (``vpgatherqq``) in the vectorised loop.

Each row's hot block (engine.hot_source.block_source, as engine.hot compiles it) is compiled once per fast
path, ``exp_fast`` replaced in its namespace, and run over the bench's 2**22 float32 inputs in 512-element
blocks: 1 thread, and 2 (a ``prange`` over the two halves), the paths interleaved, min of ``--turns``. The
results are compared bit for bit with the shipped path's on the blocks neither flags (a flagged block is run
again on the machine). ``--scan S``: a candidate's largest distance from libm's binary64 ``exp``, in binary64
ulps, over every S-th binary32 bit pattern with a normal binary32 result.
"""
from __future__ import annotations

import argparse
import math
import time
from decimal import Decimal, localcontext

import numpy as np
from numba import njit, prange

from swishgrad_numba.intrinsics import fma_f64
from swishgrad_numba.kernel import exp as kexp

ROWS = ("gelu_v2:arch35", "gelu_grad_v2:arch35", "silu:arch35", "sigmoid:a2", "swish_grad:a2")
BLOCK = 512


def fit(n: int, degree: int) -> tuple[tuple[float, ...], float]:
    """Coefficients of a near-minimax relative fit of e**r on |r| <= 1.0001 ln2 / (2n), and its error."""
    import mpmath

    mpmath.mp.dps = 40
    half = 1.0001 * math.log(2) / (2 * n)
    xs = [half * mpmath.cos(mpmath.pi * (i + 0.5) / 300) for i in range(300)]
    rows = [[x ** k / mpmath.exp(x) for k in range(degree + 1)] for x in xs]
    weights = [mpmath.mpf(1)] * len(xs)
    for _ in range(40):      # Lawson: reweight by the error until the weighted least squares is near minimax
        a = mpmath.matrix([[v * mpmath.sqrt(w) for v in row] for row, w in zip(rows, weights)])
        c = mpmath.qr_solve(a, mpmath.matrix([mpmath.sqrt(w) for w in weights]))[0]
        err = [abs(sum(c[k] * row[k] for k in range(degree + 1)) - 1) for row in rows]
        total = sum(w * e for w, e in zip(weights, err))
        weights = [w * e / total for w, e in zip(weights, err)]
    return tuple(float(c[k]) for k in range(degree + 1)), float(max(err))


def table(bits: int) -> np.ndarray:
    """bits(2**(j/N)) - (j << (52 - bits)) for j < N = 2**bits (40 decimal digits, rounded once)."""
    out = np.empty(1 << bits, np.uint64)
    with localcontext() as ctx:
        ctx.prec = 40
        for j in range(1 << bits):
            v = float(Decimal(2) ** (Decimal(j) / (1 << bits)))
            out[j] = (int(np.float64(v).view(np.uint64)) - (j << (52 - bits))) % (1 << 64)
    out.flags.writeable = False
    return out


def candidate(bits: int, degree: int):
    """``(exp_fast, fit error)`` of candidate ``bits/degree`` (kernel.exp.exp_fast's signature)."""
    if not 2 <= degree <= 6:
        raise ValueError("degree 2 to 6")
    n = 1 << bits
    coef, err = fit(n, degree)
    c = coef + (0.0,) * (7 - len(coef))
    tab = table(bits)
    inv, step = n / math.log(2), kexp._LN2 / n
    mask, shift = np.uint64(n - 1), np.uint64(52 - bits)

    @njit(error_model="numpy", inline="always")
    def exp_fast(tc):
        td = np.float64(tc)
        kd = fma_f64(td, inv, kexp._SHIFTER)
        kb = np.float64(kd).view(np.uint64)
        r = fma_f64(kd - kexp._SHIFTER, -step, td)
        p = c[degree]
        for i in range(degree - 1, -1, -1):
            p = fma_f64(p, r, c[i])
        scale = np.uint64(tab[kb & mask] + (kb << shift)).view(np.float64)
        db = np.float64(scale * p).view(np.uint64)
        key = (db + kexp._GUARD_ADD) & kexp._M29
        sub = np.float32(tc + kexp._SUB_SHIFT).view(np.uint32)
        return np.uint64(db).view(np.float64), key, sub

    return exp_fast, err


def scan_ulps(exp_fast, every: int) -> float:
    """The largest |exp_fast(t) - exp(t)| in binary64 ulps over every ``every``-th binary32 bit pattern with a
    normal binary32 result."""
    @njit(parallel=True, error_model="numpy")
    def scan(every):
        count = (1 << 32) // every
        worst = np.zeros(count, np.float64)
        for i in prange(count):
            t = np.uint32(i * every).view(np.float32)
            if -87.3 < t < 88.7:
                d = math.exp(np.float64(t))
                e, _key, _sub = exp_fast(kexp.clamp_exp_arg(t))
                worst[i] = abs(e - d) / (np.nextafter(d, np.inf) - d)
        return worst.max()

    return scan(every)


def capture(op: str, kernel: str, n: int):
    """``(prepared, ins, attrs)`` of the bench's float32 call of ``op`` at ``n`` elements, as engine.hot.run sees it."""
    from swishgrad_numba.benchmark.family import OP_BENCHES
    from swishgrad_numba.benchmark.inputs import make_inputs
    from swishgrad_numba.engine import hot
    from swishgrad_numba.platform import Platform

    seen = []
    run = hot.run

    def spy(prepared, ins, out, pieces, bins, attrs):
        seen.append((prepared, ins, attrs))
        return run(prepared, ins, out, pieces, bins, attrs)

    hot.run = spy
    try:
        g, x = make_inputs(n, "float32")
        bench = OP_BENCHES[op]
        platform = Platform() if kernel == "a2" else Platform(soc_version="ascend950")
        bench.emulator(g, x, np.empty_like(x), bench.beta, platform)
    finally:
        hot.run = run
    if not seen:
        raise SystemExit(f"{op}:{kernel} does not run hot")
    return seen[-1]


def drivers(prepared, exp_fast):
    """The row's hot block with this ``exp_fast``, driven over a whole array: (1 thread, 2 threads)."""
    from swishgrad_numba.engine import hot, hot_source

    m = prepared.main
    source = hot_source.block_source(m.code, m.grain, prepared.inputs, m.out, prepared.sat,
                                     inline=hot._inlined(prepared))
    namespace = hot._globals()
    namespace["exp_fast"] = exp_fast
    exec(compile(source, "<hot block>", "exec"), namespace)   # noqa: S102 (the generator's own source)
    block = njit(namespace["hot_block"], error_model="numpy")

    @njit(error_model="numpy")
    def one(params, in0, in1, in2, out, scalars, tables, flags):
        scratch = np.empty((max(params.scratch_rows, 1), BLOCK), dtype=np.float32)
        for b in range(flags.size):
            flags[b] = block(params, in0, in1, in2, out, b * BLOCK, min(BLOCK, out.size - b * BLOCK), scalars,
                             tables, scratch)

    @njit(error_model="numpy", parallel=True)
    def two(params, in0, in1, in2, out, scalars, tables, flags):
        half = (flags.size + 1) // 2
        for t in prange(2):
            scratch = np.empty((max(params.scratch_rows, 1), BLOCK), dtype=np.float32)
            for b in range(t * half, min(flags.size, (t + 1) * half)):
                flags[b] = block(params, in0, in1, in2, out, b * BLOCK, min(BLOCK, out.size - b * BLOCK),
                                 scalars, tables, scratch)

    return one, two


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=list(ROWS))
    ap.add_argument("--candidates", nargs="*", default=["6/4", "7/3"])
    ap.add_argument("--turns", type=int, default=9)
    ap.add_argument("--scan", type=int, default=0)
    a = ap.parse_args(argv)
    from swishgrad_numba.engine import hot

    paths = {"shipped": kexp.exp_fast}
    for spec in a.candidates:
        bits, degree = map(int, spec.split("/"))
        t0 = time.perf_counter()
        paths[spec], err = candidate(bits, degree)
        line = f"candidate N={1 << bits} degree {degree}: fit 2^{math.log2(err):.2f}, table+fit {time.perf_counter() - t0:.2f} s"
        if a.scan:
            line += f", max {scan_ulps(paths[spec], a.scan):.0f} ulps from libm exp (every {a.scan}th pattern)"
        print(line, flush=True)
    n = 1 << 22
    for row in a.rows:
        prepared, ins, attrs = capture(*row.split(":"), n)
        params, scalars, tables = hot.launch_args(prepared, attrs)
        ins3 = tuple(ins) + (ins[0],) * (3 - len(ins))
        runs = {name: drivers(prepared, f) for name, f in paths.items()}
        blocks = -(-n // BLOCK)
        results = {}
        for name, (one, two) in runs.items():
            out, flags = np.zeros(n, np.float32), np.zeros(blocks, np.bool_)
            one(params, *ins3, out, scalars, tables, flags)
            two(params, *ins3, out, scalars, tables, flags)
            results[name] = (out, flags)
        ref, ref_flags = results["shipped"]
        times = {name: ([], []) for name in runs}
        out, flags = np.zeros(n, np.float32), np.zeros(blocks, np.bool_)
        for _ in range(a.turns):
            for name, (one, two) in runs.items():
                for k, f in enumerate((one, two)):
                    t0 = time.perf_counter()
                    f(params, *ins3, out, scalars, tables, flags)
                    times[name][k].append(time.perf_counter() - t0)
        for name, (got, got_flags) in results.items():
            both = np.repeat(~(ref_flags | got_flags), BLOCK)[:n]
            same = np.array_equal(got.view(np.uint32)[both], ref.view(np.uint32)[both])
            print(f"{row:22s} {name:8s} 1 thread {min(times[name][0]) * 1e3:6.3f} ms  2 threads "
                  f"{min(times[name][1]) * 1e3:6.3f} ms  flagged blocks {int(got_flags.sum()):3d}  "
                  f"bits {'equal' if same else 'DIFFER'}", flush=True)


if __name__ == "__main__":
    main()
