"""ThresholdBackward (aclnnThresholdBackward: ReluGrad or ThresholdGradV2D), in one folder: :mod:`.description`
(the operator, described once) and :mod:`.kernel` (both kernels on both architectures, re-exported here)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, INTEGER_DTYPES, THRESHOLD_BACKWARD_DTYPES, integer_threshold_backward

__all__ = [*_kernel_all, "DESCRIPTION", "INTEGER_DTYPES", "THRESHOLD_BACKWARD_DTYPES", "integer_threshold_backward"]
