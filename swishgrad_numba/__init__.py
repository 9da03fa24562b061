"""swishgrad_numba: a bit-exact, multicore CPU emulation of the Ascend SwishGrad kernels.

The model it follows is described in ``docs/model.md``; the layout of the
package in ``docs/architecture.md``.
"""
from . import runtime  # first: Numba's cache location and threading layer
from .dtypes import SUPPORTED_DTYPES, bfloat16
from .platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from .tiling import Tiling, compute_tiling, read_tiling_bin, write_tiling_bin
from .ops.swish_grad.host import ARCH35_TILING_DTYPE, ARCH35_TILING_FIELDS, TILING_DTYPE, TILING_FIELDS
from .faces.swish_grad import run_tiling
from .tiling import tiling_balance, validate_tiling
from .faces.functional import face as _face

swish_backward = _face("swish_grad")   # generated from its description (issue 40; scale=, sconf= its aliases)

__all__ = [
    "ARCH35_TILING_DTYPE",
    "ARCH35_TILING_FIELDS",
    "ASCEND950_PLATFORM",
    "Platform",
    "REFERENCE_PLATFORM",
    "SUPPORTED_DTYPES",
    "TILING_DTYPE",
    "TILING_FIELDS",
    "Tiling",
    "bfloat16",
    "compute_tiling",
    "read_tiling_bin",
    "run_tiling",
    "silu",
    "silu_backward",
    "swish",
    "swish_backward",
    "tiling_balance",
    "validate_tiling",
    "write_tiling_bin",
    "fast_gelu",
    "fast_gelu_backward",
    "sigmoid",
    "sigmoid_backward",
    "gelu",
    "gelu_backward",
    "leaky_relu",
    "leaky_relu_backward",
    "softplus",
    "softplus_backward",
    "elu",
    "elu_backward",
    "gelu_v2",
    "gelu_backward_v2",
]
# The described operators' functions, generated from their descriptions (issue 40).
leaky_relu = _face("leaky_relu")
leaky_relu_backward = _face("leaky_relu_grad")
elu = _face("elu")
elu_backward = _face("elu_grad")
softplus = _face("softplus")
softplus_backward = _face("softplus_grad")
sigmoid = _face("sigmoid")  # issue 40: generated from its description
sigmoid_backward = _face("sigmoid_grad")
fast_gelu = _face("fast_gelu")
fast_gelu_backward = _face("fast_gelu_grad")
gelu = _face("gelu")
gelu_backward = _face("gelu_grad")
gelu_v2 = _face("gelu_v2")
gelu_backward_v2 = _face("gelu_grad_v2")
__version__ = "0.2.0"
hardswish = _face("hardswish")  # noqa: E305  (issue 41: generated from its description)
hardswish_backward = _face("hardswish_grad")

__all__ += ["hardswish", "hardswish_backward"]
mish = _face("mish")  # noqa: E305  (issue 41: generated from its description)
mish_backward = _face("mish_grad")

__all__ += ["mish", "mish_backward"]
rms_norm = _face("rms_norm")  # noqa: E305  (issue 42; issue 40: generated from its description, the rows kind)
swiglu = _face("swiglu")  # noqa: E305  (issue 40: generated from its description, the rows kind)
swiglu_backward = _face("swiglu_grad")

__all__ += ["rms_norm", "swiglu", "swiglu_backward"]
relu = _face("relu")  # noqa: E305  (issue 41: generated from its description)

threshold_backward = _face("threshold_backward")  # noqa: E305  (issue 41)
swish = _face("swish")  # noqa: E305  (issue 40: generated from its description, ops/swish/)
silu = _face("silu")
silu_backward = _face("silu_grad")
__all__ += ["relu", "threshold_backward"]
