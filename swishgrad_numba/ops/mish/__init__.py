"""Mish (aclnnMish, aclnnInplaceMish: op type Mish) and MishBackward (aclnnMishBackward: op type MishGrad),
Atlas A2 and Ascend 950 kernels, in the described form (issue 40): :mod:`.description` and
:mod:`.backward_description` (each operator described once: every face is generated from them) and the
kernels' data (records, host tilings, programs): :mod:`.forward`, :mod:`.backward` (the 950's MishGrad) and
:mod:`.backward_a2` (the A2's). docs/model.md, "Mish" and "MishBackward", cite the sources.
"""
from ..registry import get_operator
from . import backward, backward_a2, forward
from .description import DESCRIPTION, V2_DTYPES, mish_second_derivative
from .backward_description import DESCRIPTION as GRAD_DESCRIPTION

MISH = get_operator("mish")
MISH_GRAD = get_operator("mish_grad")

__all__ = ["MISH", "MISH_GRAD", "DESCRIPTION", "GRAD_DESCRIPTION", "V2_DTYPES", "mish_second_derivative",
           "forward", "backward", "backward_a2"]
