"""GeluGradV2, the operator behind aclnnGeluBackwardV2 (approximate ``none`` and ``tanh``): the Ascend
950 kernel.

docs/model.md, "GeluBackwardV2 (aclnnGeluBackwardV2)", and docs/activation_tiling.md give the sources.

- ``activation/gelu_grad_v2`` (arch35): ``BroadcastSch`` over dy and x of one dtype (the first tier's
  GeluGrad walk, SiluGrad's record layout); ``BroadcastBaseTiling::DoTiling(ASCEND_API_BUFFER)`` for
  none, ``DoTiling()`` for tanh (``gelu_grad_v2_tiling_arch35.cpp:93-127``); key
  ``GET_TPL_TILING_KEY(schMode, approximate)``: ``schMode | a << 1``, ``a`` 0 none, 1 tanh.
- none: ``dx = ((erf(x * 0.707106781) * 0.5 + 0.5) + exp(x * x * -0.5) * 0.3989422804 * x) * dy``
  (float32 Erf SUBSECTION, 16-bit PADE, as GeluV2); at x = +-inf ``pdf * x`` is ``0 * inf``: NaN.
- tanh: the 950 GeluGrad's program (``GeluGradV2TanhCustom`` is its loop, constants identical).

The Atlas A2 kernel (``experimental/activation/gelu_grad_v2``, equal shapes: the op_api broadcasts for
it) is :mod:`.gelu_grad_v2_a2`'s.
"""
from __future__ import annotations

import numpy as np

from ... import runtime
from ...dtypes import DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Call, Program, Tensor, compiled
from ...program.erf import erf_program
from ...program.form import V
from ...tiling.findings import finding
from ..gelu_grad import kernel as gelu_grad
from . import a2
from ..gelu_v2.kernel import API_BUFFER, APPROXIMATIONS, RSQRT2, WORKSPACE, approximate_of_code, erf_algorithm
from ..registry import Kernel, OpTiling, WalkCheck
from ..silu_grad.arch35 import ARCH35_TILING_DTYPE, broadcast_tiling, run_record
from ..silu_grad.arch35 import arch35_walk_check as silu_arch35_walk_check

__all__ = ["NAME", "INV_SQRT_2PI", "ARCH35_BUFFER_BITS", "arch35_host_tiling", "host_tiling",
           "programs", "run_arch35", "run", "KERNELS", "registry_host_tiling",
           "shaped_tiling", "shaped_launch"]

NAME = "gelu_grad_v2"
#: ``(float)0.3989422804`` (``gelu_grad_v2_dag.h``, GeluGradV2ErfPost).
INV_SQRT_2PI = "0.3989422804"

#: ``bufferDivisor`` (bits per element) by approximate and input itemsize: tanh as the 950 GeluGrad's
#: (6 / 9 buffers); none one buffer more (the Erf result lives beside the pdf chain). Derived as the first
#: tier's; not traced in opbase's BroadcastBaseTiling class.
ARCH35_BUFFER_BITS = {"tanh": gelu_grad.ARCH35_BUFFER_BITS, "none": {4: 7 * 32, 2: 10 * 32}}


def arch35_host_tiling(dy_shape, x_shape, info: DTypeInfo, approximate: str, platform: Platform):
    """``(record, block_dim, tiling_key, out_shape)``: opbase's broadcast split with this DAG's divisor
    and extra size; schMode taken as 0 (<= 5 axes in UB) or 1, as the first tier's GeluGrad."""
    extra = API_BUFFER if approximate == "none" else 0
    record, block_dim, schedule_key, out_shape = broadcast_tiling(
        dy_shape, x_shape, 8 * info.itemsize, extra, ARCH35_BUFFER_BITS[approximate][info.itemsize], platform)
    return record, block_dim, int(schedule_key != 100) | (APPROXIMATIONS.index(approximate) << 1), out_shape


def host_tiling(dy_shape, x_shape, info: DTypeInfo, approximate: str, platform: Platform) -> OpTiling:
    """The host tiling for the kernel ``platform``'s SoC runs (the A2's of equal shapes, numel >= 1)."""
    if platform.architecture == ARCH_A2:
        return a2.host_tiling(int(np.prod(dy_shape)), info, approximate, platform)
    record, block_dim, key, _ = arch35_host_tiling(dy_shape, x_shape, info, approximate, platform)
    return OpTiling(NAME, ARCH_950, record, int(block_dim), key, WORKSPACE)

# ---------------------------------------------------------------- the programs (inputs dy, x)


def _none_body(algo: str) -> tuple:                          # gelu_grad_v2_dag.h:170-204, GeluGradV2ErfPost 44-99
    return (V.Muls("t", "x", RSQRT2), Call(erf_program(algo), "e", ("t",)),
            V.Muls("cdf", "e", 0.5), V.Adds("cdf", "cdf", 0.5),
            V.Mul("pdf", "x", "x"), V.Muls("pdf", "pdf", -0.5), V.Exp("pdf", "pdf"), V.Muls("pdf", "pdf", INV_SQRT_2PI),
            V.Mul("mr", "pdf", "x"), V.Add("ar", "cdf", "mr"), V.Mul("y", "ar", "dy"))


