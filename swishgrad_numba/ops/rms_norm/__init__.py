"""RmsNorm (aclnnRmsNorm, issue 42): the first row-wise operator, on the engine's row machine.

:mod:`.host_a2` the A2 host tiling, :mod:`.kernel_a2` the A2 kernel's row streams and schedule,
:mod:`.kernel_950` the Ascend 950 host and full_load kernel, :mod:`.kernel_950_split` its split kernel,
:mod:`.api` the functional ``rms_norm``.
"""
from .api import rms_norm
from .host_a2 import A2Tiling, a2_tiling

__all__ = ["rms_norm", "A2Tiling", "a2_tiling"]
