"""An explicitly vectorised binary32 Exp loop (AVX-512 vector IR) against the shipped one (issue 39, vexp).

    python bench/exp_vector.py [--check N] [--all] [--scan S] [--loop] [--mca] [--pipe K] [--turns T] [--no-rows]
                               [OP:KERNEL ...]

The candidate, written as LLVM vector IR through a Numba ``intrinsic`` (8 binary64 lanes an operation):
``kd = fma(t, 1/ln2, 1.5 * 2**48)`` rounds t/ln2 to a multiple of 1/16 (``k/16``), ``yk = kd - 1.5 * 2**48``
exactly, ``r = fma(yk, -ln2, t)`` (kernel.exp's binary64 ln 2; ``|r| <= ln2/32``), ``e**r`` by a degree-5
polynomial in Horner form (a near-minimax relative fit on ``|r| <= 1.0001 ln2/32``: Lawson's iteration in
40-digit mpmath, as bench/exp_fast_variants.py fits), times ``2**((k mod 16)/16)`` from a 16-entry binary64
table held in two registers and read by ``vpermi2pd`` (the index is kd's own bits: their low four are ``k mod
16``), times ``2**floor(k/16)`` by ``vscalefpd`` of ``yk``, rounded once to binary32. The guard band is
kernel.exp's: ``(bits + GUARD_ADD) mod 2**29`` in [0, 1023] (1 less than its [0, 1024]), tested by one
merge-masked ``vptestmq`` per 8 lanes that keeps the loop's running "no element in the band" mask.

- ``--check N``: N random bit patterns, N values in [-90, 90] and the specials through the candidate; every
  element outside its band and not below -87 (those the hot tier flags already) must equal the shipped
  ``exp_block``'s bits. ``--all``: the same over all 2**32 binary32 patterns.
- ``--scan S``: the candidate's largest distance from libm's binary64 ``exp`` in binary64 ulps, every S-th
  pattern with a normal binary32 result (the guard is 512).
- ``--loop``: the Exp loop alone (the hot tier's form: load, Exp, running flag, store), shipped against the
  candidate, 512-element blocks of 2**13 elements in L1, 1 thread, interleaved, min of ``--turns``.
- rows (default gelu_v2:arch35 gelu_grad_v2:arch35): the row's generated hot block, and the same block with
  its Exp loop replaced by the candidate (``exp_rows``): bits compared on the blocks neither flags, then
  timed, interleaved, min of ``--turns``: in L1 (2**13 elements, 500 times, 1 thread) and over the bench's
  2**22 inputs (1 thread; 2 threads, a ``prange`` over the two halves). ``--mca``: each vectorised loop of
  both blocks in ``llvm-mca`` (as bench/hot_loop_mca.py ``--each``). ``--pipe K``: the hot form's loop
  software-pipelined (each step computes the next 8 lanes' reduction, table read and K Horner steps).

Needs an AVX-512 CPU (the candidate calls ``llvm.x86.avx512.*``).
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from swishgrad_numba.intrinsics import vectorise_full_width
from swishgrad_numba.kernel import exp as kexp
from swishgrad_numba.kernel.exp_vector import exp_tail, lanes_loop

sys.path.insert(0, os.path.dirname(__file__))
from exp_fast_variants import capture, fit  # noqa: E402

LANES = 8
TAB_BITS = 4
DEGREE = 5
_SHIFT = 1.5 * 2.0 ** (52 - TAB_BITS)    # t/ln2 + _SHIFT rounds t/ln2 to a multiple of 2**-TAB_BITS
POLY, POLY_ERR = fit(1 << TAB_BITS, DEGREE)


def _table() -> tuple:
    import mpmath

    mpmath.mp.dps = 50
    return tuple(float(mpmath.power(2, mpmath.mpf(j) / (1 << TAB_BITS))) for j in range(1 << TAB_BITS))


TABLE = _table()
# outside the band: some of bits 10..28 of bits + GUARD_ADD set
_OUTSIDE = 0x1FFFFFFF & ~(2 * kexp.GUARD_ULPS - 1)
BLOCK = 512


def _splat(ty, v):
    return ir.Constant(ir.VectorType(ty, LANES), [v] * LANES)


def _fns(builder):
    f64, i8, i32, i64 = ir.DoubleType(), ir.IntType(8), ir.IntType(32), ir.IntType(64)
    vf64, vi64 = ir.VectorType(f64, LANES), ir.VectorType(i64, LANES)
    mod = builder.module
    return (cgutils.get_or_insert_function(mod, ir.FunctionType(vf64, [vf64] * 3), "llvm.fma.v8f64"),
            cgutils.get_or_insert_function(mod, ir.FunctionType(vf64, [vf64, vi64, vf64]),
                                           "llvm.x86.avx512.vpermi2var.pd.512"),
            cgutils.get_or_insert_function(mod, ir.FunctionType(vf64, [vf64, vf64, vf64, i8, i32]),
                                           "llvm.x86.avx512.mask.scalef.pd.512"))


def _front(builder, src_ptr, i, clamp: bool, steps: int):
    """The first part of 8 lanes' Exp: ``(yk, r, tj, q)`` with ``steps`` of the Horner steps done."""
    f32, f64, i64 = ir.FloatType(), ir.DoubleType(), ir.IntType(64)
    vf32, vf64, vi64 = (ir.VectorType(t, LANES) for t in (f32, f64, i64))
    fma, perm, _ = _fns(builder)
    t = builder.load(builder.bitcast(builder.gep(src_ptr, [i]), vf32.as_pointer()), align=4)
    if clamp:       # min(t, 100) as Numba's min: NaN passes
        hi = _splat(f32, float(kexp.T_HI))
        t = builder.select(builder.fcmp_ordered("<", hi, t), hi, t)
    td = builder.fpext(t, vf64)
    kd = builder.call(fma, [td, _splat(f64, kexp._INV_LN2), _splat(f64, _SHIFT)])
    yk = builder.fsub(kd, _splat(f64, _SHIFT))
    r = builder.call(fma, [yk, _splat(f64, -kexp._LN2), td])
    tj = builder.call(perm, [ir.Constant(vf64, list(TABLE[:8])), builder.bitcast(kd, vi64),
                             ir.Constant(vf64, list(TABLE[8:]))])
    q = _splat(f64, POLY[DEGREE])
    for c in POLY[DEGREE - 1:DEGREE - 1 - steps:-1]:
        q = builder.call(fma, [q, r, _splat(f64, c)])
    return yk, r, tj, q


