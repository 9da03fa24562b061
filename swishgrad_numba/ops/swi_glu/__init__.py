"""SwiGlu (aclnnSwiGlu, issue 41): the first operator with a split walk, on the engine's row machine.

:mod:`.host` the host tiling (both architectures), :mod:`.kernel` the row streams and the per-core schedule,
:mod:`.api` the functional ``swiglu``.
"""
from .api import swiglu, swiglu_backward
from .host import SwiGluTiling, swiglu_tiling

__all__ = ["swiglu", "swiglu_backward", "SwiGluTiling", "swiglu_tiling"]
