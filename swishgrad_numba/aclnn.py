"""The aclnn two-phase API of SwishGrad, emulated on the CPU (SPEC sections 5 and 6).

Names mirror the C API so that a C program translates line by line:

==============================================  =============================================
C                                               Python
==============================================  =============================================
``aclCreateTensor(view, n, dt, strides, off,    ``aclCreateTensor(view, dt, strides, off,
fmt, storage, m, addr)``                        fmt, storage, data)`` -> aclTensor or None
``aclCreateScalar(&value, dt)``                 ``aclCreateScalar(value, dt)`` -> aclScalar or None
``aclnnSwishBackwardGetWorkspaceSize(...,       ``aclnnSwishBackwardGetWorkspaceSize(...)``
&workspaceSize, &executor)``                    -> ``(status, workspace_size, executor)``
``aclnnSwishBackward(ws, size, exe, stream)``   same, returns the status
``aclrtCreateStream(&stream)``                  ``aclrtCreateStream()`` -> ``(status, stream)``
``aclrtMalloc(&addr, size, policy)``            ``aclrtMalloc(size, policy)`` -> ``(status, buffer)``
``nullptr``                                     ``None``
==============================================  =============================================

"Device memory" is a NumPy array; ``strides`` and ``offset`` count elements,
as in C, so transposed, sliced and broadcast (stride 0) views are
expressible. A launch is queued on a stream whose worker thread runs the
emulated kernel; results are defined after ``aclrtSynchronizeStream``.

Status codes beyond the C library's own (documented in ``docs/aclnn.md``):

- ``ACLNN_ERR_INNER_EXECUTOR_REUSED`` (561901): an executor was run twice;
- ``ACLNN_ERR_INNER_TENSOR_DESTROYED`` (561902): a tensor of the executor was
  destroyed between the two phases.

On the device both are undefined behaviour (use after free); the emulator
reports them instead. Errors never raise: every entry point returns a status
(or ``None`` for the creators) and records a message for
:func:`aclGetRecentErrMsg` that names the argument and the rule broken.
"""
from __future__ import annotations

import math
import numbers
import queue
import threading
from dataclasses import dataclass

import numpy as np

from . import formats
from .api import run_tiling
from .dtypes import bfloat16, to_float32
from .platform import BF16_SOC_VERSIONS, REFERENCE_PLATFORM, Platform
from .tiling import Tiling, compute_tiling

__all__ = [
    # status codes
    "ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_RT_PARAM_INVALID", "ACL_ERROR_RT_MEMORY_ALLOCATION",
    "ACL_ERROR_RT_INTERNAL_ERROR",
    "ACLNN_SUCCESS", "ACLNN_ERR_PARAM_NULLPTR", "ACLNN_ERR_PARAM_INVALID", "ACLNN_ERR_RUNTIME_ERROR",
    "ACLNN_ERR_INNER", "ACLNN_ERR_INNER_EXECUTOR_REUSED", "ACLNN_ERR_INNER_TENSOR_DESTROYED",
    # data types and formats
    "ACL_DT_UNDEFINED", "ACL_FLOAT", "ACL_FLOAT16", "ACL_INT8", "ACL_INT32", "ACL_UINT8", "ACL_INT16",
    "ACL_UINT16", "ACL_UINT32", "ACL_INT64", "ACL_UINT64", "ACL_DOUBLE", "ACL_BOOL", "ACL_COMPLEX64",
    "ACL_COMPLEX128", "ACL_BF16",
    "ACL_FORMAT_UNDEFINED", "ACL_FORMAT_NCHW", "ACL_FORMAT_NHWC", "ACL_FORMAT_ND", "ACL_FORMAT_NC1HWC0",
    "ACL_FORMAT_FRACTAL_NZ",
    "ACL_MEM_MALLOC_HUGE_FIRST", "ACL_MEM_MALLOC_HUGE_ONLY", "ACL_MEM_MALLOC_NORMAL_ONLY",
    "ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST",
    "ACL_MEMCPY_DEVICE_TO_DEVICE",
    # objects and functions
    "aclTensor", "aclScalar", "aclOpExecutor", "aclrtStream",
    "aclCreateTensor", "aclDestroyTensor", "aclCreateScalar", "aclDestroyScalar",
    "aclnnSwishBackwardGetWorkspaceSize", "aclnnSwishBackward",
    "aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice",
    "aclrtCreateStream", "aclrtSynchronizeStream", "aclrtDestroyStream",
    "aclrtMalloc", "aclrtFree", "aclrtMemcpy", "aclGetRecentErrMsg",
    "set_platform", "get_platform", "MAX_DIM",
]

# --------------------------------------------------------------------------
# Status codes
# --------------------------------------------------------------------------

#: ACL runtime (aclError) codes used by the ``acl*``/``aclrt*`` functions.
ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
ACL_ERROR_RT_INTERNAL_ERROR = 507000

#: aclnn (aclnnStatus) codes.
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
#: Emulator codes: use-after-free cases that are undefined behaviour on the device.
ACLNN_ERR_INNER_EXECUTOR_REUSED = 561901
ACLNN_ERR_INNER_TENSOR_DESTROYED = 561902

# --------------------------------------------------------------------------
# Data types (aclDataType) and formats (aclFormat), with the C enum values
# --------------------------------------------------------------------------

