"""Hardswish (aclnnHardswish, aclnnInplaceHardswish: op type HardSwish, Ascend 950 only) and HardswishBackward
(aclnnHardswishBackward: op type HardSwishGrad, Atlas A2 and Ascend 950), in the described form (issue 40):
:mod:`.description` and :mod:`.backward_description` (each operator described once: every face is generated
from them) and the kernels' data: :mod:`.split` (the shared 24-byte struct and block-factor split),
:mod:`.forward` and :mod:`.backward` (host tilings, programs). docs/model.md, "Hardswish and
HardswishBackward", cites the sources.
"""
from ..registry import get_operator
from . import backward, forward
from .description import DESCRIPTION, HARDSWISH_DTYPES, hardswish_second_derivative
from .backward_description import DESCRIPTION as GRAD_DESCRIPTION

HARDSWISH = get_operator("hardswish")
HARDSWISH_GRAD = get_operator("hardswish_grad")

__all__ = ["HARDSWISH", "HARDSWISH_GRAD", "DESCRIPTION", "GRAD_DESCRIPTION", "HARDSWISH_DTYPES",
           "hardswish_second_derivative", "forward", "backward"]
