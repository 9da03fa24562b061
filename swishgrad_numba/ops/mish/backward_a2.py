"""MishGrad on the Atlas A2 (``experimental/activation/mish_grad``), the kernel behind aclnnMishBackward there.

docs/model.md, "MishBackward", "The A2 kernel", cites the sources.

- Kernel (``op_kernel/mish_grad.h``): aclnnMishBackward passes no ``tanhx`` off the 950
  (``activation/mish_grad/op_api/mish_grad.cpp:35``: ``OP_INPUT(gradOutput, self)``; the experimental op_api's
  ``op_host/op_api/mish_grad.cpp:35`` passes ``nullptr``), so the host sets ``haveTanhx`` 0
  (``op_host/mish_grad_tiling.cpp:83``) and ``Compute`` takes its
  ``haveTanhx == 0`` branch: float32 :239-285, 16-bit :156-205 (the same instructions on widened copies,
  CAST_NONE in, CAST_RINT out). Both branch forms of ``t = tanh(softplus(x))`` and of ``t + x * s(x) *
  (1 - t * t)`` (``s`` the logistic function: ``1 / (e^-x + 1)`` for x > 0, ``e^x / (e^x + 1)`` for
  x <= 0) are computed for every element; each is kept by a Select on its mask (x > 0, x <= 0) with 0
  elsewhere, and the two are added. Then the NaN guard: the two masks cast to half, added, cast back
  (:mod:`swishgrad_numba.program.semantics`, "mask arithmetic"), and ``Select(res, mask, res, x)``: where
  x is NaN (neither mask) the result is x. Last ``res * grad``.
- Host (``op_host/mish_grad_tiling.cpp``): SwishGrad's split (:func:`spec.a2.split_blocks`) on blocks of
  **256** bytes (``BLOCK_SIZE_256`` without tanhx, :94), ``tileBlockNum = (ubSize / 256) / ubDataNumber``
  (:105) with ``ubDataNumber`` 12 (float32) / 22 (16-bit) (:32, :34), nothing rounded; one core where a tile
  holds every element, else ``min(coreNum, blocks)`` (:168-173); the big/small split (:115-142);
  ``MishGradTilingData`` (``op_kernel/mish_grad_tiling_data.h:19-29``): the eight fields then ``haveTanhx``,
  nine uint64; key ``GET_TPL_TILING_KEY(ELEMENTWISE_TPL_SCH_MODE_0)`` = 0 (:194); workspace the library's
  (``usrSize`` 0, :67-69). Past a tensor's 32-byte padding the kernel moves whole 256-byte blocks: the
  validator reports that of upstream's own record (OVERRUN_BEYOND_PADDING) where the two paddings differ.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_A2, Platform
from ...program import Program, Tensor, compiled
from ...program.form import V
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..hardswish.split import read_only
from ..op_tiling import kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["RECORD_DTYPE", "BLOCK_BYTES", "UB_DATA_NUMBER", "host_tiling", "buffer_plan", "programs", "walk_check",
           "run", "KERNEL"]

NAME = "mish_grad"
#: ``MishGradTilingData``: SwishGrad's eight fields, then ``haveTanhx``; nine uint64.
RECORD_DTYPE = np.dtype([(n, "<u8") for n in spec_a2.FIELDS + ("haveTanhx",)])
#: ``BLOCK_SIZE_256``: the host's block without tanhx (the masks' Compare wants 256-byte counts).
BLOCK_BYTES = 256
#: ``UB_NUM_FLOAT_NOT`` / ``UB_NUM_OTHER_NOT``, by itemsize.
UB_DATA_NUMBER = {4: 12, 2: 22}


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """``MishGradTilingFunc`` of ``numel`` (>= 1) elements without tanhx."""
    b = info.itemsize
    tile_block_num = (platform.ub_size // BLOCK_BYTES) // UB_DATA_NUMBER[b]
    if tile_block_num == 0:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 MishGrad {info.name} "
                         f"host needs at least {UB_DATA_NUMBER[b] * BLOCK_BYTES} bytes (tileBlockNum is 0)")
    cores, f = spec_a2.split_blocks(numel, b, tile_block_num, platform.core_num, BLOCK_BYTES)
    data = checked_record(RECORD_DTYPE, dict(f._asdict(), haveTanhx=0))
    return OpTiling(NAME, ARCH_A2, data, int(cores), 0, platform.lib_workspace_size)


def buffer_plan(itemsize: int) -> tuple:
    """``Init`` without tanhx (:95-111): grad, x and out queues of two slots; float32 ``tmpQueue0..3`` (and
    ``tmpQueue4/5`` for 16-bit); two uint8 masks and two half masks of an element each."""
    return ((6, itemsize), (4 + 2 * (itemsize != 4), 4), (2, 1), (2, 2))

# ---------------------------------------------------------------- the program (mish_grad.h:156-205, :239-285)


_BODY = (
    V.CompareScalar("m1", "xf", 0.0, "GT"),
    V.Muls("t1", "xf", -1.0), V.Muls("t2", "xf", -2.0), V.Exp("t1", "t1"), V.Exp("t2", "t2"),
    V.Muls("t0", "t1", 2.0), V.Muls("t2", "t2", 2.0), V.Adds("t5", "t0", 1.0),
    V.Add("t0", "t0", "t2"), V.Adds("t0", "t0", 1.0),          # (2e^-x + 2e^-2x) + 1: the forward adds 1 first
    V.Div("t5", "t5", "t0"),                                    # t for x > 0
    V.Adds("t1", "t1", 1.0), V.Div("t1", "xf", "t1"),           # x / (e^-x + 1)
    V.Mul("t0", "t5", "t5"), V.Duplicate("t3", 1.0), V.Sub("t0", "t3", "t0"), V.Mul("t0", "t1", "t0"),
    V.Add("t0", "t5", "t0"),
    V.Select("t5", "t0", 0.0, "m1"),                            # x > 0 ? res : 0
    V.CompareScalar("m2", "xf", 0.0, "LE"),
    V.Muls("t0", "xf", 2.0), V.Exp("t1", "xf"), V.Muls("t2", "t1", 2.0), V.Exp("t0", "t0"),
    V.Add("t0", "t2", "t0"), V.Adds("t2", "t0", 2.0), V.Div("t2", "t0", "t2"),   # t for x <= 0
    V.Mul("t0", "xf", "t1"), V.Adds("t1", "t1", 1.0), V.Div("t0", "t0", "t1"),   # x e^x / (e^x + 1)
    V.Mul("t1", "t2", "t2"), V.Sub("t1", "t3", "t1"), V.Mul("t1", "t0", "t1"), V.Add("t1", "t2", "t1"),
    V.Select("t1", "t1", 0.0, "m2"),                            # x <= 0 ? res : 0
    V.Add("t5", "t5", "t1"),
    # the NaN guard: masks cast to half, added, cast back; x where neither holds (NaN x)
    V.Cast("h1", "m1", "CAST_NONE"), V.Cast("h2", "m2", "CAST_NONE"), V.Add("h2", "h1", "h2"),
    V.Cast("m2", "h2", "CAST_RINT"),
    V.Select("t5", "t5", "xf", "m2"),
)
_TYPED = {"m1": "uint8", "m2": "uint8", "h1": "float16", "h2": "float16"}


def _renamed(step, names: dict):
    return type(step)(step.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in step.args))


def programs(dtype: str, variant: str = "main") -> Program:
    """The Compute for ``dtype`` (float32: the inputs read as they are, ``outLocal`` the result)."""
    if variant != "main":
        raise ValueError(f"no A2 MishGrad variant {variant!r}")
    names = sorted({s.dst for s in _BODY})
    if dtype == "float32":
        ren = {"xf": "x", "t5": "out"}
        body = tuple(_renamed(s, ren) for s in _BODY) + (V.Mul("out", "out", "grad"),)
        local = tuple(Tensor(n, _TYPED.get(n, "float32")) for n in names if n != "t5")
        return Program("MishGradA2", (Tensor("grad"), Tensor("x")), Tensor("out"), local, body)
    body = ((V.Cast("xf", "x", "CAST_NONE"),) + _BODY
            + (V.Cast("gf", "grad", "CAST_NONE"), V.Mul("t5", "t5", "gf"), V.Cast("out", "t5", "CAST_RINT")))
    local = tuple(Tensor(n, _TYPED.get(n, "float32")) for n in names) + (Tensor("xf"), Tensor("gf"))
    return Program("MishGradA2", (Tensor("grad", dtype), Tensor("x", dtype)), Tensor("out", dtype), local, body)

# ---------------------------------------------------------------- a record, checked and run


@kept_per_tiling
def walk_fields(tiling: OpTiling):
    """The record's walk fields (kept on a cached tiling: read once, not per call)."""
    return spec_a2.TilingFields(*(int(tiling[n]) for n in spec_a2.FIELDS))


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    own = () if tiling.tiling_key == 0 else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the A2 MishGrad host gives 0."),)
    if int(tiling["haveTanhx"]) != 0:
        own += (finding("FIELD_RANGE", f"haveTanhx={int(tiling['haveTanhx'])}: aclnnMishBackward passes no tanhx "
                                       f"input, so the host writes 0 (the kernel would read a tensor not there)."),)
    fields = walk_fields(tiling)
    return WalkCheck(fields, buffer_plan(info.itemsize), fields.tileDataNum, own)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The kernel with a checked record over flat contiguous ``grad``, ``x`` and ``out`` of one dtype
    (``axpy_rounding`` taken for the operator's 950 kernel: this one has no Axpy)."""
    if grad is None:
        raise ValueError(f"grad must be an array for {NAME!r} (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    params = compiled(NAME, ARCH_A2, info.name, "main", saturation).params()
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel_pkg.run_walk(params, (read_only(raw(grad)), read_only(raw(x))), raw(out), plan)


def _instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


KERNEL = Kernel(ARCH_A2, "experimental/activation/mish_grad", "MishGradTilingData", RECORD_DTYPE, "CAST_RINT",
                walk_check, run, _instructions, programs=programs)
