"""The C enums of the aclnn layer: status codes, ``aclDataType``, ``aclFormat``, memory policies and copy kinds.

The values are CANN's. The three data types the kernel computes in
(``ACL_FLOAT``, ``ACL_FLOAT16``, ``ACL_BF16``) are read from the package's
dtype table (:data:`swishgrad_numba.dtypes.DTYPES`: value, name and NumPy
dtype); the other data types, which only scalars and refused tensors use,
are listed here.

Also here: reading an enum argument (a real integer that names a known
value) and the names used in messages.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import BFLOAT16, DTYPES, FLOAT16, FLOAT32

__all__ = [
    # status codes
    "ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_RT_PARAM_INVALID", "ACL_ERROR_RT_MEMORY_ALLOCATION",
    "ACL_ERROR_RT_INTERNAL_ERROR",
    "ACLNN_SUCCESS", "ACLNN_ERR_PARAM_NULLPTR", "ACLNN_ERR_PARAM_INVALID", "ACLNN_ERR_RUNTIME_ERROR",
    "ACLNN_ERR_INNER", "ACLNN_ERR_INNER_NULLPTR", "ACLNN_ERR_INNER_EXECUTOR_REUSED",
    "ACLNN_ERR_INNER_TENSOR_DESTROYED",
    # data types and formats
    "ACL_DT_UNDEFINED", "ACL_FLOAT", "ACL_FLOAT16", "ACL_INT8", "ACL_INT32", "ACL_UINT8", "ACL_INT16",
    "ACL_UINT16", "ACL_UINT32", "ACL_INT64", "ACL_UINT64", "ACL_DOUBLE", "ACL_BOOL", "ACL_COMPLEX64",
    "ACL_COMPLEX128", "ACL_BF16",
    "ACL_FORMAT_UNDEFINED", "ACL_FORMAT_NCHW", "ACL_FORMAT_NHWC", "ACL_FORMAT_ND", "ACL_FORMAT_NC1HWC0",
    "ACL_FORMAT_FRACTAL_NZ",
    # memory
    "ACL_MEM_MALLOC_HUGE_FIRST", "ACL_MEM_MALLOC_HUGE_ONLY", "ACL_MEM_MALLOC_NORMAL_ONLY",
    "ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST",
    "ACL_MEMCPY_DEVICE_TO_DEVICE",
    "MAX_DIM",
    # float overflow modes (aclrtFloatOverflowMode)
    "ACL_ERROR_RT_FEATURE_NOT_SUPPORT", "ACL_RT_OVERFLOW_MODE_SATURATION", "ACL_RT_OVERFLOW_MODE_INFNAN",
    "ACL_RT_OVERFLOW_MODE_UNDEF",
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
#: A null result inside an aclnn API (aclnnSwish/aclnnSilu: the launcher's host tiling refused).
ACLNN_ERR_INNER_NULLPTR = 561103
#: Emulator codes: use-after-free cases that are undefined behaviour on the device.
ACLNN_ERR_INNER_EXECUTOR_REUSED = 561901
ACLNN_ERR_INNER_TENSOR_DESTROYED = 561902

# --------------------------------------------------------------------------
# Data types (aclDataType)
# --------------------------------------------------------------------------

# The kernel's dtypes: values and names from the dtype table.
ACL_FLOAT = FLOAT32.acl_data_type
ACL_FLOAT16 = FLOAT16.acl_data_type
ACL_BF16 = BFLOAT16.acl_data_type
# The others.
ACL_DT_UNDEFINED = -1
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

# aclDataType -> (its C name, the NumPy dtype that holds it).
ACL_DTYPES = {info.acl_data_type: (info.acl_name, info.numpy) for info in DTYPES.values()}
ACL_DTYPES.update({
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
})
# The data types the kernel computes in, in the table's order.
KERNEL_DTYPES = tuple(info.acl_data_type for info in DTYPES.values())
COMPLEX_DTYPES = (ACL_COMPLEX64, ACL_COMPLEX128)

# --------------------------------------------------------------------------
# Formats (aclFormat)
# --------------------------------------------------------------------------

ACL_FORMAT_UNDEFINED = -1
ACL_FORMAT_NCHW = 0
ACL_FORMAT_NHWC = 1
ACL_FORMAT_ND = 2
ACL_FORMAT_NC1HWC0 = 3
ACL_FORMAT_FRACTAL_NZ = 29

FORMATS = {
    ACL_FORMAT_NCHW: "ACL_FORMAT_NCHW",
    ACL_FORMAT_NHWC: "ACL_FORMAT_NHWC",
    ACL_FORMAT_ND: "ACL_FORMAT_ND",
    ACL_FORMAT_NC1HWC0: "ACL_FORMAT_NC1HWC0",
    ACL_FORMAT_FRACTAL_NZ: "ACL_FORMAT_FRACTAL_NZ",
}
# Formats whose storage is the view's own elements (storage = logical shape).
PLAIN_FORMATS = (ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC)

# --------------------------------------------------------------------------
# Memory: allocation policies (aclrtMemMallocPolicy) and copy kinds (aclrtMemcpyKind)
# --------------------------------------------------------------------------

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_HUGE_ONLY = 1
ACL_MEM_MALLOC_NORMAL_ONLY = 2

ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3

MALLOC_POLICIES = frozenset((ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY))
MEMCPY_KINDS = frozenset((ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
                           ACL_MEMCPY_DEVICE_TO_DEVICE))

#: Most dimensions a tensor of the operator may have.
MAX_DIM = 8

# C's int64_t holds shapes, strides and offsets; NumPy addresses memory with intp (byte strides, sizes).
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
INTP_MAX = int(np.iinfo(np.intp).max)

# --------------------------------------------------------------------------
# Reading enum (and other integer) arguments
# --------------------------------------------------------------------------


def is_int(value) -> bool:
    """Whether ``value`` is a real integer: a Python or NumPy integer, not a bool and not a float equal to one."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_known(code, table) -> bool:
    """Whether ``code`` is an integer key of ``table`` (False for bools, floats such as 2.0 and other objects)."""
    return is_int(code) and int(code) in table


