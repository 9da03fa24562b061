"""``buf.GetWithOffset<T>(len, byteOffset)`` (issue 43): a TBuf's bytes from ``byteOffset`` on, as a ``T`` tensor.

asc-devkit's TBuf::GetWithOffset gives a LocalTensor of ``len`` elements of ``T`` whose address is the
buffer's plus ``byteOffset`` bytes (a multiple of 32). At offset 0 it is the buffer as ``Get<T>()`` gives it;
elsewhere it is a part of the buffer, read as ``buf[n]`` is (:meth:`.calls.CallsMixin.view`: a tensor of its
own, the schedule checking that the parts a core uses do not overlap), its offset counted in ``T``'s
elements. An offset that is not a whole number of ``T``'s elements is refused.
"""
from __future__ import annotations

from .abstract import Tensor, refuse
from .syntax import Index, Member
from .values import CNum, is_int, render

__all__ = ["get_with_offset"]

_BYTES = {"float32": 4, "int32": 4, "uint32": 4, "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2,
          "int8": 1, "uint8": 1}


def get_with_offset(m, node, buf, targs, args):
    """The tensor ``buf.GetWithOffset<T>(len, byteOffset)`` gives (module docstring)."""
    if len(args) != 2 or len(targs) != 1:
        refuse(node, f"{render(node.fn)} with {len(args)} arguments", "GetWithOffset<T>(len, byteOffset)")
    offset = args[1]
    if isinstance(offset, CNum) and is_int(offset) and offset.value == 0:
        return m.tensor(node, buf.name, targs)
    t = m.tensor(node, f"{buf.name}@view", targs)      # the element type, checked as Get<T>()'s
    m.dtypes.pop(f"{buf.name}@view", None)
    size = _BYTES.get(t.dtype, 1)
    if isinstance(offset, CNum):
        if not is_int(offset) or offset.value < 0 or offset.value % size:
            refuse(node, render(node), f"a byte offset that is not a whole number of {t.dtype} elements")
        offset = CNum(offset.value // size, "int64_t")
    index = Index(node.fn.obj if isinstance(node.fn, Member) else node.fn, node.args[1], node.at)
    view = m.view(index, Tensor(buf.name, t.dtype), offset)
    unsigned16 = getattr(m, "unsigned16", set())
    if f"{buf.name}@view" in unsigned16:             # a uint16_t view: a bit pattern only, as Get<uint16_t>()'s
        unsigned16.discard(f"{buf.name}@view")
        unsigned16.add(view.key)
    return view
