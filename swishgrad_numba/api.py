"""The everyday entry point: :func:`swish_backward`."""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict

import numpy as np

from . import kernel
from .dtypes import bfloat16, canonical_dtype, to_float32
from .platform import REFERENCE_PLATFORM, Platform
from .tiling import TILING_FIELDS, Tiling, compute_tiling

__all__ = ["swish_backward", "run_tiling"]

# Numba's default "workqueue" threading layer aborts the process when two
# Python threads enter parallel code at once. Launches are therefore
# serialised by this lock; each launch still uses every Numba thread.
_LAUNCH_LOCK = threading.RLock()

# s'(x) tables of the 16-bit kernels, keyed by (dtype code, beta bits).
_TABLE_CACHE: "OrderedDict[tuple[int, int], np.ndarray]" = OrderedDict()
_TABLE_CACHE_SIZE = 16

# Launches below this many elements run on the calling thread: waking the
# thread pool costs more than the work.
_SERIAL_BELOW = 1 << 15

# run_tiling refuses a record whose launch would do more work than
# _WORK_FACTOR * numel + _SLACK (cores + tiles + elements moved), or whose
# offsets could leave int64 (_OFFSET_LIMIT).
_WORK_FACTOR = 4
_SLACK = 1 << 16
_OFFSET_LIMIT = 1 << 62
# The kernel's local buffers hold at most numel + _BUFFER_EXTRA elements.
_BUFFER_EXTRA = 64

_DTYPE_CODES = {
    np.dtype(np.float32): kernel.DTYPE_FLOAT32,
    np.dtype(np.float16): kernel.DTYPE_FLOAT16,
    bfloat16: kernel.DTYPE_BFLOAT16,
}


def _derivative_table(dtype_code: int, beta: np.float32) -> np.ndarray:
    key = (dtype_code, int(np.float32(beta).view(np.uint32)))
    table = _TABLE_CACHE.get(key)
    if table is None:
        table = kernel.derivative_table_16(np.float32(beta), dtype_code)
        _TABLE_CACHE[key] = table
        if len(_TABLE_CACHE) > _TABLE_CACHE_SIZE:
            _TABLE_CACHE.popitem(last=False)
    else:
        _TABLE_CACHE.move_to_end(key)
    return table


def tiling_fields(record) -> np.ndarray:
    """The eight integer fields of a tiling record as an int64 array."""
    return np.array([int(record[name]) for name in TILING_FIELDS[:-1]], dtype=np.int64)


def _kernel_fields(record, block_dim: int, numel: int):
    """The int64 fields and block dim to launch for a record, or None when no core would run a tile.

    Reads the uint64 fields as Python ints and rewrites them into a launch
    that writes exactly the same elements (the result does not depend on
    which core computes an element) with every number inside int64: the
    fields of a core class with no launched core, or whose cores run no
    tile, are zeroed (such a class at the front keeps one idle core that
    carries the start of the next); ``coreDataNum`` is clamped to ``numel``,
    ``tileDataNum`` and the tails to ``numel + 64`` (the local buffer's most;
    offsets that were past the tensor stay past it). Raises ValueError when
    the launch would do more than ``4 * numel + 65536`` units of work (a
    core, a tile, an element moved, each counted once) or its offsets
    could overflow int64.
    """
    f = {name: int(record[name]) for name in TILING_FIELDS[:-1]}
    small, big = f["smallCoreDataNum"], f["bigCoreDataNum"]
    n_big = min(f["tailBlockNum"], block_dim)
    n_small = block_dim - n_big
    limit = numel + _BUFFER_EXTRA
    tile = min(f["tileDataNum"], limit)
    big_runs = n_big > 0 and f["finalBigTileNum"] > 0
    small_runs = n_small > 0 and f["finalSmallTileNum"] > 0
    if not big_runs and not small_runs:
        return None
    out = dict.fromkeys(TILING_FIELDS[:-1], 0)
    out["tileDataNum"] = tile
    if big_runs:
        out.update(bigCoreDataNum=min(big, numel), finalBigTileNum=f["finalBigTileNum"],
                   bigTailDataNum=min(f["bigTailDataNum"], limit), tailBlockNum=n_big)
    if small_runs:
        out.update(smallCoreDataNum=min(small, numel), finalSmallTileNum=f["finalSmallTileNum"],
                   smallTailDataNum=min(f["smallTailDataNum"], limit))
        if not big_runs and n_big:
            # idle big cores in front: one idle core whose bigCoreDataNum is the first small start
            first = big * n_big
            if first >= numel:
                return None
            out.update(bigCoreDataNum=first, tailBlockNum=1)
            n_big = 1
        block_dim = n_big + n_small
    else:
        block_dim = n_big
    work = block_dim
    for ncores, tiles, tail in ((n_big, out["finalBigTileNum"], out["bigTailDataNum"]),
                                (block_dim - n_big, out["finalSmallTileNum"], out["smallTailDataNum"])):
        if tiles:
            work += ncores * (tiles + (tiles - 1) * tile + tail)
    if work > _WORK_FACTOR * numel + _SLACK:
        raise ValueError(
            f"the tiling would make the kernel do about {work} units of work (cores + tiles + elements moved) "
            f"for a tensor of {numel} elements, more than {_WORK_FACTOR}*numel + {_SLACK}; "
            "validate the tiling first")
    # every number the kernel forms is below this: the products of SPEC's start
    # formula, then a start plus its core's tiles ((tiles - 1) * tile <= work)
    # and the next tile
    b, s = out["bigCoreDataNum"], out["smallCoreDataNum"]
    if (b + abs(b - s)) * block_dim + work + 2 * limit >= _OFFSET_LIMIT:
        raise ValueError("the tiling's offsets do not fit in int64 arithmetic for this launch; "
                         "validate the tiling first")
    return np.array([out[name] for name in TILING_FIELDS[:-1]], dtype=np.int64), block_dim


