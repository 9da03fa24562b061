"""SwishGrad (aclnnSwishBackward): its kernels' data for :mod:`.description`, and its launch.

Its structs and host tiling are in :mod:`.host` (on the templates' arithmetic,
:mod:`swishgrad_numba.spec`), its aclnn checks in :mod:`.description` (``op_api_checks``). This module
holds the kernels with their programs (the instruction sequences of both kernels), and launches the
compiled one on the generic walk (:mod:`swishgrad_numba.kernel.walk`).
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2
from ...program import Attr, Program, compiled
from ...program.elementwise import elementwise
from ...program.form import V
from ..registry import Kernel
from .host import ARCH35_TILING_DTYPE, TILING_DTYPE

__all__ = ["NAME", "KERNELS", "launch", "run"]

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

# ---------------------------------------------------------------- the launch


def launch(grad: np.ndarray, x: np.ndarray, out: np.ndarray, launch_plan: kernel.Plan, beta: np.float32,
           info: DTypeInfo, arch: int, saturation: bool = False) -> None:
    """Run a planned launch over flat, C-contiguous ``grad``, ``x``, ``out`` of ``info``'s dtype: the
    kernel's program (:func:`_programs`), compiled; ``saturation``: the device's saturation overflow mode."""
    architecture = ARCH_A2 if arch == kernel.ARCH_A2 else ARCH_950
    params = compiled(NAME, architecture, info.name, saturation=saturation).params(beta=beta)
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel.run_walk(params, (raw(grad), raw(x)), raw(out), launch_plan)


def run(grad: np.ndarray, x: np.ndarray, out: np.ndarray, tiling, saturation: bool = False) -> None:
    """The kernel of a host :class:`~swishgrad_numba.tiling.Tiling` over flat contiguous arrays (the
    generic path's launch, :func:`swishgrad_numba.ops.call.call`)."""
    arch = kernel.arch_code(tiling.architecture)
    launch_plan = kernel.plan_launch(tiling.fields, tiling.block_dim, arch, out.size)
    launch(grad, x, out, launch_plan, tiling.beta, dtype_info(out.dtype, argname="out.dtype"), arch,
           saturation=saturation)

# ---------------------------------------------------------------- the kernels


def _device_instructions(architecture: str, tiling, itemsize: int) -> tuple:
    """The vector instructions of one tile (A2) or UB loop (950) for the device-time model: the program's,
    but for the 950's Duplicate, which ``swish_grad_dag.h`` issues once per UB loop before its register loop
    (a fixed cost the model does not charge; the A2's Duplicates fill whole tiles)."""
    instructions = _programs(architecture, "float32" if itemsize == 4 else "float16", "main").instructions()
    return instructions if architecture == ARCH_A2 else tuple(i for i in instructions if i != "Duplicate")


#: The kernels by architecture.
KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/swish_grad", "SwishGradTilingData", TILING_DTYPE, "CAST_RINT",
                    run=run, device_instructions=functools.partial(_device_instructions, ARCH_A2),
                    programs=functools.partial(_programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/swish_grad (arch35)", "SwishGradTilingData", ARCH35_TILING_DTYPE,
                     "CAST_RINT", run=run, device_instructions=functools.partial(_device_instructions, ARCH_950),
                     programs=functools.partial(_programs, ARCH_950)),
}
