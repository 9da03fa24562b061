"""Elu (aclnnElu): the Ascend 950 kernel only (``activation/elu``, arch35).

docs/model.md, "Elu (aclnnElu, 950 only)" and "Which kernel runs what", and
docs/activation_tiling.md ("The second-tier activations") give the sources,
file and line, of every fact here.

- Host: opbase ``ElewiseBaseTiling::DoTiling`` on ``EluDag<T>`` into the
  ``baseTiling`` of ``EluTilingData`` (``EleBaseTilingData`` then ``float
  alpha, scale, inputScale``: 92 bytes, 96 with the struct's 8-byte
  alignment), key 101, 16 MiB of workspace (``elu_tiling_arch35.cpp``).
  The DAG is CopyIn -> one MicroAPI node ``EluCustom<T>`` (its output of the
  input's type) -> CopyOut, so ``BufferNum`` = 2 * 1 + 2 * 1 = 4 and
  Max = MinDtypeBytes = the input's itemsize (the analysis of the Swish
  DAGs, docs/model.md; not pinned by a UT).
- Kernel (``elu_dag.h``): z = x * inputScale; |z| < 0.1 takes a Horner
  polynomial for expm1 (degree 5 for float32, 4 for 16-bit), else
  exp(z) - 1; times alpha; x > 0 keeps x; times scale. 16-bit is widened
  exactly and narrowed with CAST_RINT. The MicroAPI ``Compares`` is the
  program form's ``CompareScalar``.
- No public A2 kernel registers op type Elu (``Operator.no_kernel``); the 950
  has the Inf/NaN overflow mode only.

The op_api's own path (alpha or inputScale not finite: Threshold then Muls)
and float64 (an AICPU kernel) are host choices: :mod:`.description`.
"""
from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Program, Tensor, compiled
from ...program.form import Attr, Product, V
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import arch35_walk_fields, kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "bits_view", "RECORD_DTYPE", "TILING_KEY", "BUFFER_NUM", "ATTRS", "NO_A2_KERNEL", "EXPM1_THRESHOLD",
           "attributes", "threshold_path", "host_tiling", "walk_fields", "programs", "float_program", "walk_check",
           "run", "KERNELS"]

NAME = "elu"

#: ``EluTilingData`` (``elu_tiling_struct.h:19-23``): ``EleBaseTilingData`` then three floats.
RECORD_DTYPE = np.dtype([(n, spec_arch35.ELE_BASE_TILING_DTYPE.fields[n][0]) for n in spec_arch35.FIELDS]
                        + [("alpha", "<f4"), ("scale", "<f4"), ("inputScale", "<f4")], align=True)
assert RECORD_DTYPE.itemsize == 96

#: ``ELU_TILING_KEY_ELEMENTWISE`` (``elu_tiling_arch35.cpp:32``; the kernel tests ``TILING_KEY_IS(101UL)``).
TILING_KEY = 101
#: ``ELU_WORKSPACE_RESERVE_BYTE`` (``elu_tiling_arch35.cpp:33``).
WORKSPACE_SIZE = 16 * 1024 * 1024
#: The DAG's ``BufferNum``: CopyIn and CopyOut pinged and ponged, the one node feeding the copy-out.
BUFFER_NUM = 4

#: The attributes (``elu_def.cpp``: alpha, scale, input_scale; 1.0 each where absent) and their record fields.
ATTRS = (("alpha", "alpha"), ("scale", "scale"), ("input_scale", "inputScale"))

NO_A2_KERNEL = ("ops-nn has its kernel for the Ascend 950 only: no public A2 kernel registers op type Elu "
                "(experimental/activation/elu registers EluDef on "
                "ascend950, elu_v2 registers EluV2; docs/model.md 'Which kernel runs what'), so it is not "
                "emulated; use an Ascend 950 platform")

#: ``constexpr float expm1Threshold = 0.1f;`` (``elu_dag.h``).
EXPM1_THRESHOLD = 0.1


def _f32_div(a: float, b: float) -> float:
    """``constexpr float c = 1.0f / 120.0f;``: a float division, rounded once to binary32."""
    return float(np.float32(a) / np.float32(b))


#: ``coeff5 .. coeff1`` (``elu_dag.h``): 1/120, 1/24, 1/6, 1/2, 1, each a float division.
COEFFS = (_f32_div(1, 120), _f32_div(1, 24), _f32_div(1, 6), _f32_div(1, 2), 1.0)


def attributes(attrs) -> tuple:
    """``(alpha, scale, input_scale)`` as float32 from the generic path's ``attrs`` (None: the defaults)."""
    if attrs is None:
        return (np.float32(1.0),) * 3
    alpha, scale, input_scale = attrs
    return np.float32(alpha), np.float32(scale), np.float32(input_scale)

