"""swishgrad_numba: a bit-exact, multicore CPU emulation of the Ascend SwishGrad kernel."""
from .dtypes import SUPPORTED_DTYPES, bfloat16
from .platform import REFERENCE_PLATFORM, Platform
from .tiling import TILING_DTYPE, TILING_FIELDS, Tiling, compute_tiling
from .api import swish_backward

__all__ = [
    "Platform",
    "REFERENCE_PLATFORM",
    "SUPPORTED_DTYPES",
    "TILING_DTYPE",
    "TILING_FIELDS",
    "Tiling",
    "bfloat16",
    "compute_tiling",
    "swish_backward",
]
__version__ = "0.1.0"
