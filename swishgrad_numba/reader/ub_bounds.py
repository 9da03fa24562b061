"""A local buffer's size from its ``InitBuffer`` (issue 43): an instruction past it is refused.

``pipe.InitBuffer(queue, num, bytes)`` gives each of a queue's buffers ``bytes`` bytes,
``pipe.InitBuffer(buf, bytes)`` a ``TBuf`` its ``bytes``. On the device a ``DataCopy`` or a vector call
over more elements than the buffer holds writes (or reads) the unified buffer past it: another
buffer's data, or past UB's end. The emulator keeps each tensor apart and would compute such a
kernel as if it had room, so it is refused instead, at the instruction's line, naming the buffer, its
size in bytes, the instruction and its count:

- when the kernel is read, where the size and the count are constants (a ``DataCopy`` of a fixed
  length);
- at launch, on the kernel's own record (:mod:`.schedule`), where either depends on the tiling: each
  core's copies and vector calls are checked against the sizes its own scalar code gave ``InitBuffer``
  (a part ``buf[n]`` of a buffer from its element ``n``).

A size is taken rounded up to a whole 32-byte block, as ``TPipe::InitBuffer`` pads each buffer
(:data:`swishgrad_numba.spec.arith.INIT_BUFFER_ALIGN`), so a count within the padding is not refused; a size not known where the count is (a run-time value)
is not checked.
"""
from __future__ import annotations

from ..spec.arith import INIT_BUFFER_ALIGN as _BLOCK
from .errors import KernelSourceError
from .objects import Buf, Queue
from .values import is_int

__all__ = ["BYTES", "record_init", "check_count"]

#: Bytes per element of a local tensor's dtype.
BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "uint8": 1, "int8": 1, "int16": 2, "uint16": 2,
         "int32": 4, "uint32": 4}


def record_init(machine, node, args) -> None:
    """``pipe.InitBuffer(...)`` at ``node``: remember the buffer's bytes (None where not a constant)."""
    if len(args) == 3 and isinstance(args[0], Queue):
        size = args[2]
    elif len(args) == 2 and isinstance(args[0], (Queue, Buf)):
        size = args[1]
    else:
        return
    bytes_ = size.value if is_int(size) else None
    machine.__dict__.setdefault("buffer_bytes", {})[args[0].name] = (bytes_, node.at)


def check_count(machine, at, op, key, dtype, count, base=None, offset=0) -> None:
    """Refuse ``op`` at ``at`` (file, line) over ``count`` elements of the tensor ``key`` (of ``dtype``; a
    part of buffer ``base`` from its element ``offset``) where that passes the buffer's ``InitBuffer``."""
    base = key if base is None else base
    size, init = getattr(machine, "buffer_bytes", {}).get(base, (None, None))
    unit = BYTES.get(dtype)
    if size is None or unit is None or not isinstance(count, int):
        return
    need = (offset + count) * unit
    if need > -(-size // _BLOCK) * _BLOCK:
        part = f" from its element {offset}" if offset else ""
        raise KernelSourceError(at[0], at[1], f"{op} over {count} elements of {key}",
                                f"{need} bytes of {dtype}{part}, but buffer {base} holds {size} bytes "
                                f"(InitBuffer at {init[0]}:{init[1]}): on the device it would overrun the buffer")
