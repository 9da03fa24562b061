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

The package, each layer importing only those above it:

- :mod:`.enums`: the C enums (status codes, ``aclDataType``, ``aclFormat``,
  memory policies and copy kinds); the kernel's data types come from the
  dtype table :data:`swishgrad_numba.dtypes.DTYPES`;
- :mod:`.state`: the emulated platform (:func:`set_platform`; the C API
  has none, the device's SoC decides) and each thread's last error message
  (:func:`aclGetRecentErrMsg`);
- :mod:`.device`: ACL initialisation, devices, streams (a worker thread
  each) and memory;
- :mod:`.tensor`: the ``aclTensor`` / ``aclScalar`` descriptors, their
  creators and geometry checks;
- :mod:`.op_api`: the operator, as CANN's op_api: phase one's checks and
  the executor holding the platform kernel's tiling, phase two's launch.
  The platform's SoC picks the kernel: the Atlas A2 one, or on an Ascend 950
  the arch35 one, whose op definition accepts ``ACL_FORMAT_ND`` storage only.

Names with a leading underscore are private to the package. Status codes
beyond the C library's own (documented in ``docs/aclnn.md``):

- ``ACLNN_ERR_INNER_EXECUTOR_REUSED`` (561901): an executor was run twice;
- ``ACLNN_ERR_INNER_TENSOR_DESTROYED`` (561902): a tensor of the executor was
  destroyed between the two phases.

On the device both are undefined behaviour (use after free); the emulator
reports them instead. Errors never raise: every entry point returns a status
(or ``None`` for the creators) and records a message for
:func:`aclGetRecentErrMsg` that names the argument and the rule broken.
"""
from . import device, enums, op_api, state, tensor
from .enums import (
    ACL_BF16,
    ACL_BOOL,
    ACL_COMPLEX64,
    ACL_COMPLEX128,
    ACL_DOUBLE,
    ACL_DT_UNDEFINED,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_INTERNAL_ERROR,
    ACL_ERROR_RT_MEMORY_ALLOCATION,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_FLOAT,
    ACL_FLOAT16,
    ACL_FORMAT_FRACTAL_NZ,
    ACL_FORMAT_NC1HWC0,
    ACL_FORMAT_NCHW,
    ACL_FORMAT_ND,
    ACL_FORMAT_NHWC,
    ACL_FORMAT_UNDEFINED,
    ACL_INT8,
    ACL_INT16,
    ACL_INT32,
    ACL_INT64,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_SUCCESS,
    ACL_UINT8,
    ACL_UINT16,
    ACL_UINT32,
    ACL_UINT64,
    ACLNN_ERR_INNER,
    ACLNN_ERR_INNER_EXECUTOR_REUSED,
    ACLNN_ERR_INNER_TENSOR_DESTROYED,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_RUNTIME_ERROR,
    ACLNN_SUCCESS,
    MAX_DIM,
)
from .state import aclGetRecentErrMsg, get_platform, set_platform
from .device import (
    aclFinalize,
    aclInit,
    aclrtCreateStream,
    aclrtDestroyStream,
    aclrtFree,
    aclrtMalloc,
    aclrtMemcpy,
    aclrtResetDevice,
    aclrtSetDevice,
    aclrtStream,
    aclrtSynchronizeStream,
)
from .tensor import aclCreateScalar, aclCreateTensor, aclDestroyScalar, aclDestroyTensor, aclScalar, aclTensor
from .op_api import aclnnSwishBackward, aclnnSwishBackwardGetWorkspaceSize, aclOpExecutor

# The C namespace: every module's public names.
__all__ = [*enums.__all__, *state.__all__, *device.__all__, *tensor.__all__, *op_api.__all__]