def _renamed(body, names: dict) -> tuple:
    out = []
    for s in body:
        if isinstance(s, Call):
            out.append(Call(s.program, names.get(s.dst, s.dst), tuple(names.get(a, a) for a in s.srcs)))
        else:
            out.append(type(s)(s.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in s.args)))
    return tuple(out)


def programs(dtype: str, variant: str = "none") -> Program:
    """The 950 Compute for ``dtype`` and approximate ``variant`` (``"main"`` means none)."""
    variant = "none" if variant == "main" else variant
    if variant not in APPROXIMATIONS:
        raise ValueError(f"no GeluGradV2 variant {variant!r}")
    if variant == "tanh":
        p = gelu_grad.programs(ARCH_950, dtype)
        return Program("GeluGradV2Tanh", p.inputs, p.output, p.locals, p.body)
    body = _none_body(erf_algorithm(dtype))
    written = sorted({s.dst for s in body} - {"y"})
    if dtype == "float32":
        return Program("GeluGradV2Erf", (Tensor("dy"), Tensor("x")), Tensor("out"), tuple(Tensor(n) for n in written),
                       _renamed(body, {"y": "out"}))
    return Program("GeluGradV2Erf", (Tensor("dy", dtype), Tensor("x", dtype)), Tensor("out", dtype),
                   tuple(Tensor(n) for n in written + ["dyf", "xf", "y"]),
                   (V.Cast("dyf", "dy", "CAST_NONE"), V.Cast("xf", "x", "CAST_NONE"))
                   + _renamed(body, {"x": "xf", "dy": "dyf"}) + (V.Cast("out", "y", "CAST_RINT"),))

# ---------------------------------------------------------------- launches



def run_arch35(dy, x, out, tiling: OpTiling, info: DTypeInfo, axpy_rounding: str = "fused") -> None:
    """C-contiguous ``dy``, ``x`` (their own shapes) and ``out`` (the broadcast shape), on the broadcast walk;
    the approximation is the tiling key's."""
    r = tiling.data
    variant = APPROXIMATIONS[(tiling.tiling_key >> 1) & 1]
    params = compiled(NAME, ARCH_950, info.name, variant, axpy_rounding=axpy_rounding).params()
    with runtime.launch_guard():
        run_record(params, info.flat_bits(dy), info.flat_bits(x), info.flat_bits(out), tiling.block_dim, r)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The registry's launch: flat contiguous arrays of one dtype and size."""
    if grad is None:
        raise ValueError("grad must be an array for gelu_grad_v2 (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    if tiling.architecture == ARCH_A2:
        a2.run(grad, x, out, tiling, info, saturation)
    elif saturation:
        raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
    else:
        run_arch35(grad, x, out, tiling, info, axpy_rounding)


def _arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """SiluGrad's broadcast-record checks, with this DAG's buffers and keys (0 to 3)."""
    check = silu_arch35_walk_check(tiling, numel, info, platform)
    own = tuple(f for f in check.findings if f.code != "TILING_KEY_MISMATCH")
    if tiling.tiling_key not in range(4):
        own += (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; GeluGradV2's are 0 to 3."),)
    approximate = APPROXIMATIONS[(tiling.tiling_key >> 1) & 1]
    return WalkCheck(None, ((ARCH35_BUFFER_BITS[approximate][info.itemsize] // 32, 4),), check.pass_len, own)


KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/gelu_grad_v2", "GeluGradV2TilingData", a2.RECORD_DTYPE,
                    "CAST_RINT", a2.walk_check, run, programs=a2.programs, variant=lambda code: approximate_of_code(code)),
    ARCH_950: Kernel(ARCH_950, "activation/gelu_grad_v2 (arch35)", "BroadcastBaseTiling (SiluGrad's layout)",
                     ARCH35_TILING_DTYPE, "CAST_RINT", _arch35_walk_check, run, programs=programs,
                     variant=lambda code: approximate_of_code(code), walk="broadcast")}


def registry_host_tiling(numel: int, info: DTypeInfo, code, platform: Platform) -> OpTiling:
    """The registry's host tiling of equal shapes: ``code`` the approximation's (``approximate_code``)."""
    return host_tiling((numel,), (numel,), info, approximate_of_code(code), platform)


def shaped_tiling(shapes, info: DTypeInfo, code, platform: Platform) -> OpTiling:
    """Inputs of different shapes: the 950 walks them as they are; the A2's op_api broadcasts both first."""
    if platform.architecture == ARCH_950:
        return host_tiling(*shapes, info, approximate_of_code(code), platform)
    numel = int(np.prod(np.broadcast_shapes(*shapes)))
    return host_tiling((numel,), (numel,), info, approximate_of_code(code), platform)


def shaped_launch(arrays, out, tiling: OpTiling, info: DTypeInfo, saturation: bool = False,
                  axpy_rounding: str = "fused") -> None:
    """``(dy, x)`` of different shapes into ``out``: the 950's broadcast walk, or the A2's kernel over both
    broadcast (BroadcastTo, as GeluGrad's: :func:`swishgrad_numba.ops.gelu_grad.kernel.shaped_launch`)."""
    if tiling.architecture == ARCH_950:
        run_arch35(np.ascontiguousarray(arrays[0]), np.ascontiguousarray(arrays[1]), out, tiling, info, axpy_rounding)
    else:
        gelu_grad.broadcast_copies(arrays, out.shape, lambda dy, x: a2.run(dy, x, out, tiling, info, saturation))
