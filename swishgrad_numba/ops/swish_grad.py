"""SwishGrad (aclnnSwishBackward) as a registry entry, and its launch.

SwishGrad came first and its facts live where the package was built around
it: the host tilings and core classes in :mod:`swishgrad_numba.spec` (the
template's, which the Swish forward shares), the structs in
:mod:`swishgrad_numba.tiling.records`, the instruction sequences in
:mod:`swishgrad_numba.kernel.sequence`, the aclnn checks in
:mod:`swishgrad_numba.aclnn.op_api`. This module restates none of them: it
registers the operator, and gives the generic walk
(:mod:`swishgrad_numba.kernel.walk`) its pass function.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from numba import njit

from .. import kernel, runtime
from ..dtypes import FLOAT32, DTypeInfo, dtype_info
from ..kernel import flat, saturation, sequence
from ..kernel.walk import register_pass
from ..platform import ARCH_950, ARCH_A2
from ..tiling.records import ARCH35_TILING_DTYPE, TILING_DTYPE
from ..program import Attr, Program, compiled
from ..program.elementwise import elementwise
from ..program.form import V
from .registry import Kernel, Operator, register

__all__ = ["SWISH_GRAD", "SwishGradPass", "derivative_table", "launch", "launch_hand_written", "run", "run_flat"]

NAME = "swish_grad"

# ---------------------------------------------------------------- the programs

_BETA = Attr("beta")

#: The steps after Exp's argument ``t = -beta*x``, per kernel (model sections 2 and 9), on float32 ``t``, ``xb``;
#: ``o`` ends as s'(x).
_A2_BODY = (V.Muls("xb", "xf", _BETA), V.Muls("t", "xb", -1.0), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
            V.Duplicate("o", 1.0), V.Div("o", "o", "t"),              # sigmoid
            V.Duplicate("t", 1.0), V.Sub("t", "t", "o"), V.Mul("xb", "xb", "t"),
            V.Duplicate("t", 1.0), V.Add("xb", "t", "xb"), V.Mul("o", "o", "xb"),   # s'(x)
            V.Mul("y", "gf", "o"))
_950_BODY = (V.Duplicate("one", 1.0),                                # once, before the register loop
             V.Muls("xb", "xf", _BETA), V.Neg("t", "xb"), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
             V.Div("s", "one", "t"),                                  # sigmoid
             V.Sub("o", "one", "s"), V.Mul("o", "o", "xb"),
             V.MulDstAdd("o", "s", "s"),                              # o * s + s, rounded once: s'(x)
             V.Mul("y", "o", "gf"))


def _programs(architecture: str, dtype: str, variant: str) -> Program:
    """SwishGrad's Compute on kernel ``architecture`` for ``dtype``: 16-bit inputs widened
    (``CAST_NONE``) into ``gf``, ``xf`` first and the result narrowed with CAST_RINT last."""
    body = _A2_BODY if architecture == ARCH_A2 else _950_BODY
    name = "SwishGrad" if architecture == ARCH_A2 else "SwishGradArch35"
    return elementwise(name, (("grad", "gf"), ("x", "xf")), body, "y", dtype)

# ---------------------------------------------------------------- the pass


class SwishGradPass(NamedTuple):
    """A SwishGrad launch's parameters: beta, the 16-bit kernels' s'(x)
    table (empty for float32), the dtype code and the kernel (``kernel.ARCH_*``)."""

    beta: np.float32
    table: np.ndarray
    dtype_code: int
    arch: int


@register_pass(SwishGradPass)
@njit(cache=True, error_model="numpy", inline="always")
def _swish_grad_pass(params, in_bufs, o_buf, work, a, b):
    # in_bufs: gradOutput, then x (overwritten with beta * x, as in UB)
    sequence.compute_tile(in_bufs[0], in_bufs[1], o_buf, work[0], a, b, params.beta, params.table,
                          params.dtype_code, params.arch)

# ---------------------------------------------------------------- the launch

_EMPTY_TABLE = np.empty(0, dtype=np.float32)

# s'(x) tables of the 16-bit kernels, keyed by (arch, dtype code, beta bits, saturation).
_DERIVATIVE_TABLES = kernel.TableCache()


def derivative_table(arch: int, info: DTypeInfo, beta: np.float32, saturation: bool = False) -> np.ndarray:
    """s'(x) of kernel ``arch`` for all 65,536 x of a 16-bit dtype, cached.

    ``saturation``: every instruction saturated (the device's saturation
    overflow mode).
    """
    key = (arch, info.code, int(np.float32(beta).view(np.uint32)), bool(saturation))
    return _DERIVATIVE_TABLES.get(key, lambda: sequence.derivative_table(np.float32(beta), info.code, arch,
                                                                         bool(saturation)))


def _bits(arr: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return arr if info is FLOAT32 else arr.view(np.uint16)


def launch(grad: np.ndarray, x: np.ndarray, out: np.ndarray, launch_plan: kernel.Plan, beta: np.float32,
           info: DTypeInfo, arch: int, saturation: bool = False) -> None:
    """Run a planned launch over flat, C-contiguous ``grad``, ``x``, ``out`` of ``info``'s dtype: the
    kernel's program (:func:`_programs`), compiled; ``saturation``: the device's saturation overflow mode."""
    architecture = ARCH_A2 if arch == kernel.ARCH_A2 else ARCH_950
    params = compiled(NAME, architecture, info.name, saturation=saturation).params(beta=beta)
    kernel.run_walk(params, (_bits(grad, info), _bits(x, info)), _bits(out, info), launch_plan)


def launch_hand_written(grad: np.ndarray, x: np.ndarray, out: np.ndarray, launch_plan: kernel.Plan,
                        beta: np.float32, info: DTypeInfo, arch: int, saturation: bool = False) -> None:
    """:func:`launch` by the hand-written pass (and, saturated, the flat loop of :mod:`.saturation`);
    kept until the compiled pass is benchmarked against it."""
    g, xb, o = _bits(grad, info), _bits(x, info), _bits(out, info)
    if saturation:
        _launch_saturated(g, xb, o, beta, info, arch)
        return
    table = _EMPTY_TABLE if info is FLOAT32 else derivative_table(arch, info, beta)
    kernel.run_walk(SwishGradPass(np.float32(beta), table, info.code, arch), (g, xb), o, launch_plan)


def _launch_saturated(g, x, o, beta, info: DTypeInfo, arch: int) -> None:
    table = None if info is FLOAT32 else derivative_table(arch, info, beta, saturation=True)
    with runtime.launch_guard():
        if table is None:
            saturation.launch_saturated_f32(g, x, o, np.float32(beta), arch)
        else:
            saturation.launch_saturated_16(g, x, o, table, info.code)


def run_flat(grad: np.ndarray, x: np.ndarray, out: np.ndarray, beta: np.float32, info: DTypeInfo,
             arch: int = kernel.ARCH_A2, chunk: int = flat.FLAT_CHUNK) -> None:
    """The same arithmetic as :func:`launch` in one flat chunked loop (no tiles,
    no local buffers, no ping-pong), into ``out``; for the benchmark."""
    g, xb, o = _bits(grad, info), _bits(x, info), _bits(out, info)
    table = _EMPTY_TABLE if info is FLOAT32 else derivative_table(arch, info, beta)
    with runtime.launch_guard():
        flat.flat_launch(g, xb, o, chunk, beta, table, info.code, arch)

def run(grad: np.ndarray, x: np.ndarray, out: np.ndarray, tiling, saturation: bool = False) -> None:
    """The kernel of a host :class:`~swishgrad_numba.tiling.Tiling` over flat contiguous arrays (the
    generic path's launch, :func:`swishgrad_numba.ops.call.call`)."""
    arch = kernel.arch_code(tiling.architecture)
    launch_plan = kernel.plan_launch(tiling.fields, tiling.block_dim, arch, out.size)
    launch(grad, x, out, launch_plan, tiling.beta, dtype_info(out.dtype, argname="out.dtype"), arch,
           saturation=saturation)

# ---------------------------------------------------------------- the registry entry


def _device_instructions(architecture: str, tiling, itemsize: int) -> tuple:
    """The vector instructions of one tile (A2) or UB loop (950) for the device-time model: the program's,
    but for the 950's Duplicate, which ``swish_grad_dag.h`` issues once per UB loop before its register loop
    (a fixed cost the model does not charge; the A2's Duplicates fill whole tiles)."""
    instructions = _programs(architecture, "float32" if itemsize == 4 else "float16", "main").instructions()
    return instructions if architecture == ARCH_A2 else tuple(i for i in instructions if i != "Duplicate")


def _host_tiling(numel, info, beta32, platform):
    from ..tiling.host import compute_tiling   # the tiling package imports the registry on use

    return compute_tiling(numel, info, beta32, platform)


SWISH_GRAD = register(Operator(
    NAME, ("aclnnSwishBackwardGetWorkspaceSize", "aclnnSwishBackward"), "SwishGrad",
    {ARCH_A2: Kernel(ARCH_A2, "experimental/activation/swish_grad", "SwishGradTilingData", TILING_DTYPE,
                     "CAST_RINT", run=run, device_instructions=functools.partial(_device_instructions, ARCH_A2),
                     programs=functools.partial(_programs, ARCH_A2)),
     ARCH_950: Kernel(ARCH_950, "activation/swish_grad (arch35)", "SwishGradTilingData", ARCH35_TILING_DTYPE,
                      "CAST_RINT", run=run, device_instructions=functools.partial(_device_instructions, ARCH_950),
                      programs=functools.partial(_programs, ARCH_950))},
    _host_tiling, has_beta=True, inputs=2, saturation=True))
