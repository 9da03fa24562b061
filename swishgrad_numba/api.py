"""The everyday entry point: :func:`swish_backward`."""
from __future__ import annotations

import functools
from collections import OrderedDict

import numpy as np

from . import kernel, runtime
from .dtypes import bfloat16, canonical_dtype, to_float32
from .platform import REFERENCE_PLATFORM, Platform
from .tiling import TILING_FIELDS, Tiling, compute_tiling

__all__ = ["swish_backward", "run_tiling"]

# s'(x) tables of the 16-bit kernels, keyed by (dtype code, beta bits).
_TABLE_CACHE: "OrderedDict[tuple[int, int], np.ndarray]" = OrderedDict()
_TABLE_CACHE_SIZE = 16

# Launches below this many elements run on the calling thread: waking the
# thread pool costs more than the work.
_SERIAL_BELOW = 1 << 15

_FIELD_LIMIT = 1 << 40
_SLACK = 1 << 16

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


def run_tiling(grad: np.ndarray, x: np.ndarray, out: np.ndarray, tiling: Tiling) -> np.ndarray:
    """Run the emulated kernel over flat contiguous arrays with a given tiling.

    ``grad``, ``x`` and ``out`` must be 1-D, C-contiguous and of one
    supported dtype; ``tiling`` must describe exactly ``out.size`` elements
    (as :func:`compute_tiling` makes it). Returns ``out``.
    """
    dt = canonical_dtype(out.dtype, argname="out.dtype")
    for name, arr in (("grad", grad), ("x", x), ("out", out)):
        if arr.ndim != 1 or not arr.flags.c_contiguous or arr.dtype != dt:
            raise ValueError(f"{name} must be a 1-D C-contiguous {dt.name} array")
    if grad.size != out.size or x.size != out.size:
        raise ValueError("grad, x and out must have the same size")
    fields = tiling_fields(tiling.data)
    # Refuse records whose numbers overflow int64 arithmetic or whose walk
    # would take absurdly long; the kernel clamps every index and buffer.
    if fields.min() < 0 or fields.max() > _FIELD_LIMIT:
        raise ValueError("tiling fields are out of range for this tensor; validate the tiling first")
    block_dim = tiling.block_dim
    if not 1 <= block_dim <= out.size + _SLACK:
        raise ValueError(f"tiling.block_dim must be between 1 and numel + {_SLACK}, got {block_dim}")
    # Bound the walk: a sound tiling has at most about one tile per element.
    big_cores = min(int(fields[7]), block_dim)
    if big_cores * int(fields[2]) + (block_dim - big_cores) * int(fields[3]) > 4 * out.size + _SLACK:
        raise ValueError("tiling has far more tiles than the tensor has elements; validate the tiling first")
    _launch(grad, x, out, fields, tiling.block_dim, np.float32(tiling.data["sconf"]), _DTYPE_CODES[dt])
    return out


_EMPTY_TABLE = np.empty(0, dtype=np.float32)


def _launch(grad, x, out, fields, block_dim, beta, code):
    """Launch the kernel on checked flat arrays (no validation here)."""
    if code == kernel.DTYPE_FLOAT32:
        g_bits, x_bits, o_bits = grad, x, out
    else:
        g_bits, x_bits, o_bits = grad.view(np.uint16), x.view(np.uint16), out.view(np.uint16)
    launch = kernel.swish_grad_launch_serial if out.size < _SERIAL_BELOW else kernel.swish_grad_launch
    # The workqueue threading layer is not thread-safe: one launch at a time
    # (each still uses every Numba thread); see runtime.
    with runtime.launch_lock():
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


def _check_array(value, argname: str) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{argname} must be a numpy.ndarray, got {type(value).__name__}")
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(f"{argname} must be a plain numpy.ndarray, not a masked array (the kernel has no "
                        f"mask and would compute masked elements too); pass {argname}.filled(...) or .data")
    return value


def _as_input(value, argname: str) -> np.ndarray:
    _check_array(value, argname)
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
        _check_array(out, "out")
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
