"""Tensor and scalar descriptors: what ``aclCreateTensor`` and ``aclCreateScalar`` make, and their geometry checks.

A tensor describes a view (shape, element strides, element offset) over a
flat storage array in a format (model section 6). Creation refuses only what
cannot describe a tensor; whether a view is addressable and lies inside its
storage is checked by phase one of the operator (:func:`check_addressable`,
:func:`check_tensor_geometry`).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import formats
from ..dtypes import bfloat16, round_ratio
from .enums import (
    ACL_FORMAT_NC1HWC0,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_SUCCESS,
    ACL_DTYPES,
    FORMATS,
    INT64_MAX,
    INT64_MIN,
    INTP_MAX,
    PLAIN_FORMATS,
    dtype_name,
    enum_error,
    format_name,
    is_int,
    is_known,
)
from .state import fail

__all__ = ["aclTensor", "aclScalar", "aclCreateTensor", "aclDestroyTensor", "aclCreateScalar", "aclDestroyScalar"]


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
        return ACL_DTYPES[self.data_type][1]

    @property
    def numel(self) -> int:
        """Elements of the view."""
        return math.prod(self.view_shape)

    @property
    def moving_strides(self) -> tuple:
        """``strides`` with 0 where the stride never moves: a dimension of size 1, or every
        dimension of an empty view. Those strides address nothing, so any value is accepted."""
        return _moving_strides(self.view_shape, self.strides)

    def __repr__(self):
        state = ", destroyed" if self.destroyed else ""
        return (f"aclTensor(view_shape={self.view_shape}, {dtype_name(self.data_type)}, strides={self.strides}, "
                f"offset={self.offset}, {format_name(self.format)}, storage_shape={self.storage_shape}{state})")


class aclScalar:
    """A host scalar holding ``value`` in the NumPy dtype of ``data_type``."""

    __slots__ = ("value", "data_type", "destroyed")

    def __init__(self, value, data_type):
        self.value = value
        self.data_type = data_type
        self.destroyed = False

    def __repr__(self):
        state = ", destroyed" if self.destroyed else ""
        return f"aclScalar({self.value!r}, {dtype_name(self.data_type)}{state})"


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
        return fail(None, f"{where}: {shape}")
    if not is_known(data_type, ACL_DTYPES):
        return fail(None, f"{where}: {enum_error(data_type, 'data_type', 'aclDataType')}")
    data_type = int(data_type)
    if strides is None:
        strides = _contiguous_strides(shape)
    else:
        strides = _int_tuple(strides, "strides")
        if isinstance(strides, str):
            return fail(None, f"{where}: {strides}")
        if len(strides) != len(shape):
            return fail(None, f"{where}: strides must have one entry per dim of view_shape "
                               f"({len(shape)}), got {len(strides)}")
    if not is_int(offset) or not 0 <= offset <= INT64_MAX:
        return fail(None, f"{where}: offset must be an integer >= 0 and < 2**63 (C int64_t), got {offset!r}")
    if not is_known(format, FORMATS):
        return fail(None, f"{where}: {enum_error(format, 'format', 'aclFormat', FORMATS.values())}")
    format = int(format)
    if storage_shape is None:
        storage_shape = shape
    else:
        storage_shape = _int_tuple(storage_shape, "storage_shape")
        if isinstance(storage_shape, str):
            return fail(None, f"{where}: {storage_shape}")
    if not isinstance(data, np.ndarray):
        return fail(None, f"{where}: data must be a numpy.ndarray holding the storage, got {type(data).__name__}")
    if not data.flags.c_contiguous:
        return fail(None, f"{where}: data must be C-contiguous (it is the storage's memory)")
    dt = ACL_DTYPES[data_type][1]
    flat = data.reshape(-1)
    if data.dtype != dt:
        if data.dtype != np.uint8:
            return fail(None, f"{where}: data has dtype {data.dtype.name}, but data_type "
                               f"{dtype_name(data_type)} needs {dt.name} (or raw uint8 bytes)")
        if flat.size % dt.itemsize:
            return fail(None, f"{where}: data holds {flat.size} bytes, not a whole number of "
                               f"{dt.itemsize}-byte {dt.name} elements")
        flat = flat.view(dt)
    storage_numel = math.prod(storage_shape)
    if storage_numel > flat.size:
        return fail(None, f"{where}: storage_shape {storage_shape} needs {storage_numel} elements, "
                           f"data holds {flat.size}")
    return aclTensor(shape, data_type, strides, int(offset), format, storage_shape, flat[:storage_numel])


def _destroy(handle, cls, where: str, what: str) -> int:
    """Mark a descriptor destroyed; ``None`` is accepted and ignored."""
    if handle is None:
        return ACLNN_SUCCESS
    if not isinstance(handle, cls):
        return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: {what} must be an {cls.__name__}, "
                                              f"got {type(handle).__name__}")
    if handle.destroyed:
        return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: {what} was already destroyed")
    handle.destroyed = True
    return ACLNN_SUCCESS


def aclDestroyTensor(tensor) -> int:
    """Release a tensor descriptor (not its data). ``None`` is accepted and ignored."""
    return _destroy(tensor, aclTensor, "aclDestroyTensor", "tensor")


def aclCreateScalar(value, data_type):
    """Make a host scalar holding ``value`` in ``data_type``, like C ``aclCreateScalar``.

    The value is stored in that dtype (a bfloat16 scalar of 1.1 holds
    1.1015625); floating types round to nearest even once, out of range ->
    inf (integers and fractions exactly from their value, floats with
    NumPy's ``astype``); integer and bool types need an integral value in
    range.

    Returns
    -------
    aclScalar or None
        ``None`` when the value cannot be held in ``data_type``.
    """
    where = "aclCreateScalar"
    if not is_known(data_type, ACL_DTYPES):
        return fail(None, f"{where}: {enum_error(data_type, 'data_type', 'aclDataType')}")
    data_type = int(data_type)
    name, dt = ACL_DTYPES[data_type]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    is_complex = isinstance(value, (complex, np.complexfloating))
    # (NumPy files timedelta64 under its integers; a duration is no number.)
    is_real = (isinstance(value, (numbers.Real, np.number, np.bool_)) and not isinstance(value, np.timedelta64)) or (
        isinstance(value, np.generic) and value.dtype == bfloat16)
    if not (is_complex or is_real):
        return fail(None, f"{where}: value must be a number, got {type(value).__name__}")
    if dt.kind == "c":
        return aclScalar(np.array(value).astype(dt)[()], data_type)
    if is_complex:
        return fail(None, f"{where}: a complex value cannot be held in {name}")
    if dt.kind in "biu":
        if isinstance(value, numbers.Rational) and not isinstance(value, numbers.Integral):
            if value.denominator != 1:
                return fail(None, f"{where}: {name} needs an integral value, got {value!r}")
            value = value.numerator
        v = value if isinstance(value, (numbers.Integral, np.integer, np.bool_)) else float(value)
        if isinstance(v, float):
            if not v.is_integer():
                return fail(None, f"{where}: {name} needs an integral value, got {value!r}")
        v = int(v)
        lo, hi = (0, 1) if dt.kind == "b" else (np.iinfo(dt).min, np.iinfo(dt).max)
        if not lo <= v <= hi:
            return fail(None, f"{where}: value {v} does not fit {name} [{lo}, {hi}]")
        return aclScalar(np.array(v).astype(dt)[()], data_type)
    if isinstance(value, (numbers.Rational, np.integer, np.bool_)):
        # Integers and fractions are rounded once, exactly from their value (no float64 step).
        ratio = (int(value), 1) if isinstance(value, (numbers.Integral, np.integer, np.bool_)) else (
            int(value.numerator), int(value.denominator))
        return aclScalar(round_ratio(*ratio, dt), data_type)
    try:
        with np.errstate(over="ignore"):
            if isinstance(value, np.generic):
                held = np.array(value).astype(dt)[()]
            else:
                held = np.array(float(value), dtype=np.float64).astype(dt)[()]
    except OverflowError:
        return fail(None, f"{where}: value {value!r} is too large to convert to {name}")
    return aclScalar(held, data_type)


def aclDestroyScalar(scalar) -> int:
    """Release a scalar. ``None`` is accepted and ignored."""
    return _destroy(scalar, aclScalar, "aclDestroyScalar", "scalar")


def _int_tuple(value, argname: str, allow_negative: bool = False):
    """A tuple of ints from a sequence, or an error string."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        return f"{argname} must be a sequence of integers, got {type(value).__name__}"
    out = []
    for v in value:
        if not is_int(v):
            return f"{argname} must hold integers, got {v!r}"
        if v < 0 and not allow_negative:
            return f"{argname} must hold non-negative values, got {tuple(value)}"
        if not INT64_MIN <= v <= INT64_MAX:
            return f"{argname} must hold int64 values (C int64_t), got {v!r}"
        out.append(int(v))
    return tuple(out)


def _moving_strides(shape, strides) -> tuple:
    """``strides`` with 0 for every stride that never moves (see :attr:`aclTensor.moving_strides`)."""
    if math.prod(shape) == 0:
        return (0,) * len(strides)
    return tuple(0 if d == 1 else s for d, s in zip(shape, strides))


def _contiguous_strides(shape) -> tuple:
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return tuple(strides)


# --------------------------------------------------------------------------
# Geometry checks (phase one)
# --------------------------------------------------------------------------


def check_emulator_storage(named, out: aclTensor, out_name: str, what: str = "the emulated kernels"):
    """None, or ``(ACLNN_ERR_PARAM_INVALID, message)`` for the emulator's own checks of a launch's
    tensors (``named``: ``(name, tensor)`` pairs, the output among them): ND-type storage (ND, NCHW or
    NHWC: the op definitions list FORMAT_ND only), views NumPy can address inside their storage, an
    output no bigger than the largest storage passed (the launch's buffers are bounded by it), and a
    writable output."""
    named = tuple(named)
    for name, tensor in named:
        if tensor.format not in PLAIN_FORMATS:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} is in {format_name(tensor.format)}; {what} take ND, NCHW or "
                                             f"NHWC storage")
        message = check_addressable(tensor, name) or check_tensor_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    largest = max(t.storage.size for _, t in named)
    if out.numel > largest:
        return ACLNN_ERR_PARAM_INVALID, (f"{out_name}'s view {out.view_shape} has {out.numel} elements, more than "
                                         f"the largest storage of {', '.join(n for n, _ in named)} "
                                         f"({largest} elements)")
    if not out.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name}'s data is read-only"
    return None


