"""Typed views of a raw ``uint8_t`` buffer at byte offsets (issue 43): ping-pong halves chosen by a flag.

A kernel may take one ``TBuf`` as raw bytes (``tmp = buf.Get<uint8_t>()``) and hand-manage its ping and
pong halves: ``x = flag ? tmp[HALF].ReinterpretCast<T>() : tmp[0].ReinterpretCast<T>()``, a DataCopy into
``x``, vector calls on ``x`` and on further views of it (``x.ReinterpretCast<float>()``), the flag flipped
after each tile. Such a view carries no bits of another type: it is a part of the buffer, a tensor of its
own in its own type (as ``buf[n]`` is, :meth:`.calls.CallsMixin.view`), starting at its byte offset.

The reading follows one tile (the flag as it is before the loop); the schedule follows every tile with the
flag's values there, so each tile's views get the byte offsets that tile uses, and
:func:`.schedule._parts_apart` refuses, per tile, two views whose bytes overlap (an in-place widening
Cast of one half into a view over both is refused, not guessed). A byte offset that is not a whole
number of the view's elements, or one not known for the launch, is refused. Because the tiles compute
from their own halves, a view written before the tiles (in ``Init``) and read in them is refused
(:func:`check_prologue`): a later tile's other half would not hold those bytes.
"""
from __future__ import annotations

import re

from .abstract import Tensor, refuse
from .errors import KernelSourceError
from .values import CNum, is_int, render

__all__ = ["is_raw", "byte_view", "byte_index", "check_prologue"]

_FLOATS = ("float32", "float16", "bfloat16")
_BYTES = {"float32": 4, "int32": 4, "float16": 2, "bfloat16": 2, "int16": 2, "int8": 1, "uint8": 1}


def _raw(m) -> dict:
    """A byte view's key -> (the uint8 tensor it views, that tensor's buffer)."""
    return m.__dict__.setdefault("byte_views", {})


def is_raw(m, obj: Tensor, target) -> bool:
    """Whether ``obj.ReinterpretCast<target>()`` is a byte view: ``obj`` a raw byte buffer (or a part of
    one) taken as a float type, or a byte view taken as another float type or back as bytes."""
    if obj.key in _raw(m):
        return target in _FLOATS or target == "uint8"
    return obj.dtype == "uint8" and obj.key not in getattr(m, "bit_views", {}) and target in _FLOATS


def byte_view(m, node, obj: Tensor, target: str) -> Tensor:
    """``obj.ReinterpretCast<T>()`` of a raw byte buffer, its part or a view of either (module docstring)."""
    raw = _raw(m)
    origin = raw[obj.key][0] if obj.key in raw else obj.key        # the uint8 tensor (buffer or part)
    if target == "uint8":
        return Tensor(origin, "uint8")
    parts = m.__dict__.setdefault("views", {})
    buffer = parts[origin][0] if origin in parts else origin
    key = f"{origin}_as_{target}"
    raw[key] = (origin, buffer)
    parts[key] = (buffer, node)
    m.dtypes.setdefault(key, target)
    view_at = getattr(m, "view_at", None)
    if view_at is not None:                       # the schedule: the view's byte offset for this tile
        _, byte, at = view_at.get(origin, (buffer, 0, node))
        size = _BYTES[target]
        if not isinstance(byte, int) or byte % size:
            refuse(node, f"a {target} view from byte {byte}", f"not a whole number of {target} elements")
        view_at[key] = (buffer, byte // size, at)
    return Tensor(key, target)


def byte_index(m, node, view: Tensor, index) -> Tensor:
    """``view[n]`` of a byte view: the view of the same type from ``n`` of its elements on (``n *
    sizeof(T)`` bytes further into its buffer), a part of its own."""
    if isinstance(index, CNum) and is_int(index) and index.value == 0:
        return view
    origin, buffer = _raw(m)[view.key]
    key = f"{origin}_at_{re.sub(r'[^0-9A-Za-z]+', '_', render(node.index)).strip('_')}_{view.dtype}s"
    m.__dict__.setdefault("views", {})[key] = (buffer, node)
    m.dtypes.setdefault(key, "uint8")
    view_at = getattr(m, "view_at", None)
    if view_at is not None:
        if not is_int(index) or index.value < 0:
            refuse(node, render(node), "an offset into a local buffer not known for the launch")
        _, byte, at = view_at.get(origin, (buffer, 0, node))
        view_at[key] = (buffer, byte + index.value * _BYTES[view.dtype], node)
    return byte_view(m, node, Tensor(key, "uint8"), view.dtype)


def check_prologue(file, prologue, raw: dict, names: dict) -> None:
    """Refuse a byte view written before the tiles (module docstring)."""
    for e in prologue:
        if e.kind == "step" and e.step.args and e.step.args[0] in raw:
            s = e.step
            raise KernelSourceError(s.at[0], s.at[1], f"{s.op} into {names.get(s.args[0], s.args[0])} before "
                                    "the tiles", "a typed view of a raw byte buffer is read per tile (its "
                                    "ping or pong half): one written once is not carried to the other half")
