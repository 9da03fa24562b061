"""The hot tier's binary32 Exp loop written as AVX-512 vector code (issue 39, vexp).

Private to the hot tier (:mod:`swishgrad_numba.engine.hot_source`): :func:`exp_rows` computes the fast
binary64 value of :func:`.exp.exp_fast` another way, 8 binary64 lanes an operation, and flags the same
elements: those whose value lies near a binary32 rounding boundary, which the caller runs again on the
machine (:func:`.exp.exp_block`). Everywhere outside that band the bits are those of
:func:`.exp.exp_block`, the correctly rounded e**t (tests/test_exp_exhaustive.py checks every binary32
input).

The lanes (LLVM vector IR through a Numba ``intrinsic``; LLVM's own vectoriser does not find the table
read): ``kd = fma(t, 1/ln2, 1.5 * 2**48)`` rounds t/ln2 to a multiple of 1/16, ``yk = kd - 1.5 * 2**48 =
k/16`` exactly, ``r = fma(yk, -ln2, t)`` (``|r| <= ln2/32``), e**r by a degree-5 polynomial in Horner
form, times ``2**((k mod 16)/16)`` from a 16-entry table held in two registers and read by ``vpermi2pd``
(indexed by kd's own low four bits), times ``2**floor(k/16)`` by ``vscalefpd`` of ``yk``, rounded once to
binary32. The value is within 67 binary64 ulps of the platform's ``exp`` (every 31st binary32 input
scanned), inside :data:`.exp.GUARD_ULPS`; the band test is one add and one merge-masked ``vptestmq`` per
8 lanes, which keeps the loop's running "no element in the band" mask. 17 µops per 8 elements against
:func:`.exp.exp_fast`'s 22 (bench/RESULTS.md, vexp).

Only where Numba compiles for AVX-512F (:data:`VECTOR_EXP`: ``vpermi2pd`` and ``vscalefpd`` are
AVX-512F instructions; the masked test is LLVM's choice for the and-compare). Elsewhere the hot tier keeps
its loop of :func:`.exp.exp_fast`.
"""
from __future__ import annotations

import platform
from decimal import Decimal, localcontext

import numba
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

from . import exp as kexp

__all__ = ["LANES", "VECTOR_EXP", "compiles_avx512f", "exp_rows", "exp_tail", "lanes_loop"]

#: binary64 lanes of one operation (512-bit registers).
LANES = 8
_TABLE_BITS = 4
_SHIFT = 1.5 * 2.0 ** (52 - _TABLE_BITS)     # t/ln2 + _SHIFT rounds t/ln2 to a multiple of 2**-4
# e**r ~ sum c_i r**i on |r| <= 1.0001 ln2/32: a near-minimax relative fit (Lawson's iteration in 40-digit
# mpmath: bench/exp_fast_variants.py's fit(16, 5)), relative error 2**-47.66.
_POLY = (1.0000000000000044, 0.9999999999999815, 0.4999999998279588, 0.16666666680596282, 0.04166764432306406,
         0.008333193637488034)


def _table() -> tuple:
    """2**(j/16) for j < 16, each rounded once from 40 digits."""
    with localcontext() as ctx:
        ctx.prec = 40
        return tuple(float(Decimal(2) ** (Decimal(j) / (1 << _TABLE_BITS))) for j in range(1 << _TABLE_BITS))


_TABLE = _table()
# Outside the band: some of bits 10..28 of bits + GUARD_ADD set (key >= 2 * GUARD_ULPS, exp.py's key)
_OUTSIDE = 0x1FFFFFFF & ~(2 * kexp.GUARD_ULPS - 1)


def compiles_avx512f(cpu_name: str | None, features: str | None) -> bool:
    """Whether Numba's target, given ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` as read (None: unset), has
    AVX-512F. The features Numba compiles for are ``NUMBA_CPU_FEATURES``, none for a ``generic`` CPU name
    without them (numba.core.config), else the host's (llvmlite)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    if features is None:
        if str(cpu_name).lower() == "generic":
            return False
        features = llvm.get_host_cpu_features().flatten()
    return "+avx512f" in features.split(",")


#: Whether this process's hot blocks run their Exp loops by :func:`exp_rows`. Decided once, at import, from
#: the target Numba compiles for. Numba's disk cache keys each compiled function by the CPU name and
#: features (its index key holds ``codegen.magic_tuple()``), so code compiled with one answer is never
#: loaded where the other holds; the hot tier also names the choice in each block's key.
VECTOR_EXP = compiles_avx512f(numba.config.CPU_NAME, numba.config.CPU_FEATURES)


def _splat(ty, value):
    return ir.Constant(ir.VectorType(ty, LANES), [value] * LANES)


def _lanes(builder, src, dst, i, outside):
    """8 lanes: ``dst[i:i+8]`` from ``src[i:i+8]``; the running mask ``outside`` and'ed with 'outside the band'."""
    f32, f64, i8, i32, i64 = ir.FloatType(), ir.DoubleType(), ir.IntType(8), ir.IntType(32), ir.IntType(64)
    vf32, vf64, vi64 = (ir.VectorType(t, LANES) for t in (f32, f64, i64))
    mod = builder.module
    fma = cgutils.get_or_insert_function(mod, ir.FunctionType(vf64, [vf64] * 3), "llvm.fma.v8f64")
    permute = cgutils.get_or_insert_function(mod, ir.FunctionType(vf64, [vf64, vi64, vf64]),
                                             "llvm.x86.avx512.vpermi2var.pd.512")
    scalef = cgutils.get_or_insert_function(mod, ir.FunctionType(vf64, [vf64, vf64, vf64, i8, i32]),
                                            "llvm.x86.avx512.mask.scalef.pd.512")
    t = builder.fpext(builder.load(builder.bitcast(builder.gep(src, [i]), vf32.as_pointer()), align=4), vf64)
    kd = builder.call(fma, [t, _splat(f64, kexp._INV_LN2), _splat(f64, _SHIFT)])
    yk = builder.fsub(kd, _splat(f64, _SHIFT))
    r = builder.call(fma, [yk, _splat(f64, -kexp._LN2), t])
    # the table's 16 entries in two registers; vpermi2pd reads the low four bits of each index lane
    tj = builder.call(permute, [ir.Constant(vf64, list(_TABLE[:8])), builder.bitcast(kd, vi64),
                                ir.Constant(vf64, list(_TABLE[8:]))])
    q = _splat(f64, _POLY[-1])
    for c in _POLY[-2::-1]:
        q = builder.call(fma, [q, r, _splat(f64, c)])
    # tj * q * 2**floor(yk): all lanes (mask -1), the current rounding mode (4)
    d = builder.call(scalef, [builder.fmul(tj, q), yk, ir.Constant(vf64, None), ir.Constant(i8, -1),
                              ir.Constant(i32, 4)])
    builder.store(builder.fptrunc(d, vf32), builder.bitcast(builder.gep(dst, [i]), vf32.as_pointer()), align=4)
    key = builder.add(builder.bitcast(d, vi64), _splat(i64, int(kexp._GUARD_ADD)))
    return builder.and_(outside, builder.icmp_unsigned("!=", builder.and_(key, _splat(i64, _OUTSIDE)),
                                                        _splat(i64, 0)))


