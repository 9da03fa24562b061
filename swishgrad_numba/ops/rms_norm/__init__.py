"""RmsNorm (aclnnRmsNorm, issue 42): the first row-wise operator, on the engine's row machine; in the described
form (issue 40), :mod:`.description` (the "rows" kernel kind; every face generated, torch's too).

:mod:`.host_a2` the A2 host tiling, :mod:`.kernel_a2` the A2 kernel's row streams and schedule,
:mod:`.kernel_950` the Ascend 950 host and full_load kernel, :mod:`.kernel_950_split` its split kernel,
:mod:`.api` the tools' helpers. ``rms_norm`` here is the generated face.
"""
from .description import DESCRIPTION
from .host_a2 import A2Tiling, a2_tiling

__all__ = ["rms_norm", "A2Tiling", "a2_tiling", "DESCRIPTION"]


def __getattr__(name):   # the generated face, made on first use (faces.functional imports the ops package)
    if name == "rms_norm":
        from ...faces.functional import face

        return face("rms_norm")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
