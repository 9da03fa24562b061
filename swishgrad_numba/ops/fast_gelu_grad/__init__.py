"""FastGeluGrad (aclnnFastGeluBackward, Ascend 950 only), in one folder: :mod:`.description` (the operator,
described once); its kernel's data is FastGelu's (:mod:`swishgrad_numba.ops.fast_gelu.kernel`)."""
from .description import DESCRIPTION

__all__ = ["DESCRIPTION"]
