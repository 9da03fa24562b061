"""An interpreter of programs (swishgrad_numba.program.form), for the tests: the engine's oracle.

Plain NumPy, one instruction at a time over whole arrays, no Numba, no
tables, no stages: each instruction as docs/model.md section 2 states it.
float32 arithmetic is NumPy's (IEEE binary32, rounded to nearest even);
Exp is the correctly rounded exp of tests/reference.py, Ln the correctly rounded ln of
tests/reference_activations_tier2.py; MulDstAdd the exact
fused multiply-add rounded once; Axpy ``src * scalar + dst`` the same
(``axpy_rounding="fused"``) or a float32 product then a float32 sum
(``"unfused"``); FusedMulDstAdd is MulDstAdd; And / Or act on the 32 bits and never saturate; Casts by tests/reference_family.narrow (float32 -> float32:
rounded to a whole number in float64, :func:`_whole`). Compare and
CompareScalar give a uint8 mask of 0/1 by NumPy's (IEEE's) comparisons, which
never saturates; Select picks ``src0`` where the mask is 1, else ``src1`` (a
tensor or a scalar).
Saturation mode: every float32 result that is +-inf becomes +-FLT_MAX and
a NaN result +0; a narrowing Cast saturates to the 16-bit dtype's largest
finite (NaN: +0); the exact widening Cast changes nothing.
"""
from __future__ import annotations

import numpy as np

from cast_reference import MODES as DIRECTED, directed_bits
from int_cast_reference import cast as int_cast

from swishgrad_numba.program.int_casts import ROUNDED_INT_CASTS
from reference import BF16, fma_f32_array, ref_exp_f32
from reference_family import narrow
from reference_activations_tier2 import ref_ln_f32

F32 = np.float32
_DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16,
           "uint8": np.dtype(np.uint8), "int32": np.dtype(np.int32), "int8": np.dtype(np.int8),
           "int16": np.dtype(np.int16)}
_FMAX = F32(np.finfo(np.float32).max)
_MAX16 = {"float16": 65504.0, "bfloat16": (2 - 2.0 ** -7) * 2.0 ** 127}   # the largest finite values


def _saturate(v: np.ndarray) -> np.ndarray:
    v = v.copy()
    v[np.isnan(v)] = F32(0.0)
    v[v == np.inf] = _FMAX
    v[v == -np.inf] = -_FMAX
    return v


def _scalar(k, attrs) -> np.float32:
    if hasattr(k, "a"):                                   # Product: float32 times float32
        with np.errstate(all="ignore"):
            return _scalar(k.a, attrs) * _scalar(k.b, attrs)
    if hasattr(k, "text") or hasattr(k, "value"):        # Const: a double value, rounded to float once
        with np.errstate(over="ignore"):
            return F32(k.value)
    return F32(attrs[k.name])                             # Attr


_COMPARE = {"LT": np.less, "GT": np.greater, "EQ": np.equal, "LE": np.less_equal, "GE": np.greater_equal,
            "NE": np.not_equal}


def _narrow16(src, dtype: str, ties_away: bool, saturation: bool):
    """float32 -> 16-bit, to nearest (ties away or even); in saturation mode to the largest finite."""
    if not saturation:
        return narrow(src, _DTYPES[dtype], ties_away=ties_away)
    out = narrow(_saturate(src), _DTYPES[dtype], ties_away=ties_away)
    wide = out.astype(np.float32)
    out[wide == np.inf] = _MAX16[dtype]
    out[wide == -np.inf] = -_MAX16[dtype]
    return out


def _whole(x, mode: str) -> np.ndarray:
    """float32 -> a whole float32 (Cast<float, float>, issue 43): rounded in float64 (exact for a float32),
    NumPy's rint / floor / ceil / trunc keep the sign (-0.3 -> -0.0), inf and NaN; ROUND: half away from zero."""
    d = x.astype(np.float64)
    if mode == "CAST_ROUND":           # toward zero, then one step away where the dropped part is >= 1/2
        r = np.trunc(d)
        r = np.where(np.abs(d - r) >= 0.5, r + np.sign(d), r)
    else:
        r = {"CAST_RINT": np.rint, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil, "CAST_TRUNC": np.trunc}[mode](d)
    return r.astype(np.float32)


