"""Swish and Silu (aclnnSwish, aclnnSilu: one kernel, Silu's scale 1.0), in one folder:
:mod:`.description` (the two operators, described once: their functional and aclnn faces are generated),
:mod:`.kernel` (the programs of both kernels, their launch, walk checks) and :mod:`.host` (the structs,
beta classes and tiling key, the host tilings, the 950 DAGs). Their names are re-exported here
(``ops.swish.host_tiling``, ``ops.swish.DAGS``, ...), as when ``ops.swish`` and ``ops.swish_host`` were
modules."""
from .host import *  # noqa: F401,F403
from .host import __all__ as _host_all
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, SILU_DESCRIPTION, SWISH_DTYPES
from ..registry import get_operator

#: The registry entries (``get_operator("swish")``, ``get_operator("silu")``).
SWISH, SILU = get_operator("swish"), get_operator("silu")

__all__ = [*dict.fromkeys([*_host_all, *_kernel_all]), "DESCRIPTION", "SILU_DESCRIPTION", "SWISH_DTYPES",
           "SWISH", "SILU"]
