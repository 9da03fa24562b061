"""GeluV2 (aclnnGeluV2), approximate ``none`` (erf) and ``tanh``: the Ascend 950 kernel only.

docs/model.md, "GeluV2 (aclnnGeluV2, 950 only)", and docs/activation_tiling.md ("The second-tier
activations") give the sources, file and line, of every fact here.

- ``activation/gelu_v2`` (arch35): ``ElementwiseSch16B`` on opbase's ``EleBaseTilingData16B`` (Gelu's
  struct), ``ElewiseTiling::DoTiling`` with ``extraSize`` ``ASCEND_API_BUFFER`` = 120 KiB for both
  approximations (``gelu_v2_tiling_arch35.cpp:32, 128-160``; opbase ``elewise_tiling.cpp:38``:
  ``(ubSize - extraSize) * 8 / bufferDivisor``); 16 MiB of workspace; key
  ``GET_TPL_TILING_KEY(1, approximate, dType)`` (:181), the UINT arguments by their index in their lists
  (as :func:`swishgrad_numba.spec.arch35.tiling_key` reads the encoding): ``1 | a << 1 | dType << 2``
  with ``a`` 0 for none, 1 for tanh.
- none: ``y = (erf(x * 0.707106781) + 1) * (x * 0.5)``; float32 runs opbase's ``Vec::Erf``
  (:data:`~swishgrad_numba.program.erf.SUBSECTION`), 16-bit the kernel's ``ErfFast`` on the widened x
  (the default config, :data:`~swishgrad_numba.program.erf.PADE`). tanh: the 950 Gelu's sequence,
  constant for constant (its Axpy rounds as :attr:`Platform.axpy_rounding`).
- No public A2 kernel (the op definition registers ``ascend950`` only): an A2 platform is refused.
"""
from __future__ import annotations


import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, Platform
from ...program import Call, Program, Tensor, compiled
from ...program.erf import PADE, SUBSECTION, erf_program
from ...program.form import V
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..gelu import kernel as gelu
from ..gelu.kernel import ARCH35_RECORD_DTYPE, DTYPE_TEMPLATE
from ..gelu.kernel import walk_fields as _gelu_walk_fields
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "APPROXIMATIONS", "API_BUFFER", "WORKSPACE", "RSQRT2", "NO_A2_KERNEL", "approximate_code",
           "approximate_of_code", "buffer_num", "tiling_key", "host_tiling", "erf_algorithm", "programs", "run",
           "KERNELS", "registry_host_tiling"]

NAME = "gelu_v2"
#: The ``approximate`` attribute's values, in the template list's order (``TPL_NONE``, ``TPL_TANH``).
APPROXIMATIONS = ("none", "tanh")
#: ``ASCEND_API_BUFFER``: the UB the DAG leaves to the Erf routine's temporaries (:32).
API_BUFFER = 122880
#: ``ASCEND_WORKSPACE`` (:31).
WORKSPACE = 16 * 1024 * 1024
#: ``MAKE_CONST(float, 0.707106781)``: a double literal in a float (``gelu_v2_dag.h:122, 141``).
RSQRT2 = "0.707106781"

NO_A2_KERNEL = ("ops-nn registers GeluV2 for the Ascend 950 only (op definition: ascend950; no "
                "experimental/activation kernel registers the op type GeluV2): use an Ascend 950 platform")


def approximate_code(approximate: str) -> float:
    """The float32 attribute the registry carries for ``approximate``: the template's value, ``TPL_NONE`` 1
    or ``TPL_TANH`` 2 (``gelu_v2_struct.h``); so the registry's default attribute 1.0 is none."""
    if approximate not in APPROXIMATIONS:
        raise ValueError(f"approximate must be one of {APPROXIMATIONS}, got {approximate!r}")
    return float(APPROXIMATIONS.index(approximate) + 1)


def approximate_of_code(code) -> str:
    """:func:`approximate_code`'s inverse; None (no attribute) is none."""
    if code is None:
        return "none"
    if float(code) not in (1.0, 2.0):
        raise ValueError(f"the GeluV2 attribute is 1 (none) or 2 (tanh), got {code!r}")
    return APPROXIMATIONS[int(code) - 1]


def erf_algorithm(dtype: str) -> str:
    """float32 DAGs call opbase ``Vec::Erf`` (SUBSECTION), 16-bit DAGs ``ErfFast`` (PADE)."""
    return SUBSECTION if dtype == "float32" else PADE

# ---------------------------------------------------------------- host tiling


def buffer_num(approximate: str, itemsize: int) -> int:
    """The DAG's ``BufferNum``, derived as the first tier's Gelu's (not traced in opbase's
    ``GetBufferNumLevel2``): tanh is Gelu's DAG (4 float32, 6 16-bit); none keeps x alive until
    ``GeluV2ErfPost`` next to the Muls and Erf results (6), and 16-bit also the widened x (8)."""
    if approximate == "tanh":
        return 4 if itemsize == 4 else 6
    return 6 if itemsize == 4 else 8