ACL_DT_UNDEFINED = -1
ACL_FLOAT = 0
ACL_FLOAT16 = 1
ACL_INT8 = 2
ACL_INT32 = 3
ACL_UINT8 = 4
ACL_INT16 = 6
ACL_UINT16 = 7
ACL_UINT32 = 8
ACL_INT64 = 9
ACL_UINT64 = 10
ACL_DOUBLE = 11
ACL_BOOL = 12
ACL_COMPLEX64 = 16
ACL_COMPLEX128 = 17
ACL_BF16 = 27

_DTYPES = {
    ACL_FLOAT: ("ACL_FLOAT", np.dtype(np.float32)),
    ACL_FLOAT16: ("ACL_FLOAT16", np.dtype(np.float16)),
    ACL_INT8: ("ACL_INT8", np.dtype(np.int8)),
    ACL_INT32: ("ACL_INT32", np.dtype(np.int32)),
    ACL_UINT8: ("ACL_UINT8", np.dtype(np.uint8)),
    ACL_INT16: ("ACL_INT16", np.dtype(np.int16)),
    ACL_UINT16: ("ACL_UINT16", np.dtype(np.uint16)),
    ACL_UINT32: ("ACL_UINT32", np.dtype(np.uint32)),
    ACL_INT64: ("ACL_INT64", np.dtype(np.int64)),
    ACL_UINT64: ("ACL_UINT64", np.dtype(np.uint64)),
    ACL_DOUBLE: ("ACL_DOUBLE", np.dtype(np.float64)),
    ACL_BOOL: ("ACL_BOOL", np.dtype(np.bool_)),
    ACL_COMPLEX64: ("ACL_COMPLEX64", np.dtype(np.complex64)),
    ACL_COMPLEX128: ("ACL_COMPLEX128", np.dtype(np.complex128)),
    ACL_BF16: ("ACL_BF16", bfloat16),
}
_KERNEL_DTYPES = (ACL_FLOAT16, ACL_FLOAT, ACL_BF16)
_COMPLEX_DTYPES = (ACL_COMPLEX64, ACL_COMPLEX128)

ACL_FORMAT_UNDEFINED = -1
ACL_FORMAT_NCHW = 0
ACL_FORMAT_NHWC = 1
ACL_FORMAT_ND = 2
ACL_FORMAT_NC1HWC0 = 3
ACL_FORMAT_FRACTAL_NZ = 29

_FORMATS = {
    ACL_FORMAT_NCHW: "ACL_FORMAT_NCHW",
    ACL_FORMAT_NHWC: "ACL_FORMAT_NHWC",
    ACL_FORMAT_ND: "ACL_FORMAT_ND",
    ACL_FORMAT_NC1HWC0: "ACL_FORMAT_NC1HWC0",
    ACL_FORMAT_FRACTAL_NZ: "ACL_FORMAT_FRACTAL_NZ",
}
# Formats whose storage is the view's own elements (storage = logical shape).
_PLAIN_FORMATS = (ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC)

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_HUGE_ONLY = 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2

ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3

_MALLOC_POLICIES = frozenset((ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY))
_MEMCPY_KINDS = frozenset((ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
                           ACL_MEMCPY_DEVICE_TO_DEVICE))

#: Most dimensions a tensor of the operator may have.
MAX_DIM = 8

# C's int64_t holds shapes, strides and offsets; NumPy addresses memory with intp (byte strides, sizes).
_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1
_INTP_MAX = int(np.iinfo(np.intp).max)

# --------------------------------------------------------------------------
# Module state: the platform, the last error message (per thread)
# --------------------------------------------------------------------------

_STATE_LOCK = threading.Lock()
_platform = REFERENCE_PLATFORM
_errmsg = threading.local()


def set_platform(platform: Platform) -> Platform:
    """Select the emulated platform for later ``GetWorkspaceSize`` calls; returns the previous one.

    The platform decides the tiling, the workspace size reported and whether
    bfloat16 is accepted (``Platform.supports_bfloat16``). The C API has no
    such argument: the device's SoC decides.
    """
    global _platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    with _STATE_LOCK:
        previous, _platform = _platform, platform
    return previous


def get_platform() -> Platform:
    """The platform ``GetWorkspaceSize`` currently uses (the SPEC's reference platform by default)."""
    return _platform


def _fail(status: int, message: str) -> int:
    _errmsg.value = message
    return status


def aclGetRecentErrMsg():
    """Message of the last failure in this thread, or ``None``; reading it clears it."""
    message = getattr(_errmsg, "value", None)
    _errmsg.value = None
    return message


