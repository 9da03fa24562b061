"""EluGradV2 (aclnnEluBackward), in one folder: :mod:`.description` (the operator, described once),
:mod:`.kernel` (the Ascend 950 kernel's data, re-exported here), :mod:`.a2` and :mod:`.a2_host` (the A2's)."""
from . import a2, a2_host  # noqa: F401
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, ELU_BACKWARD_DTYPES

__all__ = [*_kernel_all, "DESCRIPTION", "ELU_BACKWARD_DTYPES"]
