"""Mish (aclnnMish, aclnnInplaceMish): an Atlas A2 and an Ascend 950 kernel. docs/model.md, "Mish", cites
the sources.

Both compute ``x * tanh(softplus(x))`` in float32 by two branch forms, one per sign of x:
``(2e^-x + 1) / (2e^-x + 1 + 2e^-2x)`` (for x > 0) and ``(e^2x + 2e^x) / (e^2x + 2e^x + 2)`` (for x < 0),
both evaluated for every element, one picked by a Select, then multiplied by x.

- Atlas A2 (``experimental/activation/mish/op_kernel/mish.h``): ``Compute`` runs ``ComputeHighPerf``
  (float32) or ``ComputeHighPerf16`` (16-bit: widened with CAST_NONE, narrowed with CAST_RINT) unless
  ``SUPER_PERFORMANCE`` is defined, which no build file sets; ``2e^x + e^2x`` as ``Muls`` then ``Add``; the
  Select takes the first form where ``x > 0``. Host (``op_host/mish_tiling.cpp``): the Gelu A2 host's
  template (``ubDataNumber`` 12 / 14, one core per 1,024 elements, SwishGrad's eight fields as uint64), key 0.
- Ascend 950 (``activation/mish/op_kernel/arch35/mish_dag.h``): a MicroAPI loop in one DAG node on
  ``ElementwiseSch16B``; ``e^2x + 2e^x`` as ``Axpy`` (its rounding :attr:`Platform.axpy_rounding`); the
  Select takes the second form where ``x < 0``; 16-bit narrowed with CAST_RINT (``castTrait1``). Host
  (``op_host/arch35/mish_tiling_arch35.cpp``): opbase ElewiseTiling of the Gelu DAG's shape, key
  ``GET_TPL_TILING_KEY(1, dType)`` with Gelu's dType values.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import compiled
from ...program.elementwise import elementwise
from ...program.form import V
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from .. import gelu as gelu_template
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "A2_UB_DATA_NUMBER", "ARCH35_TANH_SOFTPLUS",
           "host_tiling", "a2_buffer_plan", "tiling_key", "programs_a2", "programs_arch35", "walk_check", "run",
           "KERNELS"]

NAME = "mish"
#: ``MishTilingData`` (A2, ``mish_tiling_data.h:17-26``): SwishGrad's eight fields as uint64 (Gelu's layout).
A2_RECORD_DTYPE = gelu_template.A2_RECORD_DTYPE
#: The 950's ``EleBaseTilingData16B`` (``mish_apt.cpp:27``).
ARCH35_RECORD_DTYPE = gelu_template.ARCH35_RECORD_DTYPE
#: ``UB_DATA_NUM_FLOAT`` / ``UB_DATA_NUM_OTHER`` (``mish_tiling.cpp``): Gelu's 12 / 14.
A2_UB_DATA_NUMBER = gelu_template.A2_UB_DATA_NUMBER
assert A2_UB_DATA_NUMBER == {4: 12, 2: 14}


def tiling_key(architecture: str, dtype: str) -> int:
    """A2 ``GET_TPL_TILING_KEY(0)``: 0; 950 ``GET_TPL_TILING_KEY(1, dType)`` (``mish_struct.h``: TPL_FP16 1,
    TPL_BF16 2, TPL_FP32 3, as Gelu's)."""
    return gelu_template.tiling_key(architecture, dtype)


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements for the kernel ``platform``'s SoC runs (no attributes)."""
    b = info.itemsize
    if platform.architecture == ARCH_950:
        accepted, block_dim, f = gelu_template.arch35_host_tiling(numel, b, platform)
        if not accepted:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 Mish kernel needs "
                             f"{gelu_template.arch35_buffer_num(b)} buffers of at least "
                             f"{spec_arch35.UB_ALIGN_BYTES} bytes")
        data = checked_record(ARCH35_RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer})
        return OpTiling(NAME, ARCH_950, data, int(block_dim), tiling_key(ARCH_950, info.name),
                        spec_arch35.WORKSPACE_SIZE)
    accepted, block_dim, f = gelu_template.a2_host_tiling(numel, b, platform)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 Mish {info.name} kernel "
                         f"needs at least {A2_UB_DATA_NUMBER[b] * platform.block_size} bytes (one block per tile unit)")
    data = checked_record(A2_RECORD_DTYPE, f._asdict())
    return OpTiling(NAME, ARCH_A2, data, int(block_dim), 0, platform.lib_workspace_size)


def a2_buffer_plan(itemsize: int) -> tuple:
    """``mish.h:82-89``: x and y queues of two slots, four float32 tiles (``tmpBuffer1/2``, ``QueueTmpX/Y``)
    and a uint8 mask of a byte per element (``tmpBuffer3``)."""
    return ((2, itemsize), (2, itemsize), (4, 4), (1, 1))