def _is_int(value) -> bool:
    """Whether ``value`` is a real integer: a Python or NumPy integer, not a bool and not a float equal to one."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _known(code, table) -> bool:
    """Whether ``code`` is an integer key of ``table`` (False for bools, floats such as 2.0 and other objects)."""
    return _is_int(code) and int(code) in table


def _enum_error(code, argname: str, kind: str, names=None) -> str:
    """Why ``code`` is not a value of the C enum ``kind``."""
    if not _is_int(code):
        return f"{argname} must be an integer ({kind}), got {type(code).__name__} {code!r}"
    listed = f"; known: {', '.join(names)}" if names else ""
    return f"{argname} {code!r} is not a known {kind}{listed}"


def _dtype_name(code) -> str:
    return _DTYPES[code][0] if _known(code, _DTYPES) else str(code)


def _format_name(code) -> str:
    return _FORMATS[code] if _known(code, _FORMATS) else str(code)


def _int_tuple(value, argname: str, allow_negative: bool = False):
    """A tuple of ints from a sequence, or an error string."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        return f"{argname} must be a sequence of integers, got {type(value).__name__}"
    out = []
    for v in value:
        if not _is_int(v):
            return f"{argname} must hold integers, got {v!r}"
        if v < 0 and not allow_negative:
            return f"{argname} must hold non-negative values, got {tuple(value)}"
        if not _INT64_MIN <= v <= _INT64_MAX:
            return f"{argname} must hold int64 values (C int64_t), got {v!r}"
        out.append(int(v))
    return tuple(out)


def _contiguous_strides(shape) -> tuple:
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return tuple(strides)


# --------------------------------------------------------------------------
# Tensors and scalars
# --------------------------------------------------------------------------


