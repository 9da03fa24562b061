"""AscendC's ``Divs(dst, src, scalarValue, count)`` (issue 43): each element divided by a scalar, read as
the program form's ``Duplicate`` of the scalar into a temporary and its ``Div``.

asc-devkit writes the call so itself where its source is public: in
``impl/basic_api/dav_l300/kernel_operator_vec_binary_scalar_impl.h`` (and two other platforms' copies of the
same routine, ``RegDivs::Divs`` / ``MicroAPIDivs::Divs``) ``Divs`` is ``Duplicate(dstReg, scalarValue, mask)``
then ``Div(dstReg, srcReg, dstReg, mask)``, for half and float only (``SupportType<T, half, float>``). The
A2's (dav_c220) implementation was not read. The model, on every platform, is the same: the IEEE division
of each element by the scalar, correctly rounded (the program form's ``Div``,
:func:`swishgrad_numba.program.semantics.div`), which is what the Duplicate-then-Div expansion computes
(Duplicate copies the scalar's bits). A device whose Divs multiplies by a reciprocal instead would differ
from the model in the last bit; this is a model choice.

The call becomes two steps at its line, on a temporary ``divs_tmp<line>`` of the tensor's type:
``Duplicate(t, s)``, ``Div(dst, src, t)``. The level-0 forms (mask, repeat parameters), bfloat16 and
integer tensors are refused.
"""
from __future__ import annotations

from .abstract import scalar_call_operands, temporary

__all__ = ["divs"]


def divs(machine, node, args) -> None:
    """Record ``Divs(dst, src, scalar, count)`` (``args`` evaluated) as ``Duplicate`` and ``Div``."""
    dst, src, scalar, count = scalar_call_operands(node, "Divs", args)
    tmp = temporary(machine, f"divs_tmp{node.at[1]}", dst.dtype)
    machine.vector_call(node, "Duplicate", [tmp, scalar, count], trailing=(1,), counted=True)
    machine.vector_call(node, "Div", [dst, src, tmp, count], trailing=(1,), counted=True)
