"""SoftplusV2Grad (aclnnSoftplusBackward), in one folder: :mod:`.description` (the operator, described once),
:mod:`.kernel` (the A2 and 950 kernels' data, re-exported here) and :mod:`.arch35` (the 950's own broadcast
host tiling; ``ops.softplus_grad_arch35`` before issue 40)."""
from . import arch35  # noqa: F401
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, GRAD_DTYPES, X_ONLY_DTYPES

__all__ = [*_kernel_all, "DESCRIPTION", "GRAD_DTYPES", "X_ONLY_DTYPES"]