class aclTensor:
    """A tensor descriptor: view shape, strides and offset over a storage array.

    Made by :func:`aclCreateTensor`; the fields are read-only by convention.
    ``storage`` is a flat, typed view of the first ``prod(storage_shape)``
    elements of the caller's ``data`` (no copy).
    """

    __slots__ = ("view_shape", "data_type", "strides", "offset", "format", "storage_shape", "storage",
                 "destroyed")

    def __init__(self, view_shape, data_type, strides, offset, fmt, storage_shape, storage):
        self.view_shape = view_shape
        self.data_type = data_type
        self.strides = strides
        self.offset = offset
        self.format = fmt
        self.storage_shape = storage_shape
        self.storage = storage
        self.destroyed = False

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype of ``data_type``."""
        return _DTYPES[self.data_type][1]

    @property
    def numel(self) -> int:
        """Elements of the view."""
        return math.prod(self.view_shape)

    def __repr__(self):
        state = ", destroyed" if self.destroyed else ""
        return (f"aclTensor(view_shape={self.view_shape}, {_dtype_name(self.data_type)}, strides={self.strides}, "
                f"offset={self.offset}, {_format_name(self.format)}, storage_shape={self.storage_shape}{state})")


class aclScalar:
    """A host scalar holding ``value`` in the NumPy dtype of ``data_type``."""

    __slots__ = ("value", "data_type", "destroyed")

    def __init__(self, value, data_type):
        self.value = value
        self.data_type = data_type
        self.destroyed = False

    def __repr__(self):
        state = ", destroyed" if self.destroyed else ""
        return f"aclScalar({self.value!r}, {_dtype_name(self.data_type)}{state})"


def aclCreateTensor(view_shape, data_type, strides, offset, format, storage_shape, data):
    """Describe a tensor over a storage array, like C ``aclCreateTensor``.

    Parameters
    ----------
    view_shape : sequence of int
        Logical shape (any rank; the operator itself accepts up to 8 dims).
    data_type : int
        An ``ACL_*`` data type.
    strides : sequence of int or None
        Element strides of the view, one per dim, each >= 0; ``None`` means
        C-contiguous.
    offset : int
        Element offset of the view's first element inside the storage.
    format : int
        ``ACL_FORMAT_ND`` (or NCHW/NHWC, which store the same way),
        ``ACL_FORMAT_NC1HWC0`` or ``ACL_FORMAT_FRACTAL_NZ``.
    storage_shape : sequence of int or None
        Shape of the storage; ``None`` means ``view_shape``.
    data : numpy.ndarray
        C-contiguous array holding the storage: of the data type's NumPy
        dtype, or raw ``uint8`` bytes (as :func:`aclrtMalloc` returns). It must
        hold at least ``prod(storage_shape)`` elements. Not copied.

    Returns
    -------
    aclTensor or None
        ``None`` (the C null pointer) when the arguments cannot describe a
        tensor; :func:`aclGetRecentErrMsg` says why. Whether the view fits in
        its storage is checked by ``aclnnSwishBackwardGetWorkspaceSize``.
    """
    where = "aclCreateTensor"
    shape = _int_tuple(view_shape, "view_shape")
    if isinstance(shape, str):
        return _fail(None, f"{where}: {shape}")
    if not _known(data_type, _DTYPES):
        return _fail(None, f"{where}: {_enum_error(data_type, 'data_type', 'aclDataType')}")
    data_type = int(data_type)
    if strides is None:
        strides = _contiguous_strides(shape)
    else:
        strides = _int_tuple(strides, "strides")
        if isinstance(strides, str):
            return _fail(None, f"{where}: {strides}")
        if len(strides) != len(shape):
            return _fail(None, f"{where}: strides must have one entry per dim of view_shape "
                               f"({len(shape)}), got {len(strides)}")
    if not _is_int(offset) or not 0 <= offset <= _INT64_MAX:
        return _fail(None, f"{where}: offset must be an integer >= 0 and < 2**63 (C int64_t), got {offset!r}")
    if not _known(format, _FORMATS):
        return _fail(None, f"{where}: {_enum_error(format, 'format', 'aclFormat', _FORMATS.values())}")
    format = int(format)
    if storage_shape is None:
        storage_shape = shape
    else:
        storage_shape = _int_tuple(storage_shape, "storage_shape")
        if isinstance(storage_shape, str):
            return _fail(None, f"{where}: {storage_shape}")
    if not isinstance(data, np.ndarray):
        return _fail(None, f"{where}: data must be a numpy.ndarray holding the storage, got {type(data).__name__}")
    if not data.flags.c_contiguous:
        return _fail(None, f"{where}: data must be C-contiguous (it is the storage's memory)")
    dt = _DTYPES[data_type][1]
    flat = data.reshape(-1)
    if data.dtype != dt:
        if data.dtype != np.uint8:
            return _fail(None, f"{where}: data has dtype {data.dtype.name}, but data_type "
                               f"{_dtype_name(data_type)} needs {dt.name} (or raw uint8 bytes)")
        if flat.size % dt.itemsize:
            return _fail(None, f"{where}: data holds {flat.size} bytes, not a whole number of "
                               f"{dt.itemsize}-byte {dt.name} elements")
        flat = flat.view(dt)
    storage_numel = math.prod(storage_shape)
    if storage_numel > flat.size:
        return _fail(None, f"{where}: storage_shape {storage_shape} needs {storage_numel} elements, "
                           f"data holds {flat.size}")
    return aclTensor(shape, data_type, strides, int(offset), format, storage_shape, flat[:storage_numel])


def _destroy(handle, cls, where: str, what: str) -> int:
    """Mark a descriptor destroyed; ``None`` is accepted and ignored."""
    if handle is None:
        return ACLNN_SUCCESS
    if not isinstance(handle, cls):
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: {what} must be an {cls.__name__}, "
                                              f"got {type(handle).__name__}")
    if handle.destroyed:
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: {what} was already destroyed")
    handle.destroyed = True
    return ACLNN_SUCCESS


def aclDestroyTensor(tensor) -> int:
    """Release a tensor descriptor (not its data). ``None`` is accepted and ignored."""
    return _destroy(tensor, aclTensor, "aclDestroyTensor", "tensor")


def aclCreateScalar(value, data_type):
    """Make a host scalar holding ``value`` in ``data_type``, like C ``aclCreateScalar``.

    The value is stored in that dtype (a bfloat16 scalar of 1.1 holds
    1.1015625); floating types convert with NumPy's ``astype`` (round to
    nearest even, out of range -> inf); integer and bool types need an
    integral value in range.

    Returns
    -------
    aclScalar or None
        ``None`` when the value cannot be held in ``data_type``.
    """
    where = "aclCreateScalar"
    if not _known(data_type, _DTYPES):
        return _fail(None, f"{where}: {_enum_error(data_type, 'data_type', 'aclDataType')}")
    data_type = int(data_type)
    name, dt = _DTYPES[data_type]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    is_complex = isinstance(value, (complex, np.complexfloating))
    is_real = isinstance(value, (numbers.Real, np.number, np.bool_)) or (
        isinstance(value, np.generic) and value.dtype == bfloat16)
    if not (is_complex or is_real):
        return _fail(None, f"{where}: value must be a number, got {type(value).__name__}")
    if dt.kind == "c":
        return aclScalar(np.array(value).astype(dt)[()], data_type)
    if is_complex:
        return _fail(None, f"{where}: a complex value cannot be held in {name}")
    if dt.kind in "biu":
        v = value if isinstance(value, (numbers.Integral, np.integer, np.bool_)) else float(value)
        if isinstance(v, float):
            if not v.is_integer():
                return _fail(None, f"{where}: {name} needs an integral value, got {value!r}")
        v = int(v)
        lo, hi = (0, 1) if dt.kind == "b" else (np.iinfo(dt).min, np.iinfo(dt).max)
        if not lo <= v <= hi:
            return _fail(None, f"{where}: value {v} does not fit {name} [{lo}, {hi}]")
        return aclScalar(np.array(v).astype(dt)[()], data_type)
    try:
        with np.errstate(over="ignore"):
            if isinstance(value, np.generic):
                held = np.array(value).astype(dt)[()]
            else:
                held = np.array(float(value), dtype=np.float64).astype(dt)[()]
    except OverflowError:
        return _fail(None, f"{where}: value {value!r} is too large to convert to {name}")
    return aclScalar(held, data_type)


def aclDestroyScalar(scalar) -> int:
    """Release a scalar. ``None`` is accepted and ignored."""
    return _destroy(scalar, aclScalar, "aclDestroyScalar", "scalar")


# --------------------------------------------------------------------------
# Streams: one worker thread per stream runs its launches in order
# --------------------------------------------------------------------------


class aclrtStream:
    """A stream: launches queued on it run in order on its own worker thread."""

    def __init__(self, name: str = "aclrtStream"):
        self._queue: queue.Queue = queue.Queue()
        self._errors: list = []
        self._lock = threading.Lock()
        self.destroyed = False
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def _work(self):
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                job()
            except BaseException as exc:  # never let a launch kill the worker
                with self._lock:
                    self._errors.append(f"{type(exc).__name__}: {exc}")
            finally:
                self._queue.task_done()

    def _submit(self, job) -> None:
        self._queue.put(job)

    def _synchronize(self) -> list:
        self._queue.join()
        with self._lock:
            errors, self._errors = self._errors, []
        return errors

    def _close(self) -> list:
        errors = self._synchronize()
        self._queue.put(None)
        self._thread.join()
        self.destroyed = True
        return errors

    def __repr__(self):
        return f"aclrtStream({'destroyed' if self.destroyed else 'live'})"


_default_stream: aclrtStream | None = None


def _resolve_stream(stream):
    """The stream for a C stream argument (``None`` = the default stream), or an error string."""
    global _default_stream
    if stream is None:
        with _STATE_LOCK:
            if _default_stream is None:
                _default_stream = aclrtStream(name="aclrtStream-default")
            return _default_stream
    if not isinstance(stream, aclrtStream):
        return f"stream must be an aclrtStream or None (the default stream), got {type(stream).__name__}"
    if stream.destroyed:
        return "stream was destroyed by aclrtDestroyStream"
    return stream


def aclInit(config_path=None) -> int:
    """Initialise ACL (nothing to do on the CPU)."""
    return ACL_SUCCESS


def aclFinalize() -> int:
    """Finalise ACL (nothing to do on the CPU)."""
    return ACL_SUCCESS


def aclrtSetDevice(device_id) -> int:
    """Select a device; every non-negative id maps to the one emulated device."""
    if not _is_int(device_id) or device_id < 0:
        return _fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetDevice: device_id must be an integer >= 0, got {device_id!r}")
    return ACL_SUCCESS


def aclrtResetDevice(device_id) -> int:
    """Release a device (nothing to do on the CPU)."""
    return aclrtSetDevice(device_id)


def aclrtCreateStream():
    """Create a stream with its worker thread; returns ``(status, stream)``."""
    return ACL_SUCCESS, aclrtStream()


def aclrtSynchronizeStream(stream) -> int:
    """Wait until every launch queued on ``stream`` (``None``: the default stream) has finished.

    Returns ``ACL_ERROR_RT_INTERNAL_ERROR`` if a launch failed while running.
    """
    s = _resolve_stream(stream)
    if isinstance(s, str):
        return _fail(ACL_ERROR_RT_PARAM_INVALID, f"aclrtSynchronizeStream: {s}")
    errors = s._synchronize()
    if errors:
        return _fail(ACL_ERROR_RT_INTERNAL_ERROR, "aclrtSynchronizeStream: a launch failed: " + "; ".join(errors))
    return ACL_SUCCESS


def aclrtDestroyStream(stream) -> int:
    """Finish the launches queued on ``stream``, then stop its worker."""
    if stream is None or not isinstance(stream, aclrtStream):
        return _fail(ACL_ERROR_RT_PARAM_INVALID, f"aclrtDestroyStream: stream must be an aclrtStream, "
                                                 f"got {type(stream).__name__}")
    if stream.destroyed:
        return _fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyStream: stream was already destroyed")
    errors = stream._close()
    if errors:
        return _fail(ACL_ERROR_RT_INTERNAL_ERROR, "aclrtDestroyStream: a launch failed: " + "; ".join(errors))
    return ACL_SUCCESS


def aclrtMalloc(size, policy=ACL_MEM_MALLOC_HUGE_FIRST):
    """Allocate ``size`` bytes of emulated device memory; returns ``(status, buffer)``.

    The buffer is a zero-filled 1-D ``uint8`` array (``aclCreateTensor``
    reinterprets it as the tensor's dtype). ``ACL_ERROR_RT_MEMORY_ALLOCATION``
    when the host cannot allocate it.
    """
    if not _is_int(size) or size <= 0:
        return _fail(ACL_ERROR_INVALID_PARAM, f"aclrtMalloc: size must be an integer > 0, got {size!r}"), None
    if not _known(policy, _MALLOC_POLICIES):
        return _fail(ACL_ERROR_INVALID_PARAM,
                     f"aclrtMalloc: {_enum_error(policy, 'policy', 'aclrtMemMallocPolicy')}"), None
    if size > _INTP_MAX:
        return _fail(ACL_ERROR_INVALID_PARAM, f"aclrtMalloc: size {size} exceeds the {_INTP_MAX} bytes NumPy can "
                                              f"address"), None
    try:
        return ACL_SUCCESS, np.zeros(int(size), dtype=np.uint8)
    except MemoryError:
        return _fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"aclrtMalloc: cannot allocate {size} bytes"), None


def aclrtFree(buffer) -> int:
    """Free emulated device memory (Python frees it when the last reference goes)."""
    if not isinstance(buffer, np.ndarray):
        return _fail(ACL_ERROR_INVALID_PARAM, f"aclrtFree: buffer must be a numpy.ndarray, got {type(buffer).__name__}")
    return ACL_SUCCESS


def aclrtMemcpy(dst, dest_max, src, count, kind) -> int:
    """Copy ``count`` bytes from ``src`` into ``dst`` (both C-contiguous arrays), synchronously.

    ``count`` must not exceed ``dest_max``, ``dst.nbytes`` or ``src.nbytes``.
    """
    where = "aclrtMemcpy"
    if not _known(kind, _MEMCPY_KINDS):
        return _fail(ACL_ERROR_INVALID_PARAM, f"{where}: {_enum_error(kind, 'kind', 'aclrtMemcpyKind')}")
    for name, arr in (("dst", dst), ("src", src)):
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            return _fail(ACL_ERROR_INVALID_PARAM, f"{where}: {name} must be a C-contiguous numpy.ndarray")
    for name, v in (("dest_max", dest_max), ("count", count)):
        if not _is_int(v) or v < 0:
            return _fail(ACL_ERROR_INVALID_PARAM, f"{where}: {name} must be an integer >= 0, got {v!r}")
    if dest_max > dst.nbytes:
        return _fail(ACL_ERROR_INVALID_PARAM, f"{where}: dest_max {dest_max} exceeds dst's {dst.nbytes} bytes")
    if count > dest_max or count > src.nbytes:
        return _fail(ACL_ERROR_INVALID_PARAM, f"{where}: count {count} exceeds dest_max {dest_max} "
                                              f"or src's {src.nbytes} bytes")
    if not dst.flags.writeable:
        return _fail(ACL_ERROR_INVALID_PARAM, f"{where}: dst is read-only")
    dst.reshape(-1).view(np.uint8)[:count] = src.reshape(-1).view(np.uint8)[:count]
    return ACL_SUCCESS


# --------------------------------------------------------------------------
# The operator
# --------------------------------------------------------------------------


@dataclass(eq=False)
class aclOpExecutor:
    """What phase one prepared: the tensors, beta, the storage tiling and the workspace size.

    ``tiling`` is ``None`` for an empty launch (nothing runs). An executor
    runs once.
    """

    grad_output: aclTensor
    self_: aclTensor
    grad_input: aclTensor
    beta: np.float32
    platform: Platform
    workspace_size: int
    tiling: Tiling | None
    used: bool = False


def _live_tensor(tensor, argname: str):
    """None if ``tensor`` is a live aclTensor, else (status, message)."""
    if tensor is None:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} is a null pointer (None)"
    if not isinstance(tensor, aclTensor):
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} must be an aclTensor, got {type(tensor).__name__}"
    if tensor.destroyed:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} was destroyed by aclDestroyTensor (dangling pointer)"
    return None


def _check_addressable(tensor: aclTensor, argname: str):
    """None if NumPy can address the tensor's view, else a message.

    Python ints throughout, so nothing overflows: every stride in bytes, the
    view's size in bytes and its byte extent (offset + sum((d - 1) * stride)
    + 1 elements) must fit NumPy's intp.
    """
    item = tensor.storage.itemsize
    for dim, stride in enumerate(tensor.strides):
        if stride * item > _INTP_MAX:
            return (f"{argname}'s stride {stride} (dim {dim}) is {stride * item} bytes; NumPy addresses at most "
                    f"{_INTP_MAX} bytes")
    numel = tensor.numel
    if numel * item > _INTP_MAX:
        return (f"{argname}'s view {tensor.view_shape} has {numel} elements ({numel * item} bytes); NumPy addresses "
                f"at most {_INTP_MAX} bytes")
    if numel:
        extent = tensor.offset + sum((d - 1) * s for d, s in zip(tensor.view_shape, tensor.strides)) + 1
        if extent * item > _INTP_MAX:
            return (f"{argname}'s view (shape {tensor.view_shape}, strides {tensor.strides}, offset {tensor.offset}) "
                    f"spans {extent * item} bytes; NumPy addresses at most {_INTP_MAX} bytes")
    return None


def _check_copy_size(grad_output: aclTensor, self_: aclTensor, grad_input: aclTensor):
    """None if the buffers a plain-format launch allocates stay within the caller's largest storage, else a message.

    The launch makes non-contiguous inputs contiguous and computes into a
    fresh buffer, so it allocates up to three buffers of the view's size. A
    view may have more elements than its storage (stride 0 broadcasts), so
    without this bound a view over a few bytes could make the emulator
    allocate any amount. The rule: the view has at most as many elements as
    the largest of the three storages (all three share one dtype).
    """
    largest = max(t.storage.size for t in (grad_output, self_, grad_input))
    if grad_input.numel > largest:
        return (f"gradInput's view {grad_input.view_shape} has {grad_input.numel} elements, more than the largest "
                f"storage of gradOutput, self and gradInput ({largest} elements); the emulator allocates up to three "
                f"view-sized buffers and bounds them by the caller's largest storage")
    return None


def _check_geometry(tensor: aclTensor, argname: str):
    """None if the tensor's view and storage agree with its format, else a message."""
    storage_numel = tensor.storage.size
    if tensor.format in _PLAIN_FORMATS:
        if tensor.numel == 0:
            return None
        last = tensor.offset + sum((d - 1) * s for d, s in zip(tensor.view_shape, tensor.strides))
        if last >= storage_numel:
            return (f"{argname}'s view (shape {tensor.view_shape}, strides {tensor.strides}, offset "
                    f"{tensor.offset}) reaches element {last}, outside its storage of {storage_numel} elements")
        return None
    if tensor.format == ACL_FORMAT_NC1HWC0:
        if len(tensor.view_shape) != 4 or len(tensor.storage_shape) != 5 or tensor.storage_shape[-1] == 0:
            return (f"{argname} in ACL_FORMAT_NC1HWC0 needs a 4-D (N, C, H, W) view and a 5-D storage, got view "
                    f"{tensor.view_shape} and storage {tensor.storage_shape}")
        expected = formats.nc1hwc0_shape(tensor.view_shape, tensor.storage_shape[-1])
    else:
        if len(tensor.view_shape) < 2 or len(tensor.storage_shape) != len(tensor.view_shape) + 2 \
                or 0 in tensor.storage_shape[-2:]:
            return (f"{argname} in ACL_FORMAT_FRACTAL_NZ needs a view of >= 2 dims and a storage of 2 more dims, "
                    f"got view {tensor.view_shape} and storage {tensor.storage_shape}")
        expected = formats.fractal_nz_shape(tensor.view_shape, tensor.storage_shape[-1], tensor.storage_shape[-2])
    if tensor.storage_shape != expected:
        return (f"{argname}'s storage_shape {tensor.storage_shape} is not the {_format_name(tensor.format)} storage "
                f"of view {tensor.view_shape}: expected {expected}")
    if tensor.offset != 0 or tensor.strides != _contiguous_strides(tensor.view_shape):
        return (f"{argname} in {_format_name(tensor.format)} must have offset 0 and the contiguous strides of its "
                f"view; the kernel runs over the whole storage")
    return None


