"""Mish (aclnnMish, aclnnInplaceMish: op type Mish, Atlas A2 and Ascend 950).

The kernels' data (records, host tilings, programs) are :mod:`.forward`; the public function is
:mod:`.api`. docs/model.md, "Mish", cites the sources. (MishBackward is not emulated yet.)
"""
from ..registry import register
from . import forward

MISH = register(forward.OPERATOR)

__all__ = ["MISH", "forward"]
