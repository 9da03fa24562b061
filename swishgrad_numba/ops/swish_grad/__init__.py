"""SwishGrad (aclnnSwishBackward), in one folder: :mod:`.description` (the operator, described once;
``swishgrad_numba.swish_backward`` and the aclnn pair are generated from it, ``run_tiling`` is in
:mod:`swishgrad_numba.faces.swish_grad`),
:mod:`.kernel` (its programs, kernels and launch: once ``ops/swish_grad.py``) and :mod:`.host` (its host
tiling; its structs are :mod:`swishgrad_numba.tiling.records`': once ``ops/swish_grad_host.py``). Their
names are re-exported here (``ops.swish_grad.launch``, ``ops.swish_grad.host_tiling``, ...)."""
from .host import *  # noqa: F401,F403
from .host import __all__ as _host_all
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION, SWISH_GRAD_DTYPES
from ..registry import get_operator

#: The registry entry (``get_operator("swish_grad")``).
SWISH_GRAD = get_operator(NAME)  # noqa: F405

__all__ = [*_host_all, *_kernel_all, "DESCRIPTION", "SWISH_GRAD_DTYPES", "SWISH_GRAD"]
