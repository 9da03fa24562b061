"""EluGradV2 (aclnnEluBackward): the Ascend 950 kernel (``activation/elu_grad_v2``, arch35).

docs/model.md, "EluBackward (aclnnEluBackward)", and docs/activation_tiling.md
give the sources, file and line, of every fact here.

- Host (``elu_grad_v2_tiling_arch35.cpp``): ``negcoef = alpha * scale`` in
  float; ``isResult`` with ``alpha < 0`` fails; opbase ``DoTiling`` on
  ``EluGradV2IsResultOp<T>`` / ``EluGradV2NoResultOp<T>`` into the
  ``baseTiling`` of ``EluGradV2TilingData`` (``EleBaseTilingData``, ``float
  negcoef, scale, inputScale; uint32 alignHolder``: 96 bytes), key
  ``GET_TPL_TILING_KEY(schMode, dType)`` with dType 1/2/3 (float16,
  bfloat16, float32) for isResult and 4/5/6 otherwise; no workspace beyond
  ``ASCEND_WORKSPACE`` (16 MiB, as the other DAG kernels).
- ``BufferNum`` from opbase's ``GetBufferNumLevel2`` (docs/model.md, the
  Swish analysis): ``tempCalcNode + 2 * 2 inputs + 2 * 1 output``, the live
  nodes counted along the DAG's node list: 5 for 16-bit (the two widening
  Casts live), 3 for float32 (the Casts vanish), in both modes, so **11**
  and **9**; MaxDtypeBytes 4 (float32 nodes), MinDtypeBytes **1** (the
  uint8 Compare mask): ``ubFormer`` is aligned to 256 elements and the core
  count is taken at 8 bits per element. The ops-nn UT
  (``tests/ut/op_host/arch35/test_elu_grad_v2_tiling.cpp``: float16
  isResult, (1,64,2,64), UB 245,760, 64 cores) expects coreNum 2,
  blockFormer 4,096 and ubFormer 5,376, which only this reading gives
  (BufferNum 11, 8-bit minimum); the other three are the same count.
- Kernel (``elu_grad_v2_dag.h``), inputs (grads, activations), every node
  float32 (16-bit widened with CAST_NONE, narrowed with CAST_RINT);
  Compare LE against a zero constant, Select mode 2 (tensor, tensor).
"""
from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Program, compiled
from ...program.form import Attr, V
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from . import a2 as elu_grad_a2
from ..elu.kernel import bits_view, float_program, walk_fields
from ..op_tiling import kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "RECORD_DTYPE", "BUFFER_NUM", "DTYPE_TEMPLATES", "VARIANTS", "negcoef", "host_tiling",
           "tiling_key", "variant_of", "programs", "walk_check", "run", "ARCH35_KERNEL",
           "KERNELS", "registry_host_tiling"]

NAME = "elu_grad"

#: ``EluGradV2TilingData`` (``elu_grad_v2_tiling_struct.h:18-23``).
RECORD_DTYPE = np.dtype([(n, spec_arch35.ELE_BASE_TILING_DTYPE.fields[n][0]) for n in spec_arch35.FIELDS]
                        + [("negcoef", "<f4"), ("scale", "<f4"), ("inputScale", "<f4"), ("alignHolder", "<u4")],
                        align=True)
assert RECORD_DTYPE.itemsize == 96

#: The DAG's ``BufferNum`` by input itemsize; every node float32, the mask uint8.
BUFFER_NUM = {4: 9, 2: 11}
_MAX_ITEMSIZE, _MIN_ITEMSIZE = 4, 1
#: ``EluGradV2_TPL_*`` (``elu_grad_v2_struct.h``) by dtype, isResult; + 3 where not isResult (``_N``).
DTYPE_TEMPLATES = {"float16": 1, "bfloat16": 2, "float32": 3}
#: The program variant by isResult: ``EluGradV2IsResultOp`` or ``EluGradV2NoResultOp``.
VARIANTS = {True: "result", False: "main"}


def negcoef(alpha, scale) -> np.float32:
    """``float negcoef = alphaValue * scale;`` (``elu_grad_v2_tiling_arch35.cpp:167``)."""
    with np.errstate(all="ignore"):
        return np.float32(alpha) * np.float32(scale)


def tiling_key(info: DTypeInfo, is_result: bool) -> int:
    return spec_arch35.tiling_key(DTYPE_TEMPLATES[info.name] + (0 if is_result else 3))


def variant_of(tiling: OpTiling) -> str:
    """The DAG the kernel runs, read from the record's key (the struct has no isResult)."""
    template = (int(tiling.tiling_key) - spec_arch35.SCHE_MODE) >> 1
    return VARIANTS[template <= 3]

# ---------------------------------------------------------------- the host tiling


