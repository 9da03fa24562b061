"""The device-time model's argument checks, shared by :func:`.estimate.estimate`, :func:`.custom.estimate_custom`,
the broadcast walk's estimate and ``timeline --compare``: each names the argument and the rule."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import dtype_info
from .params import Params, default_params

__all__ = ["MAX_TILE_ELEMENTS", "MAX_CORES", "MAX_PIPE_BUFFERS", "check_params", "check_buffer_num",
           "positive_int", "custom_itemsize"]

#: The longest tile ``estimate_custom`` takes, in elements (far past any unified buffer; longer ones would
#: overflow the byte counts).
MAX_TILE_ELEMENTS = 1 << 40
#: The most cores ``estimate_custom`` takes.
MAX_CORES = 1 << 16
# Counts (buffers, DataCopy bursts, inputs) past this are refused: they fit no device and overflow int64 sums.
_MAX_COUNT = 1 << 40
def check_params(params, platform) -> Params:
    if params is None:
        return default_params(platform)
    if not isinstance(params, Params):
        raise TypeError(f"params must be a devicetime.Params (see load_params), got {type(params).__name__}")
    return params


#: AscendC ``TPipe::InitBuffer``: the buffers of one kernel's queues number at most 64 in all.
MAX_PIPE_BUFFERS = 64


def check_buffer_num(value, queues: int, argname: str = "buffer_num") -> int:
    """``value`` as buffers per queue of a kernel with ``queues`` queues (its inputs and outputs): an integer
    >= 1 whose ``queues`` queues hold at most :data:`MAX_PIPE_BUFFERS` buffers (the device's rule), else a
    TypeError / ValueError naming ``argname`` and the rule. The estimate and ``--compare`` check it alike."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{argname} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{argname} must be >= 1, got {value}")
    most = MAX_PIPE_BUFFERS // queues
    if value > most:
        raise ValueError(f"{argname} must be at most {most}, got {value}: a kernel's queues hold at most "
                         f"{MAX_PIPE_BUFFERS} buffers in all (AscendC TPipe::InitBuffer), and this one has "
                         f"{queues} queues")
    return int(value)


def positive_int(value, argname: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{argname} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{argname} must be >= {minimum}, got {value}")
    if value > _MAX_COUNT:
        raise ValueError(f"{argname} must be at most {_MAX_COUNT}, got {value}")
    return int(value)


def custom_itemsize(dtype, argname: str = "dtype") -> int:
    try:
        return dtype_info(dtype, argname=argname).itemsize
    except (TypeError, ValueError):
        pass
    try:
        size = np.dtype(dtype).itemsize
    except TypeError:
        raise TypeError(f"{argname}: not a dtype: {dtype!r}") from None
    if size not in (1, 2, 4, 8):
        raise ValueError(f"{argname}: element size must be 1, 2, 4 or 8 bytes, got {size} ({dtype!r})")
    return size
