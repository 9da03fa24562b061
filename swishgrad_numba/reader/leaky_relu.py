"""AscendC's ``LeakyRelu(dst, src, scalarValue, count)`` in class-style kernels (issue 43), expanded into
the program form's instructions.

asc-devkit (read at 0da921b9) implements the level-2 call as one vector instruction, ``vlrelu``: on the A2
``impl/basic_api/dav_c220/kernel_operator_vec_binary_scalar_impl.h``, ``LeakyReluIntrinsicsImpl`` lines
432-442 (``vlrelu`` at 438) under ``LeakyReluImpl`` lines 467-485 (the count in the counter mask); on the
950 ``impl/basic_api/dav_3510/kernel_operator_vec_binary_scalar_impl.h``, ``RegLeakyRelu::LeakyRelu`` lines
484-490 (``vlrelu`` at 488) under ``LeakyReluImpl`` lines 515-522. Both take half and float only
(``SupportType<T, half, float>``). The API page (``docs/zh/api/SIMD-API/基础API/Memory矢量计算/基础算术/
LeakyRelu.md``, line 39) gives its result: ``dst_i = src_i`` where ``src_i >= 0``, else
``scalarValue * src_i``.

The program form has no such instruction; the call is those three steps at the call's line, on a
temporary ``leakyrelu_tmp<line>`` of the tensor's type and a mask ``leakyrelu_mask<line>``:
``Muls(t, src, s)``, ``CompareScalar(mask, src, 0, GE)``, ``Select(dst, src, t, mask)``. The product is
the instruction's one rounding of ``scalarValue * src_i`` (on half, each step's exact result rounded once
to half, :mod:`.to_program`), the comparison and the selection are exact, so the expansion is the formula
element by element: ``-0.0`` is kept (``-0 >= 0``); a NaN, neither ``>= 0`` nor ``< 0``, is the product's
NaN (the hardware's NaN payload is not known to the model). The level-0 forms (mask, repeat parameters)
and bfloat16 are refused.
"""
from __future__ import annotations

from .abstract import scalar_call_operands, temporary
from .values import CNum

__all__ = ["leaky_relu"]


def leaky_relu(machine, node, args) -> None:
    """Record ``LeakyRelu(dst, src, scalar, count)`` (``args`` evaluated) as its three steps."""
    dst, src, scalar, count = scalar_call_operands(node, "LeakyRelu", args)
    line = node.at[1]
    tmp = temporary(machine, f"leakyrelu_tmp{line}", dst.dtype)
    mask = temporary(machine, f"leakyrelu_mask{line}", "uint8")
    machine.vector_call(node, "Muls", [tmp, src, scalar, count], trailing=(1,), counted=True)
    machine.vector_call(node, "CompareScalar", [mask, src, CNum(0.0, "double"), "GE", count], trailing=(1,),
                        counted=True)
    machine.vector_call(node, "Select", [dst, src, tmp, mask, count], trailing=(1,), counted=True)