def _back(builder, dst_ptr, i, acc, yk, r, tj, q, steps: int, marks_ptr=None, wide: bool = False):
    """The rest: ``dst[i:i+8]`` stored; ``acc`` and'ed with 'outside the band'."""
    f32, f64, i64, i8, i32 = ir.FloatType(), ir.DoubleType(), ir.IntType(64), ir.IntType(8), ir.IntType(32)
    vf32, vf64, vi64 = (ir.VectorType(t, LANES) for t in (f32, f64, i64))
    fma, _, scalef = _fns(builder)
    for c in POLY[DEGREE - 1 - steps::-1]:
        q = builder.call(fma, [q, r, _splat(f64, c)])
    s = builder.call(scalef, [builder.fmul(tj, q), yk, ir.Constant(vf64, None), ir.Constant(i8, -1),
                              ir.Constant(i32, 4)])
    if wide:
        builder.store(s, builder.bitcast(builder.gep(dst_ptr, [i]), vf64.as_pointer()), align=8)
    else:
        builder.store(builder.fptrunc(s, vf32), builder.bitcast(builder.gep(dst_ptr, [i]), vf32.as_pointer()),
                      align=4)
    y = builder.add(builder.bitcast(s, vi64), _splat(i64, int(kexp._GUARD_ADD)))
    outside = builder.icmp_unsigned("!=", builder.and_(y, _splat(i64, _OUTSIDE)), _splat(i64, 0))
    if marks_ptr is not None:
        vi8 = ir.VectorType(i8, LANES)
        builder.store(builder.zext(builder.not_(outside), vi8),
                      builder.bitcast(builder.gep(marks_ptr, [i]), vi8.as_pointer()), align=1)
    return builder.and_(acc, outside)


def _lanes(builder, src_ptr, dst_ptr, i, acc, clamp: bool, marks_ptr=None, wide: bool = False):
    """One step of 8 lanes: ``dst[i:i+8]`` from ``src[i:i+8]``; the running mask ``acc`` and'ed with 'outside
    the band'. ``wide``: store the binary64 values (the scan)."""
    return _back(builder, dst_ptr, i, acc, *_front(builder, src_ptr, i, clamp, 0), 0, marks_ptr, wide)


