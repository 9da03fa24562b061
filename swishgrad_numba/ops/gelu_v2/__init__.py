"""GeluV2 (aclnnGeluV2, Ascend 950 only), in one folder: :mod:`.description` (the operator, described once: its
faces are generated from it) and :mod:`.kernel` (the 950 kernel's data), whose names are re-exported here
(``ops.gelu_v2.APPROXIMATIONS``, ``approximate_code``, ``host_tiling``, ...)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import APPROXIMATE, DESCRIPTION, op_api_checks

__all__ = [*_kernel_all, "APPROXIMATE", "DESCRIPTION", "op_api_checks"]
