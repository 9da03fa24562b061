"""Relu (aclnnRelu, aclnnInplaceRelu), in one folder: :mod:`.description` (the operator, described once: its
faces are generated from it) and :mod:`.kernel` (the A2 and 950 kernels' data, re-exported here)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, INTEGER_DTYPES, RELU_DTYPES, integer_relu

__all__ = [*_kernel_all, "DESCRIPTION", "INTEGER_DTYPES", "RELU_DTYPES", "integer_relu"]
