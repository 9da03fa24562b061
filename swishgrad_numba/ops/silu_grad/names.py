"""SiluGrad's names: the package's, CANN's operator type, the aclnn entry point and its signatures, the rank limit."""
from __future__ import annotations

from ...kernel import broadcast

__all__ = ["NAME", "OP_TYPE", "ACLNN_NAME", "ACLNN_SIGNATURE", "ACLNN_LAUNCH_SIGNATURE", "MAX_DIMS"]


#: The package's name of the operator.
NAME = "silu_grad"
#: CANN's operator type (``OP_ADD(SiluGrad)``).
OP_TYPE = "SiluGrad"
#: The aclnn entry point and its two phases.
ACLNN_NAME = "aclnnSiluBackward"
ACLNN_SIGNATURE = ("aclnnSiluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, "
                   "aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor)")
ACLNN_LAUNCH_SIGNATURE = ("aclnnSiluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, "
                          "aclrtStream stream)")

#: The op_api's dimension limit (``MAX_SUPPORT_DIMS_NUMS``), and the 950 struct's dims slots
#: (the broadcast walk's rank).
MAX_DIMS = broadcast.MAX_RANK
