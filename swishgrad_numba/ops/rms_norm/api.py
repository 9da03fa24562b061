"""RmsNorm's helpers for the tools (issue 42; issue 40 moved the functional face to the generated one,
:mod:`swishgrad_numba.faces.rows`, from :mod:`.description`): the argument rules and the host tiling of these
shapes on a platform.
"""
from __future__ import annotations

import numpy as np

from ...platform import Platform, modelled_platform, unmodelled_soc
from .description import DESCRIPTION, MODELLED_SOCS, rstd_shape
from .host_a2 import a2_tiling
from .kernel_950 import arch35_tiling

__all__ = ["rstd_shape", "check_inputs", "tiling_for", "MODELLED_SOCS", "socs_refusal"]


def check_inputs(x, gamma, epsilon) -> np.float32:
    """The functional face's rules on x, gamma and epsilon (its messages); epsilon as its float32."""
    from ...faces.rows import checked

    _d, _dtypes, _shapes, attrs, _platform = checked(DESCRIPTION, {"x": x, "gamma": gamma, "epsilon": epsilon,
                                                                   "platform": None})
    return attrs["epsilon"]


def socs_refusal(platform: Platform) -> str | None:
    """Why the platform's RmsNorm kernel is not modelled, or None."""
    return unmodelled_soc(platform, "RmsNorm", MODELLED_SOCS)


def checked_platform(platform) -> Platform:
    return modelled_platform(platform, "rms_norm", "RmsNorm", MODELLED_SOCS)


def tiling_for(x_shape, gamma, epsilon, x_dtype, platform=None):
    """The host tiling of these shapes on the platform's kernel (:class:`.host_a2.A2Tiling` or
    :class:`.kernel_950.Arch35Tiling`), for tools."""
    platform = checked_platform(platform)
    n = int(np.prod(gamma.shape))
    rows = int(np.prod(x_shape)) // n
    tiling = a2_tiling if platform.architecture == "a2" else arch35_tiling
    return tiling(rows, n, x_dtype, gamma.dtype, np.float32(epsilon), platform)