def _phase_one(grad_output, self_, beta, grad_input, platform: Platform):
    """Return (status, message or executor) following SPEC section 5's order."""
    # 1. Null (and, emulator only, dangling or wrong-type) pointers.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        bad = _live_tensor(tensor, name)
        if bad:
            return bad
    if beta is not None:
        if not isinstance(beta, aclScalar):
            return ACLNN_ERR_PARAM_NULLPTR, f"betaOptional must be an aclScalar or None, got {type(beta).__name__}"
        if beta.destroyed:
            return ACLNN_ERR_PARAM_NULLPTR, "betaOptional was destroyed by aclDestroyScalar (dangling pointer)"

    # 2. Data types.
    supported = ", ".join(_dtype_name(c) for c in _KERNEL_DTYPES)
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
        if tensor.data_type not in _KERNEL_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {_dtype_name(tensor.data_type)}; it must be one "
                                             f"of {supported}")
    if beta is not None and beta.data_type in _COMPLEX_DTYPES:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of betaOptional is {_dtype_name(beta.data_type)}, which cannot "
                                         f"be cast to ACL_FLOAT")
    for tensor, name in ((self_, "self"), (grad_input, "gradInput")):
        if tensor.data_type != grad_output.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({_dtype_name(tensor.data_type)}) must equal "
                                             f"dtype of gradOutput ({_dtype_name(grad_output.data_type)})")
    if grad_output.data_type == ACL_BF16 and not platform.supports_bfloat16:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype ACL_BF16 is only supported on ASCEND910B..ASCEND910E "
                                         f"({', '.join(BF16_SOC_VERSIONS)}); the platform's soc_version "
                                         f"{platform.soc_version!r} is family {platform.soc_family}")

    # 3. Ranks and shapes.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} "
                                             f"are supported")
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
        if tensor.view_shape != grad_input.view_shape:
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tensor.view_shape} must equal shape of gradInput "
                                             f"{grad_input.view_shape}")

    # 4. Emulator checks: one storage format, views NumPy can address and inside their storage, launch buffers
    #    bounded by the caller's storage, writable output.
    private = [t.format for t in (grad_output, self_, grad_input) if t.format not in _PLAIN_FORMATS]
    if private and (len(private) != 3 or len(set(private)) != 1):
        fmts = ", ".join(_format_name(t.format) for t in (grad_output, self_, grad_input))
        return ACLNN_ERR_PARAM_INVALID, (f"gradOutput, self and gradInput must share one storage format, got "
                                         f"{fmts}")
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        message = _check_addressable(tensor, name) or _check_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if private and not (grad_output.storage_shape == self_.storage_shape == grad_input.storage_shape):
        return ACLNN_ERR_PARAM_INVALID, (
            f"storage shapes must be equal, got gradOutput {grad_output.storage_shape}, self "
            f"{self_.storage_shape}, gradInput {grad_input.storage_shape}")
    if not private:
        message = _check_copy_size(grad_output, self_, grad_input)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if not grad_input.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, "gradInput's data is read-only"

    beta32 = np.float32(1.0) if beta is None else to_float32(beta.value, argname="betaOptional")
    if grad_output.numel == 0 or self_.numel == 0:
        executor = aclOpExecutor(grad_output, self_, grad_input, beta32, platform, 0, None)
        return ACLNN_SUCCESS, executor
    # The tiling counts storage elements: the view's for plain formats (made
    # contiguous), the padded storage's for NC1HWC0 / FRACTAL_NZ.
    numel = grad_output.numel if not private else grad_output.storage.size
    tiling = compute_tiling(numel, grad_output.dtype, scale=beta32, platform=platform)
    executor = aclOpExecutor(grad_output, self_, grad_input, beta32, platform, tiling.workspace_size, tiling)
    return ACLNN_SUCCESS, executor


