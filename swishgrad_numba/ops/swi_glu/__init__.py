"""SwiGlu and SwiGluGrad (aclnnSwiGlu, aclnnSwiGluGrad; issue 41), on the engine's row machine: in the described
form (issue 40), :mod:`.description` (both operators, the "rows" kernel kind; every face generated),
:mod:`.host` the host tiling (both architectures; :mod:`.host_950` the 950 SwiGluGrad's), :mod:`.kernel`,
:mod:`.kernel_grad`, :mod:`.kernel_grad_950` the row streams and the per-core schedules, :mod:`.api` the tools'
helpers. ``swiglu`` and ``swiglu_backward`` here are the generated faces (the torch faces too: faces/torch_rows.py).
"""
from .description import BACKWARD, FORWARD
from .host import SwiGluTiling, swiglu_tiling

__all__ = ["swiglu", "swiglu_backward", "SwiGluTiling", "swiglu_tiling", "FORWARD", "BACKWARD"]


def __getattr__(name):   # the generated faces, made on first use (faces.functional imports the ops package)
    if name in ("swiglu", "swiglu_backward"):
        from ...faces.functional import face

        return face({"swiglu": "swiglu", "swiglu_backward": "swiglu_grad"}[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
