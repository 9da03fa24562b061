"""GeluGradV2's Atlas A2 kernel (ops-nn ``experimental/activation/gelu_grad_v2``): struct, host tiling,
UB plan and programs. Registered with the 950 kernel by :mod:`.gelu_grad_v2`.

docs/model.md ("GeluBackwardV2", A2) and docs/activation_tiling.md ("Atlas A2", GeluGradV2) cite the
lines. ``GeluGradV2TilingData``: SwishGrad's eight fields and ``bufferOpen``, nine uint64 (72 bytes);
SwishGrad's big/small split on **256-byte** blocks; the UB divisor by dtype, approximate and single or
double buffering, where 16-bit tanh decides single buffering with the 16-bit none divisor (11) and then
budgets 14 (an upstream quirk, reproduced); key 0 none, 1 tanh.

- none: its own erf: the sign bit by ``ShiftRight`` and an int32 -> float ``Cast``, ``Mins(|x|, 30)``, a
  rational polynomial times ``exp(-x^2 / 2)``. NaN reaches the result only because Mins propagates it;
  x = +inf gives dy, -inf -0 * dy (the clamp).
- tanh: the A2 GeluGrad's formula, then a NaN guard through half precision (``Compare`` EQ, a half
  ``Select``, ``Cast`` half -> int8 -> half, ``Compare`` GT) that puts 0 where the product is NaN.
- 16-bit: computed on widened copies, narrowed with CAST_RINT (float16's CAST_NONE rounds as RINT).
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import DTypeInfo, dtype_info
from ...platform import ARCH_A2, Platform
from ...program import Program, Tensor, compiled
from ...program.form import V
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import a2_walk_fields
from ..registry import OpTiling, WalkCheck

__all__ = ["NAME", "RECORD_DTYPE", "BLOCK", "DIVISORS", "NUM", "DEN", "TANH", "a2_host_tiling", "buffer_plan",
           "host_tiling", "programs", "run", "walk_check"]

NAME = "gelu_grad_v2"
#: ``GeluGradV2TilingData`` (``gelu_grad_v2_tiling_data.h:19-28``).
RECORD_DTYPE = np.dtype([(name, "<u8") for name in spec_a2.FIELDS] + [("bufferOpen", "<u8")])
assert RECORD_DTYPE.itemsize == 72
#: ``BLOCK_SIZE`` of the host (256 bytes).
BLOCK = 256
#: ``UB_NUM_*``: (single, double) by (float32, tanh) (``gelu_grad_v2_tiling.cpp:30-41``).
DIVISORS = {(True, False): (5, 8), (True, True): (7, 10), (False, False): (11, 14), (False, True): (14, 18)}

#: ``static_cast<float>`` of double literals (``gelu_grad_v2.h:130-166``): numerator n0..n5, denominator d0..d3.
NUM = ("-0.7978849236182753", "-6.223065142195392", "-20.451359645895863", "-29.633095101286557",
       "-4.474629239730099", "30.9817411426")
DEN = ("7.79950327625", "26.6304065815", "44.965039885", "30.9817411527")
#: The tanh formula's c0..c3 (``gelu_grad_v2.h:364-395``), the A2 GeluGrad's bits.
TANH = ("-0.0713548162726002527220", "-1.595769121605730711759", "0.2140644488178007", "1.595769121605730711759")


def a2_host_tiling(numel: int, itemsize: int, tanh: bool, platform: Platform):
    """``(block_dim, fields, buffer_open)`` (:108-151, :207-211)."""
    f32 = itemsize == 4
    single, double = DIVISORS[(f32, tanh)]
    test = single if (f32 or not tanh) else DIVISORS[(False, False)][0]   # the 16-bit tanh quirk
    aligned = -(-numel * itemsize // BLOCK) * BLOCK
    buffer_open = 0 if aligned < platform.core_num * ((platform.ub_size // BLOCK) * BLOCK // test) else 1
    tile_block_num = (platform.ub_size // BLOCK) // (double if buffer_open else single)
    block_dim, fields = spec_a2.split_blocks(numel, itemsize, max(tile_block_num, 1), platform.core_num, BLOCK)
    return (block_dim, fields, buffer_open) if tile_block_num > 0 else (0, None, buffer_open)


def buffer_plan(itemsize: int, tanh: bool, buffer_open: int) -> tuple:
    """``gelu_grad_v2.h:90-99, 316-330``: dy, x, z queues of one or two slots, two float32 tiles (16-bit
    none: two more); tanh a byte-per-element mask and one float32 tile (16-bit: three)."""
    plan = ((3 * (2 if buffer_open else 1), itemsize), (2, 4))
    if not tanh:
        return plan + (((2, 4),) if itemsize != 4 else ())
    return plan + ((1, 1), (1 if itemsize == 4 else 3, 4))


def host_tiling(numel: int, info: DTypeInfo, approximate: str, platform: Platform) -> OpTiling:
    block_dim, f, buffer_open = a2_host_tiling(numel, info.itemsize, approximate == "tanh", platform)
    if f is None:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 GeluGradV2 kernel "
                         f"needs {DIVISORS[(info.itemsize == 4, approximate == 'tanh')][0] * BLOCK} bytes")
    data = checked_record(RECORD_DTYPE, {**f._asdict(), "bufferOpen": buffer_open})
    return OpTiling(NAME, ARCH_A2, data, int(block_dim), int(approximate == "tanh"), platform.lib_workspace_size)

# ---------------------------------------------------------------- the programs (inputs dy, x)


def _none() -> tuple:                                                            # gelu_grad_v2.h:130-166
    body = [V.ShiftRight("si", "x", 31.0), V.Cast("s", "si", "CAST_NONE"), V.Adds("s", "s", -0.5),
            V.Abs("a", "x"), V.Mins("a", "a", 30.0), V.Muls("z", "a", NUM[0])]
    for k in (1, 2, 3, 4):
        body += [V.Adds("z", "z", NUM[k]), V.Mul("z", "z", "a")]
    body += [V.Adds("z", "z", NUM[5]), V.Adds("d", "a", DEN[0])]
    for k in (1, 2):
        body += [V.Mul("d", "d", "a"), V.Adds("d", "d", DEN[k])]
    body += [V.Mul("d", "d", "a"), V.Adds("d", "d", DEN[3]),
             V.Div("z", "z", "d"), V.Mul("a", "a", "a"), V.Muls("a", "a", -0.5), V.Exp("a", "a"), V.Mul("z", "z", "a"),
             V.Mul("z", "s", "z"), V.Adds("d", "s", -0.5), V.Sub("z", "z", "d"), V.Mul("y", "z", "dy")]
    return tuple(body)


def _tanh() -> tuple:                                                            # gelu_grad_v2.h:364-395
    c0, c1, c2, c3 = TANH
    return (V.Mul("t0", "x", "x"), V.Muls("z", "t0", c0), V.Adds("z", "z", c1), V.Mul("z", "z", "x"), V.Exp("z", "z"),
            V.Adds("t1", "z", 1.0), V.Duplicate("d", 1.0), V.Div("t1", "d", "t1"), V.Mul("z", "z", "t1"),
            V.Muls("t0", "t0", c2), V.Adds("t0", "t0", c3), V.Mul("t0", "t0", "x"), V.Mul("z", "z", "t0"),
            V.Mul("z", "z", "t1"),
            V.Compare("m", "z", "z", "EQ"),                                      # the NaN guard, in half precision
            V.Duplicate("h", 1.0), V.Select("h", "h", 0.0, "m"), V.Cast("i8", "h", "CAST_NONE"),
            V.Cast("h", "i8", "CAST_NONE"), V.Duplicate("h0", 0.0), V.Compare("m", "h", "h0", "GT"),
            V.Select("z", "z", 0.0, "m"), V.Add("z", "z", "t1"), V.Mul("y", "z", "dy"))


_TYPED = {"si": "int32", "i8": "int8", "h": "float16", "h0": "float16", "m": "uint8"}


def programs(dtype: str, variant: str = "none") -> Program:
    """The A2 Compute for ``dtype`` and approximate ``variant`` (``"main"`` means none)."""
    variant = "none" if variant == "main" else variant
    if variant not in ("none", "tanh"):
        raise ValueError(f"no GeluGradV2 variant {variant!r}")
    body, name = (_none(), "GeluGradV2A2Erf") if variant == "none" else (_tanh(), "GeluGradV2A2Tanh")
    written = sorted({s.dst for s in body} - {"y"})
    local = tuple(Tensor(n, _TYPED.get(n, "float32")) for n in written)
    if dtype == "float32":
        ren = {"y": "out"}
        return Program(name, (Tensor("dy"), Tensor("x")), Tensor("out"), local,
                       tuple(type(s)(s.op, tuple(ren.get(a, a) if isinstance(a, str) else a for a in s.args))
                             for s in body))
    ren = {"x": "xf", "dy": "dyf"}
    return Program(name, (Tensor("dy", dtype), Tensor("x", dtype)), Tensor("out", dtype),
                   local + (Tensor("dyf"), Tensor("xf"), Tensor("y")),
                   (V.Cast("xf", "x", "CAST_NONE"),)
                   + tuple(type(s)(s.op, tuple(ren.get(a, a) if isinstance(a, str) else a for a in s.args))
                           for s in body[:-1])
                   + (V.Cast("dyf", "dy", "CAST_NONE"), V.Mul("y", "z", "dyf"), V.Cast("out", "y", "CAST_RINT")))

# ---------------------------------------------------------------- check and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    key = tiling.tiling_key
    own = () if key in (0, 1) else (finding("TILING_KEY_MISMATCH", f"tiling key {key}; GeluGradV2's are 0 "
                                                                   f"(none) and 1 (tanh)."),)
    fields = spec_a2.TilingFields(*(int(tiling[n]) for n in spec_a2.FIELDS))
    plan = buffer_plan(info.itemsize, key == 1, int(tiling["bufferOpen"]))
    return WalkCheck(fields, plan, fields.tileDataNum, own)


def run(dy, x, out, tiling: OpTiling, info: DTypeInfo, saturation: bool = False) -> None:
    """Flat C-contiguous ``dy``, ``x``, ``out`` of one dtype and size, on the generic walk."""
    variant = "tanh" if tiling.tiling_key == 1 else "none"
    params = compiled(NAME, ARCH_A2, info.name, variant, saturation).params()
    plan = kernel_pkg.plan_launch(a2_walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    bits = info.bits_dtype
    kernel_pkg.run_walk(params, (dy.reshape(-1).view(bits), x.reshape(-1).view(bits)), out.reshape(-1).view(bits),
                        plan)