def aclnnSwishBackwardGetWorkspaceSize(gradOutput, self, betaOptional, gradInput):
    """Phase one: check the arguments and prepare a launch.

    Applies SPEC section 5's checks in its order (null pointers -> 161001;
    dtypes, then ranks and shapes -> 161002), then the emulator's own
    (storage formats agree; views NumPy can address, inside their storage;
    a plain-format view no larger than the largest of the three storages;
    writable output -> 161002). Empty tensors succeed with workspace 0 and
    launch nothing.

    Returns
    -------
    (int, int, aclOpExecutor or None)
        ``(status, workspace_size, executor)``; on failure ``(status, 0,
        None)`` and :func:`aclGetRecentErrMsg` names the argument and rule.
    """
    platform = get_platform()
    try:
        status, result = _phase_one(gradOutput, self, betaOptional, gradInput, platform)
    except Exception as exc:  # a bug here must still not crash the caller
        return _fail(ACLNN_ERR_INNER, f"aclnnSwishBackwardGetWorkspaceSize: internal error: {exc!r}"), 0, None
    if status != ACLNN_SUCCESS:
        return _fail(status, f"aclnnSwishBackwardGetWorkspaceSize: {result}"), 0, None
    return ACLNN_SUCCESS, result.workspace_size, result


def _view(tensor: aclTensor) -> np.ndarray:
    """The tensor's view over its storage (bounds were checked in phase one)."""
    itemsize = tensor.storage.itemsize
    base = tensor.storage[tensor.offset:]
    return np.lib.stride_tricks.as_strided(
        base, shape=tensor.view_shape, strides=tuple(s * itemsize for s in tensor.strides))


