"""Sigmoid and SigmoidGrad, the operators behind aclnnSigmoid / aclnnInplaceSigmoid and
aclnnSigmoidBackward (issue 29's first two), on the program form, in the described form (issue 40).

docs/model.md, "Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid)" and "SigmoidBackward
(aclnnSigmoidBackward)"; docs/activation_tiling.md for the tilings. One module per concern:

* :mod:`.shared`: the structs both operators share, the 950 tiling key, the record's walk, the
  validator's view of it and the launch (each program is made per dtype by
  :func:`swishgrad_numba.program.elementwise.elementwise` from its float32 Compute);
* :mod:`.forward`: Sigmoid's host tilings, buffer plans, program and kernels;
* :mod:`.backward`: SigmoidGrad's, each kernel with its own multiplication order;
* :mod:`.aicpu`: the AICPU SigmoidGrad kernel (float64, complex64, complex128: host code, no program);
* :mod:`.description`: both operators described once, registered as ``"sigmoid"`` and ``"sigmoid_grad"``;
  every face (``swishgrad_numba.sigmoid``, ``sigmoid_backward``, the aclnn pairs, ``torch.Sigmoid``, the
  Dask functions) is generated from it.
"""
from . import forward, backward  # noqa: F401
from .description import AICPU_DTYPES, DESCRIPTION, GRAD_DESCRIPTION, GRAD_DTYPES, SIGMOID_DTYPES, aicpu_sigmoid_grad

__all__ = ["forward", "backward", "DESCRIPTION", "GRAD_DESCRIPTION", "SIGMOID_DTYPES", "GRAD_DTYPES", "AICPU_DTYPES",
           "aicpu_sigmoid_grad"]