def tiling_key(approximate: str, dtype: str) -> int:
    return 1 | (APPROXIMATIONS.index(approximate) << 1) | (DTYPE_TEMPLATE[dtype] << 2)


def host_tiling(numel: int, info: DTypeInfo, approximate: str, platform: Platform) -> OpTiling:
    """The 950 host tiling of ``numel`` (>= 1) elements; ValueError on an A2 or where the UB holds no loop."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {NAME}: {NO_A2_KERNEL}")
    b, n = info.itemsize, buffer_num(approximate, info.itemsize)
    usable = platform.ub_size - API_BUFFER
    accepted, block_dim, f = (False, 0, None) if usable <= 0 else spec_arch35.host_tiling(
        numel, b, usable, platform.core_num, n, 4)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 GeluV2 kernel reserves "
                         f"{API_BUFFER} bytes for Erf and needs {n} buffers of at least "
                         f"{spec_arch35.UB_ALIGN_BYTES} bytes more")
    data = checked_record(ARCH35_RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer})
    return OpTiling(NAME, ARCH_950, data, int(block_dim), tiling_key(approximate, info.name), WORKSPACE)

# ---------------------------------------------------------------- the programs


def _erf_body(algo: str) -> tuple:                                            # gelu_v2_dag.h:120-153, 41-77
    return (V.Muls("t", "x", RSQRT2), Call(erf_program(algo), "e", ("t",)),
            V.Adds("a", "e", 1.0), V.Muls("m", "x", 0.5), V.Mul("y", "a", "m"))


def _renamed(body, names: dict) -> tuple:
    out = []
    for s in body:
        if isinstance(s, Call):
            out.append(Call(s.program, names.get(s.dst, s.dst), tuple(names.get(a, a) for a in s.srcs)))
        else:
            out.append(type(s)(s.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in s.args)))
    return tuple(out)


def programs(dtype: str, variant: str = "none") -> Program:
    """The Compute for ``dtype`` and approximate ``variant`` (``"main"`` means none): 16-bit x widened
    first (CAST_NONE), the result narrowed last (CAST_RINT)."""
    variant = "none" if variant == "main" else variant
    if variant not in APPROXIMATIONS:
        raise ValueError(f"no GeluV2 variant {variant!r}")
    if variant == "tanh":   # GeluV2Tanh (gelu_v2_dag.h:79-118) is the 950 Gelu's loop, constant for constant
        p = gelu.programs(ARCH_950, dtype)
        return Program("GeluV2Tanh", p.inputs, p.output, p.locals, p.body)
    body, name = _erf_body(erf_algorithm(dtype)), "GeluV2Erf"
    written = sorted({s.dst for s in body} - {"y"})
    if dtype == "float32":
        return Program(name, (Tensor("x"),), Tensor("out"), tuple(Tensor(n) for n in written),
                       _renamed(body, {"y": "out"}))
    return Program(name, (Tensor("x", dtype),), Tensor("out", dtype), tuple(Tensor(n) for n in written + ["xf", "y"]),
                   (V.Cast("xf", "x", "CAST_NONE"),) + _renamed(body, {"x": "xf"}) + (V.Cast("out", "y", "CAST_RINT"),))

# ---------------------------------------------------------------- check and run


def _walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    keys = {tiling_key(a, info.name): a for a in APPROXIMATIONS}
    own = () if tiling.tiling_key in keys else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the GeluV2 host gives {sorted(keys)} for "
                               f"{info.name} (none, tanh)."),)
    plan = ((buffer_num(keys.get(tiling.tiling_key, "none"), info.itemsize), 4),)
    bad = [n for n in ("dim0", "coreNum", "ubFormer") if int(tiling[n]) < 1]
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(
            finding("FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel divides by it and needs it >= 1.") for n in bad))
    fields = _gelu_walk_fields(tiling)
    return WalkCheck(fields, plan, fields.ubFormer, own)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None); the
    approximation is the tiling key's. The 950 has the Inf/NaN overflow mode only (``saturation`` refused)."""
    if saturation:
        raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
    if grad is not None:
        raise ValueError("grad must be None for the forward operator 'gelu_v2' (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    variant = APPROXIMATIONS[(tiling.tiling_key >> 1) & 1]
    plan = kernel_pkg.plan_launch(_gelu_walk_fields(tiling), tiling.block_dim, kernel_pkg.arch_code(ARCH_950),
                                  out.size)
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    params = compiled(NAME, ARCH_950, info.name, variant, axpy_rounding=axpy_rounding).params()
    kernel_pkg.run_walk(params, (raw(x),), raw(out), plan)


KERNELS = {ARCH_950: Kernel(ARCH_950, "activation/gelu_v2 (arch35)", "EleBaseTilingData16B", ARCH35_RECORD_DTYPE,
                            "CAST_RINT", _walk_check, run, programs=programs,
                            variant=lambda code: approximate_of_code(code))}


def registry_host_tiling(numel: int, info: DTypeInfo, code, platform: Platform) -> OpTiling:
    """The registry's host tiling: ``code`` :func:`approximate_code`'s (None: none)."""
    return host_tiling(numel, info, approximate_of_code(code), platform)