def check_addressable(tensor: aclTensor, argname: str):
    """None if NumPy can address the tensor's view, else a message.

    Python ints throughout, so nothing overflows: every stride in bytes (but
    a size-1 dimension's, which addresses nothing), the view's size in bytes
    and its byte extent (offset + sum((d - 1) * stride) + 1 elements) must
    fit NumPy's intp.
    """
    item = tensor.storage.itemsize
    for dim, stride in enumerate(tensor.moving_strides):
        if stride * item > INTP_MAX:
            return (f"{argname}'s stride {stride} (dim {dim}) is {stride * item} bytes; NumPy addresses at most "
                    f"{INTP_MAX} bytes")
    numel = tensor.numel
    if numel * item > INTP_MAX:
        return (f"{argname}'s view {tensor.view_shape} has {numel} elements ({numel * item} bytes); NumPy addresses "
                f"at most {INTP_MAX} bytes")
    if numel:
        extent = tensor.offset + sum((d - 1) * s for d, s in zip(tensor.view_shape, tensor.strides)) + 1
        if extent * item > INTP_MAX:
            return (f"{argname}'s view (shape {tensor.view_shape}, strides {tensor.strides}, offset {tensor.offset}) "
                    f"spans {extent * item} bytes; NumPy addresses at most {INTP_MAX} bytes")
    return None


def check_tensor_geometry(tensor: aclTensor, argname: str):
    """None if the tensor's view and storage agree with its format, else a message."""
    storage_numel = tensor.storage.size
    if tensor.format in PLAIN_FORMATS:
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
        return (f"{argname}'s storage_shape {tensor.storage_shape} is not the {format_name(tensor.format)} storage "
                f"of view {tensor.view_shape}: expected {expected}")
    contiguous = _moving_strides(tensor.view_shape, _contiguous_strides(tensor.view_shape))
    if tensor.offset != 0 or tensor.moving_strides != contiguous:
        return (f"{argname} in {format_name(tensor.format)} must have offset 0 and the contiguous strides of its "
                f"view; the kernel runs over the whole storage")
    return None