# ---------------------------------------------------------------- the host tiling


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """``EluTiling::RunTiling`` of ``numel`` (>= 1) elements on a 950 platform (``elu_tiling_arch35.cpp:101-145``)."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {NAME}: {NO_A2_KERNEL}")
    b = info.itemsize
    accepted, block_dim, f = spec_arch35.host_tiling(numel, b, platform.ub_size, platform.core_num, BUFFER_NUM, b)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 {NAME} kernel needs "
                         f"{BUFFER_NUM} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
    values = dict(f._asdict())
    values.update({field: v for (_name, field), v in zip(ATTRS, attributes(attrs))})
    return OpTiling(NAME, ARCH_950, checked_record(RECORD_DTYPE, values), int(block_dim), TILING_KEY,
                    WORKSPACE_SIZE)


#: The record's base fields as the walk's ``spec.arch35.TilingFields``, kept per tiling.
walk_fields = arch35_walk_fields

# ---------------------------------------------------------------- the program


def _body(wide: bool) -> tuple:
    """``EluCustom`` (``elu_dag.h``: float32 76-104, 16-bit 116-145) on float32 ``x``, result ``y``."""
    c5, c4, c3, c2, c1 = COEFFS
    head = (V.Muls("z", "x", Attr("input_scale")),)
    poly = ((V.Muls("t", "z", c5), V.Adds("t", "t", c4), V.Mul("t", "t", "z")) if wide
            else (V.Muls("t", "z", c4),))
    return head + poly + (
        V.Adds("t", "t", c3), V.Mul("t", "t", "z"), V.Adds("t", "t", c2), V.Mul("t", "t", "z"),
        V.Adds("t", "t", c1), V.Mul("poly", "t", "z"),
        V.Exp("em", "z"), V.Adds("em", "em", -1.0),
        V.Abs("az", "z"), V.CompareScalar("small", "az", EXPM1_THRESHOLD, "LT"),
        V.Select("r", "poly", "em", "small"),
        V.Muls("r", "r", Attr("alpha")),
        V.CompareScalar("pos", "x", 0.0, "GT"), V.Select("o", "x", "r", "pos"),
        V.Muls("y", "o", Attr("scale")))


def _renamed(body, names: dict) -> tuple:
    return tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args)) for i in body)


def float_program(name: str, inputs: tuple, body: tuple, dtype: str, masks: tuple, attrs: tuple) -> Program:
    """The program of float32 ``body`` (inputs ``inputs``, result ``y``, uint8 ``masks``) for ``dtype``:
    float32 as is; 16-bit inputs widened (CAST_NONE) first and ``y`` narrowed with CAST_RINT last."""
    written = []
    for i in body:
        if i.args[0] not in written and i.args[0] != "y":
            written.append(i.args[0])
    local = tuple(Tensor(n, "uint8" if n in masks else "float32") for n in written)
    if dtype == "float32":
        return Program(name, tuple(Tensor(n) for n in inputs), Tensor("out"), local,
                       _renamed(body, {"y": "out"}), attrs)
    wide = {n: n + "f" for n in inputs}
    return Program(name, tuple(Tensor(n, dtype) for n in inputs), Tensor("out", dtype),
                   local + tuple(Tensor(n) for n in [*wide.values(), "y"]),
                   tuple(V.Cast(w, n, "CAST_NONE") for n, w in wide.items()) + _renamed(body, wide)
                   + (V.Cast("out", "y", "CAST_RINT"),), attrs)


#: The op_api's path where alpha or inputScale is inf or NaN (``aclnn_elu.cpp:109-150``): no Elu kernel but
#: ``Threshold(x, 0, alpha * -1.0f)`` then ``Muls(scale)`` in float32 (16-bit cast first) and the output Cast,
#: modelled plainly (those kernels are outside this tier) as variant ``"threshold"``.
_THRESHOLD = (V.CompareScalar("pos", "x", 0.0, "GT"), V.Select("o", "x", Product(Attr("alpha"), -1.0), "pos"),
              V.Muls("y", "o", Attr("scale")))


def threshold_path(alpha, input_scale) -> bool:
    """Whether the op_api takes the Threshold path (``NeedInfNanHandling``, on the attributes as float)."""
    return not (np.isfinite(np.float32(alpha)) and np.isfinite(np.float32(input_scale)))


def programs(dtype: str, variant: str = "main") -> Program:
    """The kernel's Compute for ``dtype`` (``"main"``: the DAG's one node), or the op_api's ``"threshold"``."""
    if variant == "threshold":
        return float_program("EluThreshold", ("x",), _THRESHOLD, dtype, ("pos",), ("alpha", "scale"))
    if variant != "main":
        raise ValueError(f"no Elu variant {variant!r}")
    return float_program("EluArch35", ("x",), _body(dtype == "float32"), dtype, ("small", "pos"),
                         tuple(name for name, _field in ATTRS))

# ---------------------------------------------------------------- a record, checked and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The record for the validator: ElementwiseSch's walk of its fields, the DAG's buffers, the key."""
    keys = () if tiling.tiling_key == TILING_KEY else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the Elu host always sets {TILING_KEY} "
                               f"(ELU_TILING_KEY_ELEMENTWISE)."),)
    fields = walk_fields(tiling)
    return WalkCheck(fields, ((BUFFER_NUM, info.itemsize),), fields.ubFormer, keys)


def bits_view(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    """``a`` as the walk reads it: float32 itself, a 16-bit dtype as its uint16 bit patterns."""
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` of one dtype (``grad`` None);
    the attributes are the record's."""
    if grad is not None:
        raise ValueError(f"grad must be None for the forward operator {NAME!r} (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.arch_code(ARCH_950), out.size)
    variant, attrs = _launch_attrs(tiling)
    params = compiled(NAME, ARCH_950, info.name, variant).params(**attrs)
    kernel_pkg.run_walk(params, (bits_view(x, info),), bits_view(out, info), plan)


@kept_per_tiling
def _launch_attrs(tiling: OpTiling) -> tuple:
    """``(variant, attributes)`` of a record's launch: the threshold path's program or the main one, read once
    per (cached) tiling."""
    attrs = {name: np.float32(tiling.data[field]) for name, field in ATTRS}
    if threshold_path(attrs["alpha"], attrs["input_scale"]):
        return "threshold", MappingProxyType({"alpha": attrs["alpha"], "scale": attrs["scale"]})
    return "main", MappingProxyType(attrs)

# ---------------------------------------------------------------- registration


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture (the 950's only).
KERNELS = {ARCH_950: Kernel(ARCH_950, "activation/elu (arch35)", "EluTilingData", RECORD_DTYPE, "CAST_RINT",
                            walk_check, run, _device_instructions, programs=programs)}
