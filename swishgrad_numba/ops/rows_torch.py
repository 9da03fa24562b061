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
    backward operator, whose kernel is the gradient; this says the rest). With ``gradient`` the operator has no
    backward operator (RmsNorm: no RmsNormGrad emulated): its gradients are float64 formulas, and only
    ``functions``, ``gradient``, ``tangent``, ``weight`` and ``names`` apply.

    functions : the public names ``(forward function, backward function, forward Function, backward Function)``
        (``swishgrad_numba.torch.<name>``); with ``gradient``: ``(function, Function, Module)``.
    jvp : one of :data:`JVPS`: how the forward's tangent comes from the backward kernel.
    fallback : ``fallback(grad, x, d) -> grad_x`` in float64 by plain PyTorch, where a platform has no backward
        kernel (the launch raises NotImplementedError), rounded once to x's dtype by the face.
    second : ``second(grad, x, ggx, d, needs) -> (d_grad, d_x)``: the backward pass differentiated (no kernel
        computes it), float64, each rounded once to its input's dtype by the face; ``needs`` the two flags.
    second_jvp : ``second_jvp(grad, x, d_grad, d_x, d) -> tangent`` of the backward (float64; either tangent None).
    names : the torch backward function's argument names where they are not the backward operator's inputs'
        (``{"grad_output": "grad"}``), in its signature and its messages; with ``gradient``: the torch
        function's and module's attribute names (``{"epsilon": "eps"}``).
    gradient : ``gradient(gy, tensors, attrs, needs) -> one gradient per tensor input (or None)`` in float64 by
        plain PyTorch, each rounded once to its input's dtype by the face (``needs`` the inputs' flags).
    tangent : ``tangent(tensors, tangents, attrs) -> the output's tangent`` in float64 (a tangent None where
        absent), rounded once to the first input's dtype.
    weight : the input the module holds as ``weight`` (torch.nn.RMSNorm's form: ``M(normalized_shape, <attributes>,
        elementwise_affine=True, *, dtype=None, platform=None)``, ones of ``normalized_shape`` in ``dtype``,
        float32 by default, a parameter or, without ``elementwise_affine``, a buffer; cast to x's dtype where the
        description's ``dtypes_with`` does not take its own).
    """

    functions: tuple
    jvp: str | None = None
    fallback: Callable | None = None
    second: Callable | None = None
    second_jvp: Callable | None = None
    names: Mapping = field(default_factory=dict)
    gradient: Callable | None = None
    tangent: Callable | None = None
    weight: str | None = None
