"""The broadcast walk of a record in SiluGrad's 950 layout (:data:`.arch35.ARCH35_TILING_DTYPE`: the package's
950 broadcast records, GeluGrad's, GeluGradV2's, LeakyReluGrad's and ThresholdBackward's too): the walk's
arguments read from it once per record (:func:`walk_args`), and its launch (:func:`run_record`)."""
from __future__ import annotations

import functools

import numpy as np

from ...kernel import broadcast
from ...kernel.broadcast_identity import identity_pass_len

__all__ = ["run_record", "walk_args"]

_WALK_SCALARS = ("blockFormer", "blockTail", "ubFormer", "ubOuter", "ubTail", "shapeLen", "ubSplitAxis",
                 "dimProductBeforeUbInner", "elemNum")
_WALK_ARRAYS = ("outputDims", "outputStrides", "input0Strides", "input1Strides")


def walk_args(record) -> tuple:
    """The broadcast walk's arguments after the block count (:func:`swishgrad_numba.kernel.broadcast.run_blocks`)
    read from a record with this layout's fields (the package's 950 broadcast records): its scalars as Python
    ints, its arrays as fresh int64 arrays (copies of kept read-only ones). The fields are read once per record
    (by its bytes): a record's field costs about a microsecond, and a call of a few thousand elements read 13
    of them every time."""
    scalars, arrays = _walk_args(record.tobytes(), record.dtype)
    return scalars + tuple(a.copy() for a in arrays)


#: (record bytes, record dtype, the tensors' sizes, blocks) -> the launch's identity pass length, kept.
_IDENTITY: dict = {}
_IDENTITY_KEPT = 256


def run_record(params, dy, x, out, block_num: int, record) -> None:
    """``broadcast.run_blocks(params, dy, x, out, block_num, *walk_args(record))``, the identity check
    (:func:`swishgrad_numba.kernel.broadcast_identity.identity_pass_len`) kept per record and sizes and the walk's
    arguments made only where the walk runs (:func:`swishgrad_numba.kernel.broadcast.run_blocks_known`): the two
    were about a fifth of a 4,096-element call. Call it under the launch guard."""
    key = (record.tobytes(), record.dtype, dy.size, x.size, out.size, block_num)
    pass_len = _IDENTITY.get(key)
    if pass_len is None:
        if len(_IDENTITY) >= _IDENTITY_KEPT:
            _IDENTITY.clear()
        pass_len = _IDENTITY[key] = identity_pass_len(dy.size, x.size, out.size, block_num, *walk_args(record))
    broadcast.run_blocks_known(params, dy, x, out, pass_len, lambda: (block_num, *walk_args(record)))


@functools.lru_cache(maxsize=256)
def _walk_args(record_bytes: bytes, record_dtype: np.dtype) -> tuple:
    r = np.frombuffer(record_bytes, dtype=record_dtype)[0]
    arrays = tuple(np.array([int(v) for v in r[n]], dtype=np.int64) for n in _WALK_ARRAYS)
    for a in arrays:
        a.flags.writeable = False
    return tuple(int(r[n]) for n in _WALK_SCALARS), arrays
