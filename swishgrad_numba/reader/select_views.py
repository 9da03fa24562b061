"""A Select through ``half`` views of ``bfloat16_t`` tensors (issue 43)::

    Select(y.ReinterpretCast<half>(), mask, x.ReinterpretCast<half>(), static_cast<half>(0),
           SELMODE::VSEL_TENSOR_SCALAR_MODE, n);

Select moves bits: each destination element is its source element's 16 bits or the scalar's. Through
views of the other 16-bit float type it is therefore the Select of the buffers themselves, with the scalar
that the ``half`` scalar's bits are as a ``bfloat16_t`` (``half`` 0 is ``bfloat16`` +0). :func:`unview` reads
it so where the destination and every tensor source are such views of buffers of one dtype; anything else is
left to the bit views' own checks (:mod:`.bitviews`).
"""
from __future__ import annotations

import numpy as np

from .abstract import Tensor, refuse
from .values import CNum

__all__ = ["unview"]

def unview(machine, node, op, args):
    """``args`` of ``op`` (``Select``/``Selects`` in program order, mask last before the count) with the views
    replaced by their buffers (see the module), or ``args`` as they are."""
    views = getattr(machine, "bit_views", {})
    values = [args[0], args[1]] + ([args[2]] if op == "Select" else [])
    bases = [views.get(t.key) if isinstance(t, Tensor) else None for t in values]
    if None in bases:
        return args
    kinds = {(t.dtype, machine.dtypes.get(b)) for t, b in zip(values, bases)}
    if kinds != {("float16", "bfloat16")}:
        return args
    out = [Tensor(b, "bfloat16") for b in bases]
    if op == "Selects":
        out.append(_half_bits_as_bfloat16(node, args[2]))
    return out + list(args[3:])


def _half_bits_as_bfloat16(node, k):
    """The ``half`` scalar ``k``'s 16 bits read as a ``bfloat16_t`` (the high half of a float32's)."""
    if not isinstance(k, CNum) or isinstance(k.value, bool) or not isinstance(k.value, (int, float)):
        refuse(node, "Select's scalar through a ReinterpretCast view", "a constant is read")
    with np.errstate(over="ignore"):
        bits = int(np.float16(k.value).view(np.uint16))
    return CNum(float(np.uint32(bits << 16).view(np.float32)), "float")
