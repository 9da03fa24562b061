"""LeakyRelu (aclnnLeakyRelu), in one folder: :mod:`.description` (the operator, described once: its faces
are generated from it) and :mod:`.kernel` (the Ascend 950 kernel's data). The kernel's names are
re-exported here (``ops.leaky_relu.host_tiling``, ...)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, LEAKY_RELU_DTYPES, aicpu_leaky_relu

__all__ = [*_kernel_all, "DESCRIPTION", "LEAKY_RELU_DTYPES", "aicpu_leaky_relu"]