def lanes_loop(builder, n, step):
    """The IR of a loop over ``n - n % 8`` elements, 8 lanes a step: ``step(builder, i, outside)`` emits lanes
    ``i .. i + 7`` and returns the running mask ``outside`` and'ed with theirs; the loop's value: whether some
    lane was not outside (an i1)."""
    i64, mask_ty = ir.IntType(64), ir.VectorType(ir.IntType(1), LANES)
    stop = builder.and_(n, ir.Constant(i64, -LANES))
    pre = builder.block
    head, body, done = (builder.append_basic_block(f"exp_lanes.{x}") for x in ("head", "body", "done"))
    builder.branch(head)
    builder.position_at_end(head)
    i, outside = builder.phi(i64), builder.phi(mask_ty)
    i.add_incoming(ir.Constant(i64, 0), pre)
    outside.add_incoming(ir.Constant(mask_ty, [1] * LANES), pre)
    builder.cbranch(builder.icmp_signed("<", i, stop), body, done)
    builder.position_at_end(body)
    outside.add_incoming(step(builder, i, outside), builder.block)
    i.add_incoming(builder.add(i, ir.Constant(i64, LANES)), body)
    builder.branch(head)
    builder.position_at_end(done)
    every = builder.icmp_unsigned("==", builder.bitcast(outside, ir.IntType(LANES)), ir.Constant(ir.IntType(LANES), -1))
    return builder.not_(every)


def _rows_codegen(context, builder, signature, args):
    src, dst = (context.make_array(signature.args[k])(context, builder, args[k]).data for k in (0, 1))
    return lanes_loop(builder, args[2], lambda b, i, outside: _lanes(b, src, dst, i, outside))


@intrinsic
def _exp_lanes(typingctx, src, dst, n):
    """``dst[:m] = e**src[:m]`` (binary64 value rounded to binary32) for ``m = n - n % 8``; whether one of
    them lies in the guard band. 1-D contiguous float32 arrays of at least ``n`` elements."""
    if not VECTOR_EXP:       # LLVM would stop the process on the AVX-512 intrinsics
        raise TypingError("kernel.exp_vector needs a compile target with AVX-512F (VECTOR_EXP is False)")
    if not all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C" and a.dtype == types.float32
               for a in (src, dst)) or not isinstance(n, types.Integer):
        return None
    return types.boolean(src, dst, types.int64), _rows_codegen


@njit(cache=True, error_model="numpy", inline="always")
def exp_rows(src, dst, n):
    """The hot tier's Exp loop: ``dst[j]`` = the fast binary32 e**src[j] for ``j < n``, ``src`` already
    clamped from above (``min(t, T_HI)``: the hot tier's ``{v}c``); whether an element lies in the guard
    band (its block is then run on the machine). The last ``n % 8`` elements by :func:`.exp.exp_fast`.
    Elements below -87 are not flagged here: the hot tier flags them from its argument loop."""
    # the lanes read and write unchecked: never past either row (a clamp, not a raise, which would leave a
    # prange loop that inlines this with a second exit and so serial)
    n = max(min(n, src.shape[0], dst.shape[0]), 0)
    return _exp_lanes(src, dst, n) | exp_tail(src, dst, n)


@njit(cache=True, error_model="numpy", inline="always")
def exp_tail(src, dst, n):
    """:func:`exp_rows`' last ``n % 8`` elements, by :func:`.exp.exp_fast`; whether one lies in its guard band."""
    key = kexp.NO_KEY
    for i in range(n - n % LANES, n):
        e, k, _sub = kexp.exp_fast(src[i])
        key = min(key, k)
        dst[i] = np.float32(e)
    return key <= kexp.GUARD_LIM
