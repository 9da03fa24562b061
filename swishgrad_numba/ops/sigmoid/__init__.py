"""Sigmoid and SigmoidGrad, the operators behind aclnnSigmoid / aclnnInplaceSigmoid and
aclnnSigmoidBackward (issue 29's first two), on the program form.

docs/model.md, "Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid)" and "SigmoidBackward
(aclnnSigmoidBackward)"; docs/activation_tiling.md for the tilings. One module per concern:

* :mod:`.shared`: the structs both operators share, the 950 tiling key, the record's walk, the
  validator's view of it and the launch (each program is made per dtype by
  :func:`swishgrad_numba.program.elementwise.elementwise` from its float32 Compute);
* :mod:`.forward`: Sigmoid's host tilings, buffer plans and program, registered as ``"sigmoid"``;
* :mod:`.backward`: SigmoidGrad's, each kernel with its own multiplication order, registered as
  ``"sigmoid_grad"``;
* :mod:`.aicpu`: the AICPU SigmoidGrad kernel (float64, complex64, complex128: host code, no program);
* :mod:`.api`: the public :func:`sigmoid` and :func:`sigmoid_backward`.
"""
from . import forward, backward  # noqa: F401  (register "sigmoid" and "sigmoid_grad")
from .api import sigmoid, sigmoid_backward

__all__ = ["forward", "backward", "sigmoid", "sigmoid_backward"]