#: Horner steps done one 8-lane step ahead (``--pipe``; 0: no software pipelining). Read when the loop compiles.
PIPE = 0


def _loop_piped(clamp: bool):
    """``_loop``'s codegen, the front of the next 8 lanes computed in each step (software pipelining)."""
    def codegen(context, builder, signature, args):
        src, dst = [context.make_array(signature.args[k])(context, builder, args[k]).data for k in (0, 1)]
        i64, mask_ty = ir.IntType(64), ir.VectorType(ir.IntType(1), LANES)
        vf64 = ir.VectorType(ir.DoubleType(), LANES)
        stop = builder.and_(args[2], ir.Constant(i64, -LANES))
        head, body, done = (builder.append_basic_block(f"vexp.{x}") for x in ("head", "body", "done"))
        zero = ir.Constant(i64, 0)
        has = builder.icmp_signed(">", stop, zero)
        # the first front reads lanes 0..7 only where there are 8 (else it is not used)
        init = builder.alloca(ir.FloatType(), size=ir.Constant(i64, LANES))
        builder.store(ir.Constant(ir.VectorType(ir.FloatType(), LANES), [0.0] * LANES),
                      builder.bitcast(init, ir.VectorType(ir.FloatType(), LANES).as_pointer()))
        base = builder.select(has, src, builder.bitcast(init, src.type))
        f0 = _front(builder, base, zero, clamp, PIPE)
        pre = builder.block
        builder.branch(head)
        builder.position_at_end(head)
        i, acc = builder.phi(i64), builder.phi(mask_ty)
        carried = [builder.phi(vf64) for _ in range(4)]
        i.add_incoming(zero, pre)
        acc.add_incoming(ir.Constant(mask_ty, [1] * LANES), pre)
        for ph, v in zip(carried, f0):
            ph.add_incoming(v, pre)
        builder.cbranch(builder.icmp_signed("<", i, stop), body, done)
        builder.position_at_end(body)
        nxt = builder.add(i, ir.Constant(i64, LANES))
        at = builder.select(builder.icmp_signed("<", nxt, stop), nxt, i)
        f1 = _front(builder, src, at, clamp, PIPE)
        acc.add_incoming(_back(builder, dst, i, acc, *carried, PIPE), builder.block)
        for ph, v in zip(carried, f1):
            ph.add_incoming(v, builder.block)
        i.add_incoming(nxt, builder.block)
        builder.branch(head)
        builder.position_at_end(done)
        every = builder.icmp_unsigned("==", builder.bitcast(acc, ir.IntType(LANES)), ir.Constant(ir.IntType(LANES), -1))
        return builder.zext(builder.not_(every), ir.IntType(8))

    return codegen


def _loop(clamp: bool, marks: bool = False, wide: bool = False):
    """Codegen of ``(src, dst, n[, marks])``: the 8-lane steps over ``n - n % 8`` elements (the package's loop,
    kernel.exp_vector.lanes_loop); 1 where some element lies in the band, else 0."""
    def codegen(context, builder, signature, args):
        ptrs = [context.make_array(signature.args[k])(context, builder, args[k]).data for k in (0, 1)]
        marks_ptr = context.make_array(signature.args[3])(context, builder, args[3]).data if marks else None
        flag = lanes_loop(builder, args[2],
                          lambda b, i, acc: _lanes(b, ptrs[0], ptrs[1], i, acc, clamp, marks_ptr, wide))
        return builder.zext(flag, ir.IntType(8))

    return codegen


@intrinsic
def _vexp_clamped(typingctx, src, dst, n):
    return types.uint8(src, dst, types.int64), (_loop_piped(False) if PIPE else _loop(False))


@intrinsic
def _vexp_marked(typingctx, src, dst, n, marks):
    return types.uint8(src, dst, types.int64, marks), _loop(True, marks=True)


@intrinsic
def _vexp_wide(typingctx, src, dst, n):
    return types.uint8(src, dst, types.int64), _loop(True, wide=True)


@njit(error_model="numpy", inline="always")
def exp_rows(src, dst, n):
    """The hot tier's Exp loop by the candidate: ``dst[:n]`` from the clamped ``src[:n]`` (the last ``n % 8`` by
    the shipped ``exp_fast``); whether the block is to be flagged."""
    return (_vexp_clamped(src, dst, n) != 0) | exp_tail(src, dst, n)


