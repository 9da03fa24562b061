"""Mish (aclnnMish, aclnnInplaceMish: op type Mish, Atlas A2 and Ascend 950) and MishBackward
(aclnnMishBackward: op type MishGrad, the Ascend 950 kernel; the A2's not emulated yet).

The kernels' data (records, host tilings, programs) are :mod:`.forward` and :mod:`.backward`; the public
functions :mod:`.api`. docs/model.md, "Mish" and "MishBackward", cite the sources.
"""
from ..registry import register
from . import backward, forward

MISH = register(forward.OPERATOR)
MISH_GRAD = register(backward.OPERATOR)

__all__ = ["MISH", "MISH_GRAD", "forward", "backward"]
