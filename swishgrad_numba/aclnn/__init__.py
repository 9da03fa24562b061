"""The aclnn two-phase API of SwishGrad, emulated on the CPU (model sections 5 and 6).

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
expressible. A launch on a stream runs the emulated kernel on the launching
thread (or, where another thread is running the stream's launches, queued
behind them); results are defined after ``aclrtSynchronizeStream``.

The package, each layer importing only those above it:

- :mod:`.enums`: the C enums (status codes, ``aclDataType``, ``aclFormat``,
  memory policies and copy kinds); the kernel's data types come from the
  dtype table :data:`swishgrad_numba.dtypes.DTYPES`;
- :mod:`.state`: the emulated platform (:func:`set_platform`; the C API
  has none, the device's SoC decides) and each thread's last error message
  (:func:`aclGetRecentErrMsg`);
- :mod:`.device`: ACL initialisation, devices, streams (run on the threads
  that use them) and memory;
- :mod:`.tensor`: the ``aclTensor`` / ``aclScalar`` descriptors, their
  creators and geometry checks;
- :mod:`.twophase`: what every operator's two phases share (tensor
  pointers and views, phase one's frame, phase two's checks and queueing);
- :mod:`.described`: the pairs of the operators in the described form, generated from their
  descriptions (:mod:`swishgrad_numba.ops.description`): aclnnSwishBackward (the platform's SoC picks the
  kernel: the Atlas A2 one, whose op definition also takes NC1HWC0 and FRACTAL_NZ storage, or on an Ascend
  950 the arch35 one, ``ACL_FORMAT_ND`` storage only: :mod:`.storage`; the executor, ``aclOpExecutor``,
  holds the kernel's host tiling), aclnnLeakyRelu, aclnnInplaceLeakyRelu and
  aclnnLeakyReluBackward (Ascend 950 kernels; float64 on a plain model of the AICPU kernels), aclnnElu,
  aclnnEluBackward, aclnnSoftplus (Ascend 950 kernel only), aclnnSoftplusBackward, aclnnRelu,
  aclnnThresholdBackward; aclnnSigmoid, aclnnInplaceSigmoid and aclnnSigmoidBackward (AICPU for
  float64/complex); aclnnSwish, aclnnSilu and aclnnSiluBackward; aclnnFastGelu and aclnnFastGeluBackward
  (Ascend 950 kernels only; the A2 and A3 pass their op_api and answer 561103, no public kernel), aclnnGelu,
  aclnnGeluBackward, aclnnGeluV2 (Ascend 950 kernel only) and aclnnGeluBackwardV2; aclnnMish,
  aclnnInplaceMish, aclnnMishBackward, aclnnHardswish, aclnnInplaceHardswish and aclnnHardswishBackward;
  (``aclnn.op_api``, SwishGrad's hand-written pair, was removed by issue 40: every pair is generated).

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
from . import device, enums, state, tensor
from .enums import *  # noqa: F401,F403  (each module's __all__ is its public names)
from .state import *  # noqa: F401,F403
from .device import *  # noqa: F401,F403
from .tensor import *  # noqa: F401,F403

# The C namespace: every module's public names.
__all__ = [*enums.__all__, *state.__all__, *device.__all__, *tensor.__all__, "aclOpExecutor"]


# The described operators' pairs, generated from their descriptions (issue 40): aclnnLeakyRelu,
# aclnnInplaceLeakyRelu, aclnnLeakyReluBackward, aclnnElu, aclnnEluBackward, ...
from . import described, described_rows  # noqa: E402  (described_rows: aclnnSwiGlu, aclnnSwiGluGrad, aclnnRmsNorm)
from .described_rows import ACLNN_ERR_INNER_TILING_ERROR  # noqa: E402  (aclnnRmsNorm's page: its host tiling's)
from .described import aclOpExecutor  # noqa: E402  (the C executor type: every generated pair's)

__all__ += ["ACLNN_ERR_INNER_TILING_ERROR"]
from ..ops.description import described as _described  # noqa: E402
from ..ops.description import DESCRIPTIONS as _DESCRIPTIONS  # noqa: E402

for _name in _described():
    _pairs = described.faces(_name) if _DESCRIPTIONS[_name].rows is None else described_rows.faces(_name)
    globals().update(_pairs)
    __all__ += list(_pairs)
del _name, _pairs, _described, _DESCRIPTIONS
