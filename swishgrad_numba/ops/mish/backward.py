"""MishGrad, the operator behind aclnnMishBackward: the Ascend 950 kernel here, the Atlas A2's in
:mod:`.backward_a2`.

docs/model.md, "MishBackward", cites the sources.

- Ascend 950 (``activation/mish_grad/op_kernel/arch35/mish_grad_dag.h``): ``MishGradDAG`` (no ``tanhx``
  input: aclnnMishBackward passes nullptr, ``MishGradWithTanhX(grad, self, nullptr)``): ``t =
  tanh(softplus(x))`` by ``MishCustom`` (the Mish forward's two branch forms and Select, without its final
  multiply), then ``MishGradCustom``: ``t - (t * t - 1) * x / (e^-x + 1)``, then ``Mul`` by grad; 16-bit
  widened with CAST_NONE, narrowed with CAST_RINT. Host (``op_host/arch35/mish_grad_tiling_arch35.cpp``):
  opbase ElewiseBaseTiling on ``EleBaseTilingData16B``, key ``GET_TPL_TILING_KEY(1, dType)`` with TPL_FP16
  1, TPL_BF16 2, TPL_FP32 3 (``mish_grad_struct.h``), workspace 0.
- Atlas A2 (``experimental/activation/mish_grad``): :mod:`.backward_a2` (both branch forms, two Selects
  added, then a NaN guard of comparison masks cast to half, added and cast back).
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
from . import backward_a2
from . import forward as forward_op
from ..hardswish.split import read_only
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "RECORD_DTYPE", "BUFFER_NUM", "tiling_key", "host_tiling", "programs",
           "walk_check", "run", "KERNELS"]

NAME = "mish_grad"
RECORD_DTYPE = spec_arch35.ELE_BASE_TILING_16B_DTYPE
#: The DAG's ``BufferNum`` (float32 / 16-bit inputs): not traced in opbase; taken as FastGeluGrad's (two
#: inputs, one output, float32 nodes: the UT-pinned 6 / 9). It sizes ubFormer only: no bit depends on it.
BUFFER_NUM = {4: 6, 2: 9}
#: ``TPL_FP16``, ``TPL_BF16``, ``TPL_FP32`` (``mish_grad_struct.h``).
_DTYPE_TEMPLATE = {"float16": 1, "bfloat16": 2, "float32": 3}


def tiling_key(dtype: str) -> int:
    """``GET_TPL_TILING_KEY(1, dType)``: schMode 1 in bit 0, dType above it (Gelu's packing)."""
    return 1 | (_DTYPE_TEMPLATE[dtype] << 1)


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """``ElewiseBaseTiling::DoTiling<MishGradDAG>`` of ``numel`` (>= 1) elements on a 950 platform; the A2's
    host on an A2 (:func:`.backward_a2.host_tiling`)."""
    if platform.architecture == ARCH_A2:
        return backward_a2.host_tiling(numel, info, attrs, platform)
    b = info.itemsize
    accepted, block_dim, f = spec_arch35.host_tiling(numel, b, platform.ub_size, platform.core_num, BUFFER_NUM[b], 4)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 MishGrad kernel needs "
                         f"{BUFFER_NUM[b]} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
    data = checked_record(RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer})
    return OpTiling(NAME, ARCH_950, data, int(block_dim), tiling_key(info.name), 0)

# ---------------------------------------------------------------- the program (mish_grad_dag.h)


#: ``MishCustom`` (:115-134) is the Mish forward's but for its last multiply (its ``Add`` is written
#: ``n2 + n`` where the forward's is ``n + n2``: the same IEEE sum), so the forward's instructions are taken.
_BODY = forward_op.ARCH35_TANH_SOFTPLUS + (
    # MishGradCustom (:63-72): t - (t * t - 1) * x / (e^-x + 1), t in "o"
    V.Mul("s", "o", "o"), V.Adds("s", "s", -1.0), V.Mul("s", "s", "xf"),
    V.Muls("q", "xf", -1.0), V.Exp("q", "q"), V.Adds("q", "q", 1.0), V.Div("q", "s", "q"),
    V.Sub("r", "o", "q"),
    # Vec::Mul<T>(OpResult2, OpCopyIn0Cast) (:175)
    V.Mul("r", "r", "g"),
)


def programs(dtype: str, variant: str = "main"):
    if variant != "main":
        raise ValueError(f"no 950 MishGrad variant {variant!r}")
    return elementwise("MishGrad950", (("grad", "g"), ("x", "xf")), _BODY, "r", dtype, "CAST_RINT", masks=("m",))

# ---------------------------------------------------------------- a record, checked and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    expected = tiling_key(info.name)
    own = () if tiling.tiling_key == expected else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the MishGrad host gives {expected} for "
                               f"{info.name}."),)
    plan = ((BUFFER_NUM[info.itemsize], 4),)
    bad = [n for n in ("dim0", "coreNum", "ubFormer") if int(tiling[n]) < 1]
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(
            finding("FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel divides by it and needs it >= 1.") for n in bad))
    fields = gelu_template.walk_fields(tiling)
    return WalkCheck(fields, plan, fields.ubFormer, own)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The kernel with a checked record over flat contiguous ``grad``, ``x`` and ``out`` of one dtype
    (``saturation``: never set on a 950, which has the Inf/NaN mode only)."""
    if grad is None:
        raise ValueError(f"grad must be an array for {NAME!r} (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(gelu_template.walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_950,
                                  out.size)
    params = compiled(NAME, ARCH_950, info.name, axpy_rounding=axpy_rounding).params()
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel_pkg.run_walk(params, (read_only(raw(grad)), read_only(raw(x))), raw(out), plan)


def _instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture (the operator is described in :mod:`.backward_description`).
KERNELS = {ARCH_A2: backward_a2.KERNEL,
           ARCH_950: Kernel(ARCH_950, "activation/mish_grad (arch35)", "EleBaseTilingData16B", RECORD_DTYPE,
                            "CAST_RINT", walk_check, run, _instructions, programs=programs)}