def host_tiling(numel: int, info: DTypeInfo, alpha, scale, input_scale, is_result: bool,
                platform: Platform) -> OpTiling:
    """``EluGradV2Tiling::RunTiling`` of ``numel`` (>= 1) elements (``elu_grad_v2_tiling_arch35.cpp:184-230``)."""
    if is_result and np.float32(alpha) < 0:
        raise ValueError(f"alpha ({float(alpha)!r}) must be >= 0 when is_result is true (the EluGradV2 host "
                         f"refuses it, elu_grad_v2_tiling_arch35.cpp:160-163)")
    b = BUFFER_NUM[info.itemsize]
    accepted, block_dim, f = spec_arch35.host_tiling(numel, _MIN_ITEMSIZE, platform.ub_size, platform.core_num, b,
                                                     _MAX_ITEMSIZE)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 EluGradV2 kernel "
                         f"needs {b} buffers of at least 256 float32 elements")
    values = dict(f._asdict(), negcoef=negcoef(alpha, scale), scale=np.float32(scale),
                  inputScale=np.float32(input_scale))
    return OpTiling(NAME, ARCH_950, checked_record(RECORD_DTYPE, values), int(block_dim),
                    tiling_key(info, is_result), spec_arch35.WORKSPACE_SIZE)

# ---------------------------------------------------------------- the programs (inputs g = grads, a = activations)


_NEG, _SCALE, _IS = Attr("negcoef"), Attr("scale"), Attr("input_scale")
_TAIL = (V.Muls("pos", "g", _SCALE), V.Duplicate("zero", 0.0), V.Compare("le", "a", "zero", "LE"),
         V.Select("y", "neg", "pos", "le"))
_BODIES = {                                                                  # elu_grad_v2_dag.h:25-84
    "result": (V.Adds("ad", "a", _NEG), V.Muls("m1", "g", _IS), V.Mul("neg", "m1", "ad")) + _TAIL,
    "main": (V.Muls("m1", "a", _IS), V.Exp("e", "m1"), V.Muls("m2", "g", _IS), V.Muls("m3", "m2", _NEG),
             V.Mul("neg", "m3", "e")) + _TAIL,
}


def programs(dtype: str, variant: str = "main") -> Program:
    """The Compute of ``variant`` (``"result"``: isResult, ``"main"``: from x) for ``dtype``."""
    if variant not in _BODIES:
        raise ValueError(f"no EluGradV2 variant {variant!r}: one of {sorted(_BODIES)}")
    name = "EluGradV2" + ("Result" if variant == "result" else "") + "Arch35"
    return float_program(name, ("g", "a"), _BODIES[variant], dtype, ("le",), ("negcoef", "scale", "input_scale"))

# ---------------------------------------------------------------- a record, checked and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    keys = tuple(tiling_key(info, r) for r in (True, False))
    found = () if tiling.tiling_key in keys else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the EluGradV2 host gives {keys[0]} (isResult) "
                               f"or {keys[1]} for {info.name}."),)
    fields = walk_fields(tiling)
    plan = ((BUFFER_NUM[info.itemsize], _MAX_ITEMSIZE),)
    return WalkCheck(fields, plan, fields.ubFormer, found)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous ``grad`` (gradOutput), ``x`` (x or the result)
    and ``out`` of one dtype; attributes and DAG are the record's."""
    if grad is None:
        raise ValueError(f"grad must be an array for {NAME} (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.arch_code(ARCH_950), out.size)
    params = compiled(NAME, ARCH_950, info.name, variant_of(tiling)).params(**_launch_attrs(tiling))
    kernel_pkg.run_walk(params, (bits_view(grad, info), bits_view(x, info)), bits_view(out, info), plan)


@kept_per_tiling
def _launch_attrs(tiling: OpTiling):
    """The record's attributes as the program's, read once per (cached) tiling."""
    return MappingProxyType(dict(negcoef=tiling.data["negcoef"], scale=tiling.data["scale"],
                                 input_scale=tiling.data["inputScale"]))


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16", variant_of(tiling)).instructions()


ARCH35_KERNEL = Kernel(ARCH_950, "activation/elu_grad_v2 (arch35)", "EluGradV2TilingData", RECORD_DTYPE,
                       "CAST_RINT", walk_check, run, _device_instructions, programs=programs)


def registry_host_tiling(numel, info, attrs, platform):
    """The registry's host tiling on either kernel: ``attrs`` ``(alpha, scale, input_scale, is_result)``, None
    for the defaults."""
    alpha, scale, input_scale, is_result = (1.0, 1.0, 1.0, False) if attrs is None else attrs
    if platform.architecture == ARCH_A2:
        return elu_grad_a2.host_tiling(numel, info, np.float32(alpha), np.float32(scale), np.float32(input_scale),
                                       bool(is_result), platform)
    return host_tiling(numel, info, alpha, scale, input_scale, bool(is_result), platform)


#: The kernels by architecture.
KERNELS = {ARCH_A2: elu_grad_a2.A2_KERNEL, ARCH_950: ARCH35_KERNEL}