def run_tiling(grad: np.ndarray, x: np.ndarray, out: np.ndarray, tiling: Tiling) -> np.ndarray:
    """Run the emulated kernel over flat contiguous arrays with a given tiling.

    Parameters
    ----------
    grad, x, out : numpy.ndarray
        1-D, C-contiguous, one supported dtype, one size.
    tiling : Tiling
        Any record and block dim. The kernel writes the elements the
        tiling's cores cover (SPEC section 4), never outside the arrays;
        elements no core covers keep their value in ``out``. A tiling that
        :func:`~swishgrad_numba.validation.validate_tiling` accepts for
        ``out.size`` elements covers each element once.

    Returns
    -------
    numpy.ndarray
        ``out``.

    Raises
    ------
    ValueError
        For bad arrays, ``tiling.block_dim < 1``, or a record whose launch
        would take more than about ``4 * out.size + 65536`` units of work
        (cores, tiles and elements moved) or whose offsets overflow int64.
    """
    dt = canonical_dtype(out.dtype, argname="out.dtype")
    for name, arr in (("grad", grad), ("x", x), ("out", out)):
        if arr.ndim != 1 or not arr.flags.c_contiguous or arr.dtype != dt:
            raise ValueError(f"{name} must be a 1-D C-contiguous {dt.name} array")
    if grad.size != out.size or x.size != out.size:
        raise ValueError("grad, x and out must have the same size")
    block_dim = int(tiling.block_dim)
    if block_dim < 1:
        raise ValueError(f"tiling.block_dim must be >= 1, got {block_dim}")
    if out.size == 0:
        return out
    launch = _kernel_fields(tiling.data, block_dim, out.size)
    if launch is not None:
        fields, block_dim = launch
        _launch(grad, x, out, fields, block_dim, np.float32(tiling.data["sconf"]), _DTYPE_CODES[dt])
    return out


_EMPTY_TABLE = np.empty(0, dtype=np.float32)


def _launch(grad, x, out, fields, block_dim, beta, code):
    """Launch the kernel on checked flat arrays (no validation here)."""
    if code == kernel.DTYPE_FLOAT32:
        g_bits, x_bits, o_bits = grad, x, out
    else:
        g_bits, x_bits, o_bits = grad.view(np.uint16), x.view(np.uint16), out.view(np.uint16)
    launch = kernel.swish_grad_launch_serial if out.size < _SERIAL_BELOW else kernel.swish_grad_launch
    with _LAUNCH_LOCK:
        table = _EMPTY_TABLE if code == kernel.DTYPE_FLOAT32 else _derivative_table(code, beta)
        launch(g_bits, x_bits, o_bits, fields, block_dim, beta, table, code)


@functools.lru_cache(maxsize=512)
def _host_tiling(numel: int, dtype: np.dtype, platform: Platform):
    """Integer fields (read-only int64 array) and block dim of the host tiling.

    They do not depend on beta, so one entry serves every beta; repeated
    calls on one shape skip the host tiling.
    """
    tiling = compute_tiling(numel, dtype, platform=platform)
    fields = tiling_fields(tiling.data)
    fields.flags.writeable = False
    return fields, tiling.block_dim


def _as_input(value, argname: str) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{argname} must be a numpy.ndarray, got {type(value).__name__}")
    canonical_dtype(value.dtype, argname=f"{argname}.dtype")
    return value


def swish_backward(grad_output, x, beta=1.0, *, out=None, platform: Platform | None = None):
    """Gradient of Swish, ``grad_output * s'(x)``, exactly as the NPU kernel computes it.

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        Same shape and dtype: float32, float16 or ``ml_dtypes.bfloat16``. Any
        shape (0-d included) and any strides.
    beta : float
        The Swish beta (``sconf``); rounded to float32 once.
    out : numpy.ndarray, optional
        Array of the same shape and dtype to write the result into; may be a
        non-contiguous view.
    platform : Platform, optional
        Platform whose tiling decomposes the work (the result does not depend
        on it); the SPEC's reference platform by default.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.
    """
    grad_output = _as_input(grad_output, "grad_output")
    x = _as_input(x, "x")
    if grad_output.dtype != x.dtype:
        raise TypeError(f"grad_output and x must have the same dtype, got {grad_output.dtype} and {x.dtype}")
    if grad_output.shape != x.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape}")
    beta32 = to_float32(beta, argname="beta")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
        if out.dtype != x.dtype:
            raise TypeError(f"out must have dtype {x.dtype}, got {out.dtype}")
        if out.shape != x.shape:
            raise ValueError(f"out must have shape {x.shape}, got {out.shape}")
        if not out.flags.writeable:
            raise ValueError("out must be writeable")
    if x.size == 0:
        return np.empty(x.shape, dtype=x.dtype) if out is None else out

    flat_g = np.ascontiguousarray(grad_output).reshape(-1)
    flat_x = np.ascontiguousarray(x).reshape(-1)
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, grad_output) \
        and not np.shares_memory(out, x)
    result = out if direct else np.empty(x.shape, dtype=x.dtype)
    fields, block_dim = _host_tiling(x.size, x.dtype, platform or REFERENCE_PLATFORM)
    _launch(flat_g, flat_x, result.reshape(-1), fields, block_dim, beta32, _DTYPE_CODES[x.dtype])
    if out is not None and not direct:
        out[...] = result
        return out
    return result
