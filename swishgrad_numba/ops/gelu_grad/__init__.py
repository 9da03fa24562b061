"""GeluGrad (aclnnGeluBackward), in one folder: :mod:`.description` (the operator, described once),
:mod:`.kernel` (the A2 and 950 kernels' data) and :mod:`.program` (their Compute), whose names are re-exported
here (``ops.gelu_grad.host_tiling``, ``ops.gelu_grad.sigmoid_argument``, ...)."""
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _kernel_all
from .description import DESCRIPTION

__all__ = [*_kernel_all, "DESCRIPTION"]
