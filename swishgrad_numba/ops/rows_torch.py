"""How a row operator's torch face is formed (issue 40): :class:`RowsTorch`, a description's ``torch_rows`` field,
read by :mod:`swishgrad_numba.faces.torch_rows`. Plain data; nothing here imports PyTorch."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

__all__ = ["RowsTorch", "JVPS"]

#: How the forward's tangent is formed from the backward operator's kernel: ``"halves"``: the tangent split into
#: halves along the axis, each half fed to the backward kernel as its gradient and that half of its result kept,
#: the two added in the dtype (SwiGlu: ``da * dy/da + db * dy/db``).
JVPS = ("halves",)


@dataclass(frozen=True)
class RowsTorch:
    """A row operator's torch face (its description's ``torch_module`` and ``backward`` name the module and the
    backward operator, whose kernel is the gradient; this says the rest).

    functions : the public names ``(forward function, backward function, forward Function, backward Function)``
        (``swishgrad_numba.torch.<name>``).
    jvp : one of :data:`JVPS`: how the forward's tangent comes from the backward kernel.
    fallback : ``fallback(grad, x, d) -> grad_x`` in float64 by plain PyTorch, where a platform has no backward
        kernel (the launch raises NotImplementedError), rounded once to x's dtype by the face.
    second : ``second(grad, x, ggx, d, needs) -> (d_grad, d_x)``: the backward pass differentiated (no kernel
        computes it), float64, each rounded once to its input's dtype by the face; ``needs`` the two flags.
    second_jvp : ``second_jvp(grad, x, d_grad, d_x, d) -> tangent`` of the backward (float64; either tangent None).
    names : the torch backward function's argument names where they are not the backward operator's inputs'
        (``{"grad_output": "grad"}``), in its signature and its messages.
    """

    functions: tuple
    jvp: str
    fallback: Callable
    second: Callable
    second_jvp: Callable
    names: Mapping = field(default_factory=dict)