def _make_job(executor: aclOpExecutor):
    go, x, gi, tiling = executor.grad_output, executor.self_, executor.grad_input, executor.tiling
    private = go.format not in _PLAIN_FORMATS

    def job():
        if private:
            flat_g, flat_x, out_view = go.storage, x.storage, gi.storage
        else:
            # Non-contiguous inputs are made contiguous (a copy that reads
            # only in-bounds elements); the result is then copied into the
            # gradInput view, which may itself be non-contiguous.
            flat_g = np.ascontiguousarray(_view(go)).reshape(-1)
            flat_x = np.ascontiguousarray(_view(x)).reshape(-1)
            out_view = _view(gi)
        result = np.empty(flat_x.size, dtype=flat_x.dtype)
        run_tiling(flat_g, flat_x, result, tiling)
        out_view[...] = result.reshape(out_view.shape)

    return job


def aclnnSwishBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch prepared by phase one on ``stream``.

    Parameters
    ----------
    workspace : numpy.ndarray or None
        At least ``workspaceSize`` bytes (``None`` when it is 0).
    workspaceSize : int
        Must be at least what phase one reported.
    executor : aclOpExecutor
        From :func:`aclnnSwishBackwardGetWorkspaceSize`; runs once.
    stream : aclrtStream or None
        ``None`` is the default stream.

    Returns
    -------
    int
        ``ACLNN_SUCCESS`` once queued; results are defined after
        :func:`aclrtSynchronizeStream`. A failed check leaves the executor
        unused, so the call can be repeated with corrected arguments.
    """
    try:
        return _phase_two(workspace, workspaceSize, executor, stream)
    except Exception as exc:  # a bug here must still not crash the caller
        return _fail(ACLNN_ERR_INNER, f"aclnnSwishBackward: internal error: {exc!r}")


def _phase_two(workspace, workspaceSize, executor, stream) -> int:
    where = "aclnnSwishBackward"
    if executor is None:
        return _fail(ACLNN_ERR_PARAM_NULLPTR, f"{where}: executor is a null pointer (None)")
    if not isinstance(executor, aclOpExecutor):
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: executor must be an aclOpExecutor, "
                                              f"got {type(executor).__name__}")
    if executor.used:
        return _fail(ACLNN_ERR_INNER_EXECUTOR_REUSED, f"{where}: executor was already run; an executor runs once "
                                                      f"(call aclnnSwishBackwardGetWorkspaceSize again)")
    if not _is_int(workspaceSize) or workspaceSize < 0:
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspaceSize must be an integer >= 0, got {workspaceSize!r}")
    if workspaceSize < executor.workspace_size:
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspaceSize {workspaceSize} is smaller than the "
                                              f"{executor.workspace_size} bytes phase one reported")
    if workspaceSize > 0:
        if workspace is None:
            return _fail(ACLNN_ERR_PARAM_NULLPTR, f"{where}: workspace is a null pointer but workspaceSize is "
                                                  f"{workspaceSize}")
        if not isinstance(workspace, np.ndarray):
            return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspace must be a numpy.ndarray, "
                                                  f"got {type(workspace).__name__}")
        if workspace.nbytes < workspaceSize:
            return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspace holds {workspace.nbytes} bytes, fewer than "
                                                  f"workspaceSize {workspaceSize}")
    for tensor, name in ((executor.grad_output, "gradOutput"), (executor.self_, "self"),
                         (executor.grad_input, "gradInput")):
        if tensor.destroyed:
            return _fail(ACLNN_ERR_INNER_TENSOR_DESTROYED, f"{where}: {name} was destroyed after "
                                                           f"aclnnSwishBackwardGetWorkspaceSize")
    s = _resolve_stream(stream)
    if isinstance(s, str):
        return _fail(ACLNN_ERR_RUNTIME_ERROR, f"{where}: {s}")
    executor.used = True
    if executor.tiling is not None:
        s._submit(_make_job(executor))
    return ACLNN_SUCCESS
