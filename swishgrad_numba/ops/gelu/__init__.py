"""Gelu (aclnnGelu), in one folder: :mod:`.description` (the operator, described once: its faces are
generated from it) and :mod:`.kernel` (the A2 and 950 kernels' data), whose names are re-exported here
(``ops.gelu.host_tiling``, ``ops.gelu.arch35_buffer_num``, ...)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, GELU_DTYPES, op_api_checks

__all__ = [*_kernel_all, "DESCRIPTION", "GELU_DTYPES", "op_api_checks"]
