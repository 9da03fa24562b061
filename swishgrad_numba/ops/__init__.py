"""The operators, one module each, in one registry (:mod:`.registry`).

Registered here:

- ``"swish"`` and ``"silu"``: the Swish forward kernel (:mod:`.swish`);
  Silu is Swish with scale 1.0.
- ``"silu_grad"``: aclnnSiluBackward -- to be registered by its module
  (``ops/silu_grad.py``).
- ``"swish_grad"``: SwishGrad -- still built into the package (``api``,
  ``kernel``, ``tiling``); to be registered here when it moves into this form.
"""
from .registry import OPERATORS, Kernel, Operator, OpTiling, get_operator, register
from . import swish  # noqa: F401  (registers "swish" and "silu")
# Next: "silu_grad" (ops/silu_grad.py) and "swish_grad" register here the same way.

__all__ = ["OPERATORS", "Kernel", "Operator", "OpTiling", "get_operator", "register"]