def enum_error(code, argname: str, kind: str, names=None) -> str:
    """Why ``code`` is not a value of the C enum ``kind``."""
    if not is_int(code):
        return f"{argname} must be an integer ({kind}), got {type(code).__name__} {code!r}"
    listed = f"; known: {', '.join(names)}" if names else ""
    return f"{argname} {code!r} is not a known {kind}{listed}"


def dtype_name(code) -> str:
    return ACL_DTYPES[code][0] if is_known(code, ACL_DTYPES) else str(code)


def format_name(code) -> str:
    return FORMATS[code] if is_known(code, FORMATS) else str(code)


# --------------------------------------------------------------------------
# The device's float overflow mode (model section 2, overflow modes)
# --------------------------------------------------------------------------

#: ``aclrtFloatOverflowMode``: saturation (inf -> the largest finite value, NaN -> 0; the A2 and A3, for
#: compatibility), Inf/NaN (IEEE 754, the default), and a reserved value.
ACL_RT_OVERFLOW_MODE_SATURATION = 0
ACL_RT_OVERFLOW_MODE_INFNAN = 1
ACL_RT_OVERFLOW_MODE_UNDEF = 2
#: ``aclrtSetDeviceSatMode`` asked for a mode the device does not have (saturation on a 950).
ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000

#: The modes ``aclrtSetDeviceSatMode`` sets, by their :class:`~swishgrad_numba.platform.Platform` names.
OVERFLOW_MODE_NAMES = {ACL_RT_OVERFLOW_MODE_SATURATION: "saturation", ACL_RT_OVERFLOW_MODE_INFNAN: "infnan"}
