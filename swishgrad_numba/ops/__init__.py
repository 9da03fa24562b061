"""The operators, one module each, in one registry (:mod:`.registry`).

Registered here:

- ``"swish"`` and ``"silu"``: the Swish forward kernel (:mod:`.swish`);
  Silu is Swish with scale 1.0.
- ``"silu_grad"``: aclnnSiluBackward (:mod:`.silu_grad`);
- ``"sigmoid"`` and ``"sigmoid_grad"``: aclnnSigmoid and aclnnSigmoidBackward (:mod:`.sigmoid`);
- ``"gelu"``: aclnnGelu (:mod:`.gelu`); ``"gelu_grad"``: aclnnGeluBackward (:mod:`.gelu_grad`);
- ``"swish_grad"``: SwishGrad (:mod:`.swish_grad`), whose facts still live
  where the package was built around it (``spec``, ``kernel``, ``tiling``);
  its entry points to them.
- ``"fast_gelu"`` and ``"fast_gelu_grad"``: aclnnFastGelu and
  aclnnFastGeluBackward (:mod:`.fast_gelu`), Ascend 950 kernels only.
"""
from .registry import OPERATORS, Kernel, Operator, OpTiling, get_operator, register
from . import swish_grad  # noqa: F401  (registers "swish_grad")
from . import swish  # noqa: F401  (registers "swish" and "silu")
from . import silu_grad  # noqa: F401  (registers "silu_grad")
from . import fast_gelu  # noqa: F401  (registers "fast_gelu" and "fast_gelu_grad": Ascend 950 only)
from .read_kernel import ReadOperator, read_kernel  # issue 31: an operator read from its Ascend C source
from . import sigmoid  # noqa: F401  (registers "sigmoid" and "sigmoid_grad")
from . import gelu  # noqa: F401  (registers "gelu")
from . import gelu_grad  # noqa: F401  (registers "gelu_grad")

__all__ = ["OPERATORS", "Kernel", "Operator", "OpTiling", "get_operator", "register", "ReadOperator", "read_kernel"]
from . import gelu_v2  # noqa: F401  (registers "gelu_v2": Ascend 950 only)
from . import gelu_grad_v2  # noqa: F401  (registers "gelu_grad_v2")
