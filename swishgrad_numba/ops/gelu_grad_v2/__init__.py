"""GeluGradV2 (aclnnGeluBackwardV2), in one folder: :mod:`.description` (the operator, described once),
:mod:`.kernel` (the 950 kernel's data and the registry's) and :mod:`.a2` (the A2 kernel: 256-byte split,
bufferOpen, its erf; once ``ops/gelu_grad_v2_a2.py``). The kernel's names are re-exported here."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from . import a2
from .description import DESCRIPTION

__all__ = [*_kernel_all, "a2", "DESCRIPTION"]