def _step(op, args, env, attrs, saturation, tensors, axpy_rounding, cast_overflow="ieee", cast_int_overflow="saturate"):
    def t(name):
        return env[name]
    with np.errstate(all="ignore"):
        if op in ("Compare", "CompareScalar"):
            other = t(args[2]) if op == "Compare" else _scalar(args[2], attrs)
            return _COMPARE[args[3]](t(args[1]), other).astype(np.uint8)
        if op == "ShiftRight":                            # integer: never saturates
            return (t(args[1]).view(np.uint32) >> np.uint32(_scalar(args[2], attrs))).view(np.int32)
        if op == "Cast" and (tensors[args[0]].dtype, tensors[args[1]].dtype) in ROUNDED_INT_CASTS:   # issue 43
            return int_cast(t(args[1]), tensors[args[0]].dtype, args[2], cast_int_overflow == "wrap")
        if op == "Cast" and tensors[args[0]].dtype == tensors[args[1]].dtype == "float32":   # issue 43
            r = _whole(t(args[1]), args[2])
            return _saturate(r) if saturation else r
        if op == "Cast" and "int32" in (tensors[args[0]].dtype, tensors[args[1]].dtype):
            return t(args[1]).astype(np.float32)          # int32 -> float32: NumPy rounds to nearest even
        if op == "Cast" and tensors[args[0]].dtype == "int8":   # float16 -> int8: rint, clamped, NaN 0
            f = t(args[1]).astype(np.float64)
            return np.where(np.isnan(f), 0, np.clip(np.rint(np.nan_to_num(f)), -128, 127)).astype(np.int8)
        if op == "Cast" and tensors[args[1]].dtype == "uint8":      # a mask's number as half: exact
            return t(args[1]).astype(np.float16)
        if op == "Cast" and tensors[args[0]].dtype == "uint8":      # half -> mask: rint, clamped, NaN 0
            f = t(args[1]).astype(np.float64)
            return np.where(np.isnan(f), 0, np.clip(np.rint(np.nan_to_num(f)), 0, 255)).astype(np.uint8)
        if op == "Cast" and tensors[args[1]].dtype == "int8":
            return t(args[1]).astype(np.float16)
        if op == "Cast" and args[2] in DIRECTED:      # issue 43: the directed narrowings
            dst = tensors[args[0]].dtype
            return directed_bits(t(args[1]), dst, args[2], saturation, cast_overflow).view(_DTYPES[dst])
        if op == "Cast":
            if args[2] == "CAST_NONE":
                return t(args[1]).astype(np.float32)
            return _narrow16(t(args[1]), tensors[args[0]].dtype, args[2] == "CAST_ROUND", saturation)
        if op == "Muls":
            r = t(args[1]) * _scalar(args[2], attrs)
        elif op == "Adds":
            r = t(args[1]) + _scalar(args[2], attrs)
        elif op in ("Add", "Sub", "Mul", "Div"):
            a, b = t(args[1]), t(args[2])
            r = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op](a, b)
        elif op in ("Max", "Min", "Maxs", "Mins"):
            # NaN propagating, the first of equal operands (-0 and +0 too: NumPy's SIMD maximum/minimum do
            # not keep the first of two zeros, so the rule is written out)
            a = t(args[1])
            other = t(args[2]) if op in ("Max", "Min") else _scalar(args[2], attrs)
            with np.errstate(invalid="ignore"):
                first = (a != a) | ((a >= other) if op.startswith("Max") else (a <= other))
            r = np.where(first, a, other).astype(np.float32)
        elif op == "Exp":
            r = ref_exp_f32(t(args[1]))
        elif op == "Ln":
            r = ref_ln_f32(t(args[1]))
        elif op == "Reciprocal":
            r = F32(1.0) / t(args[1])
        elif op == "Neg":
            r = t(args[1]) * F32(-1.0)
        elif op == "Abs":
            r = (t(args[1]).view(np.uint32) & np.uint32(0x7FFFFFFF)).view(np.float32)
        elif op == "Duplicate":
            r = np.full(len(next(iter(env.values()))), _scalar(args[1], attrs), dtype=np.float32)
        elif op == "Axpy":
            d, src, k = t(args[0]), t(args[1]), _scalar(args[2], attrs)
            if axpy_rounding == "fused":
                r = fma_f32_array(src, np.full_like(src, k), d)
            elif axpy_rounding == "unfused":
                r = (src * k) + d
            else:
                raise ValueError(axpy_rounding)
        elif op == "Select":
            other = t(args[2]).astype(np.float32) if isinstance(args[2], str) else _scalar(args[2], attrs)
            r = np.where(t(args[3]) != 0, t(args[1]).astype(np.float32), other)   # a mask element not 0
        elif op in ("And", "Or"):                         # bitwise on the 32 bits: never saturates
            bits = (np.bitwise_and if op == "And" else np.bitwise_or)(t(args[1]).view(np.uint32),
                                                                     t(args[2]).view(np.uint32))
            return bits.view(np.float32)
        elif op in ("MulDstAdd", "FusedMulDstAdd"):
            d, s0, s1 = t(args[0]), t(args[1]), t(args[2])
            r = fma_f32_array(d, s0, s1)
        elif op == "Relu":                                # issue 41: x > 0 or NaN as is, else +0
            a = t(args[1]).astype(np.float32)
            with np.errstate(invalid="ignore"):
                r = np.where((a != a) | (a > 0), a, F32(0.0))
        else:
            raise NotImplementedError(op)
    r = np.asarray(r, dtype=np.float32)
    r = _saturate(r) if saturation else r
    dst = tensors[args[0]].dtype
    # a 16-bit tensor's Duplicate or Select (program.isa.SIXTEEN_BIT_OPS): narrowed as CAST_RINT
    return _narrow16(r, dst, False, saturation) if dst in ("float16", "bfloat16") else r


def interpret(program, inputs: dict, attrs: dict, saturation: bool = False,
              axpy_rounding: str = "fused", cast_overflow: str = "ieee", cast_int_overflow: str = "saturate") -> np.ndarray:
    """The program's output for ``inputs`` (name -> array of the input's dtype); ``cast_overflow``: a directed
    Cast's overflow rule (cast_reference.directed_bits); ``cast_int_overflow``: a float -> integer Cast's
    (int_cast_reference.to_int)."""
    env = {t.name: np.asarray(inputs[t.name], dtype=_DTYPES[t.dtype]) for t in program.inputs}
    for step in program.body:
        if hasattr(step, "program"):    # Call: the subroutine on its own tensors
            sub = step.program
            env[step.dst] = interpret(sub, {f.name: env[a] for f, a in zip(sub.inputs, step.srcs)},
                                      {a: attrs[a] for a in sub.attrs}, saturation, axpy_rounding, cast_overflow,
                                      cast_int_overflow)
        else:
            env[step.args[0]] = _step(step.op, step.args, env, attrs, saturation, program.tensors, axpy_rounding,
                                      cast_overflow, cast_int_overflow)
    return env[program.output.name]
