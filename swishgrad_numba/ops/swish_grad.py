"""SwishGrad (aclnnSwishBackward) as a registry entry.

SwishGrad came first and its facts live where the package was built around
it: the host tilings and core classes in :mod:`swishgrad_numba.spec`, the
structs in :mod:`swishgrad_numba.tiling.records`, the instruction sequences
in :mod:`swishgrad_numba.kernel.sequence`, the aclnn checks in
:mod:`swishgrad_numba.aclnn.op_api`. This module points the registry at
them; it restates none of them.
"""
from __future__ import annotations

import functools

from ..platform import ARCH_950, ARCH_A2
from ..tiling.records import ARCH35_TILING_DTYPE, TILING_DTYPE
from .registry import Kernel, Operator, register

NAME = "swish_grad"


def _device_instructions(architecture: str, tiling, itemsize: int) -> tuple:
    from .. import kernel

    return kernel.sequence.device_instructions(kernel.arch_code(architecture), itemsize)


def _host_tiling(numel, info, beta32, platform):
    from ..tiling.host import compute_tiling   # the tiling package imports the registry on use

    return compute_tiling(numel, info, beta32, platform)


SWISH_GRAD = register(Operator(
    NAME, ("aclnnSwishBackwardGetWorkspaceSize", "aclnnSwishBackward"), "SwishGrad",
    {ARCH_A2: Kernel(ARCH_A2, "experimental/activation/swish_grad", "SwishGradTilingData", TILING_DTYPE,
                     "CAST_RINT",
                     device_instructions=functools.partial(_device_instructions, ARCH_A2)),
     ARCH_950: Kernel(ARCH_950, "activation/swish_grad (arch35)", "SwishGradTilingData", ARCH35_TILING_DTYPE,
                      "CAST_RINT", device_instructions=functools.partial(_device_instructions, ARCH_950))},
    _host_tiling, has_beta=True, inputs=2))