@njit(error_model="numpy")
def shipped_loop(src, dst, n):
    """The hot tier's Exp loop as generated (kernel.exp.exp_fast)."""
    vectorise_full_width()
    key = kexp.NO_KEY
    for i in range(n):
        e, k, _s = kexp.exp_fast(src[i])
        key = min(key, k)
        dst[i] = np.float32(e)
    return key <= kexp.GUARD_LIM


@njit(error_model="numpy")
def vector_loop(src, dst, n):
    vectorise_full_width()
    return exp_rows(src, dst, n)


@njit(error_model="numpy")
def _marked(src, dst, marks):
    return _vexp_marked(src, dst, src.size, marks)


@njit(error_model="numpy", parallel=True)
def _all_patterns(chunk):
    """Over all 2**32 patterns, chunk by chunk: (elements checked, elements in the band, elements differing)."""
    count = (1 << 32) // chunk
    checked = np.zeros(count, np.int64)
    band = np.zeros(count, np.int64)
    differ = np.zeros(count, np.int64)
    for c in prange(count):
        src = np.empty(chunk, np.float32)
        bits = src.view(np.uint32)
        for i in range(chunk):
            bits[i] = np.uint32(c * chunk + i)
        got = np.empty(chunk, np.float32)
        ref = np.empty(chunk, np.float32)
        marks = np.zeros(chunk, np.uint8)
        _vexp_marked(src, got, chunk, marks)
        kexp.vexp_f32(ref, src, chunk, np.float32(1.0))
        gb, rb = got.view(np.uint32), ref.view(np.uint32)
        for i in range(chunk):
            if marks[i] != 0:
                band[c] += 1
            elif bits[i] <= kexp.LOW_BITS:
                checked[c] += 1
                if gb[i] != rb[i]:
                    differ[c] += 1
    return checked.sum(), band.sum(), differ.sum()


