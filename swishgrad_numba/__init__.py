"""swishgrad_numba: a bit-exact, multicore CPU emulation of the Ascend SwishGrad kernel."""
from . import runtime  # first: Numba's cache location and threading layer
from .dtypes import SUPPORTED_DTYPES, bfloat16
from .platform import REFERENCE_PLATFORM, Platform
from .tiling import TILING_DTYPE, TILING_FIELDS, Tiling, compute_tiling
from .api import swish_backward
from .tiling_io import read_tiling_bin, write_tiling_bin
from .validation import tiling_balance, validate_tiling

__all__ = [
    "Platform",
    "REFERENCE_PLATFORM",
    "SUPPORTED_DTYPES",
    "TILING_DTYPE",
    "TILING_FIELDS",
    "Tiling",
    "bfloat16",
    "compute_tiling",
    "read_tiling_bin",
    "swish_backward",
    "tiling_balance",
    "validate_tiling",
    "write_tiling_bin",
]
__version__ = "0.1.0"