# ---------------------------------------------------------------- the programs

#: A2 ``ComputeHighPerf16`` (``mish.h:199-240``; ``ComputeHighPerf`` :255-293 is the same on float32).
_A2_BODY = (
    V.CompareScalar("gt", "xf", 0.0, "GT"),
    V.Muls("t1", "xf", -1.0), V.Exp("t1", "t1"), V.Muls("t1", "t1", 2.0), V.Adds("t1", "t1", 1.0),
    V.Muls("t2", "xf", -2.0), V.Exp("t2", "t2"), V.Muls("t2", "t2", 2.0), V.Add("t2", "t1", "t2"),
    V.Div("t1", "t1", "t2"),                                           # res for x > 0
    V.Muls("t2", "xf", 2.0), V.Exp("t2", "t2"), V.Exp("y", "xf"), V.Muls("y", "y", 2.0), V.Add("y", "y", "t2"),
    V.Adds("t2", "y", 2.0), V.Div("y", "y", "t2"),                     # res for x <= 0
    V.Select("y", "t1", "y", "gt"),
    V.Mul("y", "y", "xf"),
)
#: 950 ``MishCustom`` (``mish_dag.h:81-99``) up to its Select: t = tanh(softplus(x)) in "o" (MishGrad's too).
ARCH35_TANH_SOFTPLUS = (
    V.Muls("n", "xf", -1.0), V.Muls("d", "xf", -2.0), V.Exp("n", "n"), V.Exp("d", "d"),
    V.Muls("n", "n", 2.0), V.Adds("n", "n", 1.0), V.Muls("d", "d", 2.0), V.Add("d", "n", "d"),
    V.Div("o", "n", "d"),
    V.Muls("p", "xf", 2.0), V.Exp("p", "p"), V.Exp("q", "xf"), V.Axpy("p", "q", 2.0),
    V.Adds("q", "p", 2.0), V.Div("p", "p", "q"),
    V.CompareScalar("m", "xf", 0.0, "LT"),
    V.Select("o", "p", "o", "m"),
)
#: 950 ``MishCustom`` (``mish_dag.h:81-100``).
_ARCH35_BODY = ARCH35_TANH_SOFTPLUS + (V.Mul("o", "o", "xf"),)


def programs_a2(dtype: str, variant: str = "main"):
    if variant != "main":
        raise ValueError(f"no A2 Mish variant {variant!r}")
    return elementwise("MishA2", (("x", "xf"),), _A2_BODY, "y", dtype, "CAST_RINT", masks=("gt",))


def programs_arch35(dtype: str, variant: str = "main"):
    if variant != "main":
        raise ValueError(f"no 950 Mish variant {variant!r}")
    return elementwise("Mish950", (("x", "xf"),), _ARCH35_BODY, "o", dtype, "CAST_RINT", masks=("m",))

# ---------------------------------------------------------------- a record, checked and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """A record for the validator: its walk (Gelu's template on both kernels), the UB plan and the key."""
    expected = tiling_key(tiling.architecture, info.name)
    own = () if tiling.tiling_key == expected else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the Mish host gives {expected} for {info.name}."),)
    if tiling.architecture == ARCH_950:
        plan = ((gelu_template.arch35_buffer_num(info.itemsize), 4),)
        bad = [n for n in ("dim0", "coreNum", "ubFormer") if int(tiling[n]) < 1]
        if bad:
            return WalkCheck(None, plan, 0, own + tuple(
                finding("FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel divides by it and needs it >= 1.")
                for n in bad))
        fields = gelu_template.walk_fields(tiling)
        return WalkCheck(fields, plan, fields.ubFormer, own)
    fields = gelu_template.walk_fields(tiling)
    return WalkCheck(fields, a2_buffer_plan(info.itemsize), fields.tileDataNum, own)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None)."""
    if grad is not None:
        raise ValueError(f"grad must be None for the forward operator {NAME!r} (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(gelu_template.walk_fields(tiling), tiling.block_dim,
                                  kernel_pkg.arch_code(tiling.architecture), out.size)
    params = compiled(NAME, tiling.architecture, info.name, saturation=saturation,
                      axpy_rounding=axpy_rounding).params()
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel_pkg.run_walk(params, (raw(x),), raw(out), plan)


def _instructions(programs):
    return lambda tiling, itemsize: programs("float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture (the operator is described in :mod:`.description`).
KERNELS = {ARCH_A2: Kernel(ARCH_A2, "experimental/activation/mish", "MishTilingData", A2_RECORD_DTYPE, "CAST_RINT",
                           walk_check, run, _instructions(programs_a2), programs=programs_a2),
           ARCH_950: Kernel(ARCH_950, "activation/mish (arch35)", "EleBaseTilingData16B", ARCH35_RECORD_DTYPE,
                            "CAST_RINT", walk_check, run, _instructions(programs_arch35), programs=programs_arch35)}
