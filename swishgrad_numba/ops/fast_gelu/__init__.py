"""FastGelu (aclnnFastGelu, Ascend 950 only), in one folder: :mod:`.description` (the operator, described
once: its faces are generated from it) and :mod:`.kernel` (the 950 kernels' data, FastGeluGrad's too:
:mod:`swishgrad_numba.ops.fast_gelu_grad` describes it), whose names are re-exported here
(``ops.fast_gelu.programs``, ...)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, FAST_GELU_DTYPES, op_api_checks

__all__ = [*_kernel_all, "DESCRIPTION", "FAST_GELU_DTYPES", "op_api_checks"]
