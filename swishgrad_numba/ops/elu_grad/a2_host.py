"""EluGradV2 on the Atlas A2: the host tiling (``experimental/activation/elu_grad_v2/op_host/elu_grad_v2_tiling.cpp:
200-420``), the record and the schedule modes. The kernel classes and the launch are :mod:`.a2`."""
from __future__ import annotations

import numpy as np

from ...dtypes import DTypeInfo
from ...platform import ARCH_A2, Platform
from ...tiling.records import checked_record
from ..registry import OpTiling

__all__ = ["RECORD_DTYPE", "MODES", "CORE_CHUNK", "COMPUTE_CHUNK", "RESERVED_UB", "BLOCK", "host_tiling"]

_U32 = ("totalLength", "tileDataNum", "coreNum", "bigCoreNum", "bigCoreDataNum", "smallCoreDataNum",
        "lastCoreDataNum", "bufferOpen", "computeChunk")
#: ``EluGradV2TilingData`` (``elu_grad_v2_tiling_data.h:28-45``), 52 bytes.
RECORD_DTYPE = np.dtype([(n, "<u4") for n in _U32] + [("alpha", "<f4"), ("scale", "<f4"), ("inputScale", "<f4"),
                        ("isResult", "u1"), ("reserved", "u1", (3,))])
assert RECORD_DTYPE.itemsize == 52

CORE_CHUNK, COMPUTE_CHUNK, RESERVED_UB, BLOCK = 1024, 4096, 1024, 256   # elu_grad_v2_tiling_data.h:19-26
#: The schedule modes (``elu_grad_v2_tiling_key.h:19-26``); the tiling key is the mode.
MODES = ("SAFE_EXP", "SAFE_RESULT", "SINGLE_TILE_EXP", "SINGLE_TILE_RESULT", "MIXED_EXP_FAST", "MIXED_RESULT_FAST",
         "FLOAT16_EXP_FAST", "FLOAT16_RESULT_FAST")


def _near(v, w=1.0) -> bool:
    """``IsNearlyEqual`` (host: ``|v - w| <= 1e-3f`` in float)."""
    with np.errstate(all="ignore"):
        return bool(abs(np.float32(v) - np.float32(w)) <= np.float32(1e-3))


def _max_tile(ub: int, b: int, buffers: int, float_bufs: int) -> int:
    """``GetMaxTileDataNum`` (:161-183)."""
    blk = BLOCK // b
    scratch = float_bufs * COMPUTE_CHUNK * 4 + COMPUTE_CHUNK + RESERVED_UB
    if ub <= scratch:
        return blk
    cap = (ub - scratch) // (buffers * 3 * b)
    return max(cap // blk * blk, blk) if cap else blk


def host_tiling(numel: int, info: DTypeInfo, alpha, scale, input_scale, is_result: bool,
                platform: Platform) -> OpTiling:
    """``TilingFuncEluGradV2`` for ``numel`` (>= 1) elements of one dtype (input and output alike)."""
    b, n, cores = info.itemsize, int(numel), min(platform.core_num, 64)
    blk, ceil = BLOCK // b, (lambda v, d: -(-v // d))
    f16_fast = (info.name == "float16" and not is_result and _near(alpha) and _near(scale) and _near(input_scale)
                and n % blk == 0 and n >= 4 * CORE_CHUNK)
    mixed_fast = info.name == "bfloat16" and n % blk == 0 and n >= 4 * CORE_CHUNK
    fast = f16_fast or mixed_fast
    mode = 1 if is_result else 0
    float_bufs = 2 if fast else (1 if b == 4 else 3)
    dbl, sgl = _max_tile(platform.ub_size, b, 2, float_bufs), _max_tile(platform.ub_size, b, 1, float_bufs)
    used = max(min(cores, ceil(n, CORE_CHUNK), max(ceil(n * b, BLOCK), 1)), 1)
    avg, blocks = ceil(n, used), ceil(n * b, BLOCK)
    values = dict(totalLength=n, computeChunk=COMPUTE_CHUNK, alpha=alpha, scale=scale, inputScale=input_scale,
                  isResult=int(is_result))
    if n <= CORE_CHUNK:
        mode = 3 if is_result else 2
        values.update(tileDataNum=min(max(ceil(n, blk) * blk, blk), sgl), coreNum=1, lastCoreDataNum=n)
        return _tiling(values, 1, mode)
    target = 2 if fast else ((3 if is_result else 4) if b == 4 else
                             ((3 if is_result else 2) if info.name == "float16" else 2))
    prefer_single = not fast and ((info.name == "bfloat16" and is_result and avg <= sgl)
                                  or (b != 4 and avg <= 2 * CORE_CHUNK))
    buffer_open, tiles = 0, 1
    if fast and not prefer_single and avg >= target * CORE_CHUNK:
        buffer_open, tiles = 1, target
    elif fast and not prefer_single and b == 4 and avg >= 2 * CORE_CHUNK:
        buffer_open, tiles = 1, 2
    tile = max(ceil(ceil(avg, tiles), blk) * blk, blk)
    if not fast:
        buffer_open = int((b != 4 or not is_result) and dbl >= COMPUTE_CHUNK)
        tile = min(COMPUTE_CHUNK, dbl if buffer_open else sgl)
    elif buffer_open:
        tile = min(tile, dbl)
    else:
        tile = min(ceil(avg, blk) * blk, sgl)
    tile = max(tile, blk)
    small_blocks, big = blocks // used, blocks % used
    small, big_data = small_blocks * blk, (small_blocks + (big > 0)) * blk
    last = used - 1
    start = 0 if used == 1 else (last * big_data if last < big else big * big_data + (last - big) * small)
    last_len = n if used == 1 else max(n - start, 0)
    biggest = big_data if big else small
    if buffer_open and ceil(biggest, tile) < 2:
        buffer_open, tile = 0, max(min(ceil(avg, blk) * blk, sgl), blk)
    if buffer_open == 0 and tile >= biggest and avg <= CORE_CHUNK:
        mode = 3 if is_result else 2
    elif f16_fast:
        mode = 6
    elif mixed_fast:
        mode = 5 if is_result else 4
    values.update(tileDataNum=tile, coreNum=used, bigCoreNum=big, bigCoreDataNum=big_data, smallCoreDataNum=small,
                  lastCoreDataNum=last_len, bufferOpen=buffer_open)
    return _tiling(values, used, mode)


def _tiling(values: dict, block_dim: int, mode: int) -> OpTiling:
    return OpTiling("elu_grad", ARCH_A2, checked_record(RECORD_DTYPE, values), block_dim, mode, 0)
