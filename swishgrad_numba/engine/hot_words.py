"""A hot block over 32-bit words (issue 39, pairwords): a launch's 16-bit tensors viewed as ``uint32``
(:func:`word_views`, once per launch), and the call of a block's function over them (:func:`run`, jitted code
only), which :func:`.hot_source.block_and_rows` generates for a one-loop block whose inputs are read only by a
widening of bfloat16. :mod:`.hot` registers each block class's function here (:func:`register`) and runs a
whole block at an even offset over words where the launch's views allow it; any other block runs by its element
loop, with the same bits. :func:`per_class` is the jitted call by block class, :mod:`.hot`'s ``hot_block`` too.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

__all__ = ["per_class", "register", "run", "word_views"]

_WORDS: dict = {}          # a hot block's class -> its function over words (Python), :func:`_none` where it has none


def register(cls, function) -> None:
    """Record the function over words of the hot block class ``cls`` (None: it has none)."""
    _WORDS[cls] = _none if function is None else function


def _none(params, in0, in1, in2, out, at, n, scalars, tables, scratch):
    """The function over words of a block that has none: the block not run (-1)."""
    return -1


def per_class(functions: dict, name: str):
    """A function of a hot block's arguments that jitted code calls as ``functions[type(params)]`` (the block's
    class, a NamedTuple: :mod:`.hot`), typed per class; ``name`` for the error of a call from Python."""
    def dispatched(params, in0, in1, in2, out, at, n, scalars, tables, scratch):
        raise NotImplementedError(f"{name} is only callable from jitted code")

    @overload(dispatched)
    def _typed(params, in0, in1, in2, out, at, n, scalars, tables, scratch):
        if isinstance(params, types.BaseNamedTuple):
            return functions.get(params.instance_class)
        return None
    return dispatched


#: The function over words of ``type(params)``'s block (jitted code only), its arrays ``uint32`` views and ``at``
#: and ``n`` counted in elements: whether it flagged the block, or -1 where it did not run it (the block has none,
#: or it is not a whole block at an even offset).
run = per_class(_WORDS, "hot_words.run")


@njit(cache=True, error_model="numpy")
def word_views(ins, out, numel):
    """``(words, paired)``: ``uint32`` views of the launch's tensors' first ``numel`` elements rounded down to
    even (``ins``' three, then ``out``), and whether a block may run over them: 16-bit tensors, each starting on a
    4-byte boundary (a view of another tensor is made, never read)."""
    even = numel - numel % 2
    words = (ins[0][:even].view(np.uint32), ins[1][:even].view(np.uint32), ins[2][:even].view(np.uint32),
             out[:even].view(np.uint32))
    paired = out.itemsize == 2 and out.ctypes.data % 4 == 0 and ins[0].ctypes.data % 4 == 0 \
        and ins[1].ctypes.data % 4 == 0 and ins[2].ctypes.data % 4 == 0
    return words, paired
