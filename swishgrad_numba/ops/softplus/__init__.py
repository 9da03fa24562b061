"""SoftplusV2 (aclnnSoftplus, Ascend 950 only), in one folder: :mod:`.description` (the operator, described
once: its faces are generated from it) and :mod:`.kernel` (the 950 kernel's data), whose names are
re-exported here."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, SOFTPLUS_DTYPES

__all__ = [*_kernel_all, "DESCRIPTION", "SOFTPLUS_DTYPES"]