def check(count: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 88.72283, 88.72284, -87.33654, -87.0, -103.97, -104.5,
                -110.0, 100.0, 1e-30, -1e-30, 1.0, -1.0, 0.5, 1e-45, -1e-45]
    t = np.concatenate([rng.integers(0, 1 << 32, count, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        rng.uniform(-90, 90, count).astype(np.float32), np.array(specials, np.float32),
                        np.array([0x7F800001, 0xFFC01234, 0x7FC00001, 0xFF800001], np.uint32).view(np.float32)])
    t = np.concatenate([t, np.zeros((-t.size) % LANES, np.float32)])
    ref, got, marks = np.empty_like(t), np.empty_like(t), np.zeros(t.size, np.uint8)
    kexp.vexp_f32(ref, t, t.size, np.float32(1.0))
    _marked(t, got, marks)
    checked = (marks == 0) & (t.view(np.uint32) <= kexp.LOW_BITS)
    differ = checked & (got.view(np.uint32) != ref.view(np.uint32))
    print(f"check: {t.size} inputs, {int(marks.sum())} in the band, {int(checked.sum())} checked, "
          f"{int(differ.sum())} differ from exp_block's bits", flush=True)


def scan(every: int) -> float:
    count = (1 << 32) // every
    src = (np.arange(count, dtype=np.uint64) * every).astype(np.uint32).view(np.float32)
    src = src[(src > -87.3) & (src < 88.7)]
    src = np.concatenate([src, np.zeros((-src.size) % LANES, np.float32)])
    got = np.empty(src.size, np.float64)
    _wide(src, got)
    ref = np.exp(src.astype(np.float64))
    return float(np.max(np.abs(got - ref) / np.spacing(ref)))


@njit(error_model="numpy")
def _wide(src, dst):
    _vexp_wide(src, dst, src.size)


@njit(error_model="numpy")
def _reps(f, src, dst, times):
    flag = False
    for _ in range(times):
        for b in range(0, src.size, BLOCK):
            flag |= f(src[b:b + BLOCK], dst[b:b + BLOCK], BLOCK)
    return flag


def loop_timing(turns: int) -> None:
    src = np.minimum(np.random.default_rng(2).uniform(-20, 5, 1 << 13).astype(np.float32), kexp.T_HI)
    dst = np.empty_like(src)
    fs = {"shipped": shipped_loop, "vector": vector_loop}
    for f in fs.values():
        _reps(f, src, dst, 1)
    best = dict.fromkeys(fs, 1e9)
    for _ in range(turns):
        for k, f in fs.items():
            t0 = time.perf_counter()
            _reps(f, src, dst, 500)
            best[k] = min(best[k], (time.perf_counter() - t0) / (src.size * 500))
    print(f"Exp loop alone (L1, 1 thread, min of {turns}): shipped {best['shipped'] * 1e9:.3f} ns/el, vector "
          f"{best['vector'] * 1e9:.3f}, ratio {best['vector'] / best['shipped']:.3f}", flush=True)


_EXP_LOOP = re.compile(r"        (?P<v>v\d+)c = scratch\[(?P<a>\d+), i\]\n"
                       r"        (?P=v)e, (?P=v)key, _(?P=v) = exp_fast\((?P=v)c\)\n"
                       r"        exp_key = min\(exp_key, (?P=v)key\)\n"
                       r"        (?P=v) = np.float32\((?P=v)e\)\n"
                       r"        scratch\[(?P<b>\d+), i\] = (?P=v)\n")


def vector_source(source: str) -> str:
    """The generated block with its Exp loop (each Exp: scratch row to scratch row) as ``exp_rows`` calls."""
    calls = []

    def cut(m):
        calls.append(f"    if exp_rows(scratch[{m['a']}], scratch[{m['b']}], n):\n        exp_key = np.uint64(0)\n")
        return ""

    out = _EXP_LOOP.sub(cut, source)
    empty = r"    for i in range\(n\):\n        j = at \+ np.uint64\(i\)\n(?=    for i|    if)"   # the loop left
    out = re.sub(empty, "".join(calls), out, count=1)
    if not calls or "exp_rows" not in out:
        raise SystemExit("no Exp loop of its own in this block")
    return out


def blocks(prepared, vector: bool):
    from swishgrad_numba.engine import hot, hot_source

    m = prepared.main
    source = hot_source.block_source(m.code, m.grain, prepared.inputs, m.out, prepared.sat,
                                     inline=hot._inlined(prepared))
    if vector:
        source = vector_source(source)
    namespace = hot._globals()
    namespace["exp_rows"] = exp_rows
    exec(compile(source, "<hot block>", "exec"), namespace)   # noqa: S102 (the generator's own source)
    block = njit(namespace["hot_block"], error_model="numpy")

    @njit(error_model="numpy")
    def one(params, in0, in1, in2, out, scalars, tables, flags, nb, reps):
        scratch = np.empty((max(params.scratch_rows, 1), BLOCK), dtype=np.float32)
        for _ in range(reps):
            for b in range(nb):
                flags[b] = block(params, in0, in1, in2, out, b * BLOCK, min(BLOCK, out.size - b * BLOCK), scalars,
                                 tables, scratch)

    @njit(error_model="numpy", parallel=True)
    def two(params, in0, in1, in2, out, scalars, tables, flags, nb, reps):
        half = (nb + 1) // 2
        for t in prange(2):
            scratch = np.empty((max(params.scratch_rows, 1), BLOCK), dtype=np.float32)
            for _ in range(reps):
                for b in range(t * half, min(nb, (t + 1) * half)):
                    flags[b] = block(params, in0, in1, in2, out, b * BLOCK, min(BLOCK, out.size - b * BLOCK),
                                     scalars, tables, scratch)

    return block, one, two


def block_mca(row: str, runs: dict, prepared) -> None:
    from hot_loop_mca import _vector, loop_cost, loops
    from swishgrad_numba.engine import hot, hot_source

    m = prepared.main
    inline = hot._inlined(prepared)
    cls = hot.hot_class(m.code, m.grain, prepared.inputs, m.out, prepared.sat, inline)
    rows = hot_source.scratch_rows(m.code, m.grain, prepared.inputs, m.out, prepared.sat, inline)
    for name, (block, _, _) in runs.items():
        z = np.zeros(1024, np.float32)
        block(cls(rows), z, z, z, np.zeros(1024, np.float32), 0, 512, np.zeros(256, np.float32),
              np.zeros((0, 65536), np.float32), np.zeros((max(rows, 1), 512), np.float32))
        asm = next(iter(block.inspect_asm().values()))
        total = 0.0
        for k, body in enumerate(b for b in loops(asm, True) if _vector(b) >= 5):
            cycles, bound, step = loop_cost(body, "sapphirerapids")
            if step:
                total += cycles / step
                print(f"  mca {name:9s} loop {k}: {step:2d} el/iter  {cycles / step:.3f} cycles/el  bound "
                      f"{bound / step:.3f}")
        print(f"  mca {name:9s} vector loops' sum {total:.3f} cycles/el", flush=True)


def row_timing(row: str, turns: int, mca: bool) -> None:
    from swishgrad_numba.engine import hot

    n = 1 << 22
    prepared, ins, attrs = capture(*row.split(":"), n)
    params, scalars, tables = hot.launch_args(prepared, attrs)
    ins3 = tuple(ins) + (ins[0],) * (3 - len(ins))
    runs = {name: blocks(prepared, name == "vector") for name in ("generated", "vector")}
    nb = -(-n // BLOCK)
    results = {}
    for name, (_, one, two) in runs.items():
        out, flags = np.zeros(n, np.float32), np.zeros(nb, np.bool_)
        two(params, *ins3, out, scalars, tables, flags, nb, 1)
        one(params, *ins3, out, scalars, tables, flags, nb, 1)
        results[name] = (out, flags)
    (a, fa), (b, fb) = results["generated"], results["vector"]
    both = np.repeat(~(fa | fb), BLOCK)[:n]
    same = np.array_equal(a.view(np.uint32)[both], b.view(np.uint32)[both])
    print(f"{row}: flagged blocks {int(fa.sum())} generated / {int(fb.sum())} vector of {nb}; bits on the others "
          f"{'equal' if same else 'DIFFER'}; load {os.getloadavg()[0]:.1f}", flush=True)
    if mca:
        block_mca(row, runs, prepared)
    modes = (("L1, 1 thread", 0, 16, 500), ("2^22, 1 thread", 0, nb, 1), ("2^22, 2 threads", 1, nb, 1))
    out, flags = np.zeros(n, np.float32), np.zeros(nb, np.bool_)
    best = {(k, mode[0]): 1e9 for k in runs for mode in modes}
    for _ in range(turns):
        for name, fs in runs.items():
            for label, which, count, reps in modes:
                t0 = time.perf_counter()
                fs[1 + which](params, *ins3, out, scalars, tables, flags, count, reps)
                best[name, label] = min(best[name, label], (time.perf_counter() - t0) / (count * BLOCK * reps))
    for label, *_ in modes:
        g, v = best["generated", label], best["vector", label]
        print(f"  {label:16s} generated {g * 1e9:.3f} ns/el  vector {v * 1e9:.3f}  ratio {v / g:.3f}", flush=True)
    print(f"  (min of {turns} interleaved turns; load {os.getloadavg()[0]:.1f})", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=["gelu_v2:arch35", "gelu_grad_v2:arch35"])
    ap.add_argument("--check", type=int, default=0)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scan", type=int, default=0)
    ap.add_argument("--loop", action="store_true")
    ap.add_argument("--mca", action="store_true")
    ap.add_argument("--turns", type=int, default=15)
    ap.add_argument("--no-rows", action="store_true")
    ap.add_argument("--pipe", type=int, default=0, choices=range(DEGREE + 1),
                    help="software-pipeline the hot form's loop: the next 8 lanes' reduction, table read and this "
                         "many Horner steps in each step")
    a = ap.parse_args(argv)
    global PIPE
    PIPE = a.pipe
    print(f"candidate: N=16 table, degree {DEGREE} (fit 2^{math.log2(POLY_ERR):.2f})", flush=True)
    if a.check:
        check(a.check)
    if a.all:
        t0 = time.perf_counter()
        checked, band, differ = _all_patterns(1 << 20)
        print(f"all 2^32 patterns: {checked} checked, {band} in the band, {differ} differ from exp_block's bits "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    if a.scan:
        print(f"scan: max {scan(a.scan):.1f} binary64 ulps from libm's exp (every {a.scan}th pattern)", flush=True)
    if a.loop:
        loop_timing(a.turns)
    if not a.no_rows:
        for row in a.rows:
            row_timing(row, a.turns, a.mca)


if __name__ == "__main__":
    main()
