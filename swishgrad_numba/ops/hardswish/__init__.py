"""Hardswish (aclnnHardswish, aclnnInplaceHardswish: op type HardSwish, Ascend 950 only) and
HardswishBackward (aclnnHardswishBackward: op type HardSwishGrad, Atlas A2 and Ascend 950).

The kernels' data (records, host tilings, programs) are :mod:`.split`, :mod:`.forward` and
:mod:`.backward`; the public functions are :mod:`.api`. docs/model.md, "Hardswish and
HardswishBackward", cites the sources.
"""
from ..registry import register
from . import backward, forward

HARDSWISH = register(forward.OPERATOR)
HARDSWISH_GRAD = register(backward.OPERATOR)

__all__ = ["HARDSWISH", "HARDSWISH_GRAD", "forward", "backward"]
