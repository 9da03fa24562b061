"""The operators, one module each, in one registry (:mod:`.registry`).

Registered here:

- ``"swish"`` and ``"silu"``: the Swish forward kernel (:mod:`.swish`);
  Silu is Swish with scale 1.0; in the described form (issue 40).
- ``"silu_grad"``: aclnnSiluBackward (:mod:`.silu_grad`), in the described form;
- ``"sigmoid"`` and ``"sigmoid_grad"``: aclnnSigmoid and aclnnSigmoidBackward (:mod:`.sigmoid`);
- ``"gelu"``: aclnnGelu (:mod:`.gelu`); ``"gelu_grad"``: aclnnGeluBackward (:mod:`.gelu_grad`), in the
  described form (one folder each);
- ``"swish_grad"``: SwishGrad (:mod:`.swish_grad`), whose facts still live
  where the package was built around it (``spec``, ``kernel``, ``tiling``);
  its folder points to them; described, every face generated (issue 40).
- ``"fast_gelu"`` and ``"fast_gelu_grad"``: aclnnFastGelu and aclnnFastGeluBackward, Ascend 950 kernels
  only, in the described form (:mod:`.fast_gelu`, its kernel data both operators'; :mod:`.fast_gelu_grad`).
- ``"leaky_relu"`` and ``"leaky_relu_grad"``: aclnnLeakyRelu and aclnnLeakyReluBackward, Ascend 950
  kernels only, in the described form (:mod:`.description`): one folder each (:mod:`.leaky_relu`,
  :mod:`.leaky_relu_grad`: a description and its kernel data), every face generated from the description.
- ``"softplus"``: aclnnSoftplus (:mod:`.softplus`, Ascend 950 only); ``"softplus_grad"``:
  aclnnSoftplusBackward (:mod:`.softplus_grad`; its 950 host :mod:`.softplus_grad.arch35`, once
  ``ops.softplus_grad_arch35``), in the described form.
- ``"elu"``: aclnnElu (:mod:`.elu`, Ascend 950 only); ``"elu_grad"``: aclnnEluBackward's EluGradV2
  (:mod:`.elu_grad`; its A2 kernel :mod:`.elu_grad.a2`, once ``ops.elu_grad_a2``), in the described form.
"""
from .registry import OPERATORS, Kernel, Operator, OpTiling, get_operator, register
from . import swish_grad  # noqa: F401  (describes "swish_grad")
from . import swish  # noqa: F401  (describes "swish" and "silu")
from . import silu_grad  # noqa: F401  (describes "silu_grad")
from . import fast_gelu, fast_gelu_grad  # noqa: F401  (describe "fast_gelu" and "fast_gelu_grad": Ascend 950 only)
from .read_kernel import ReadOperator, read_kernel  # issue 31; the module re-exports reader.operator
from . import sigmoid  # noqa: F401  (registers "sigmoid" and "sigmoid_grad")
from . import gelu  # noqa: F401  (describes "gelu")
from . import gelu_grad  # noqa: F401  (describes "gelu_grad")
from . import leaky_relu  # noqa: F401  (describes "leaky_relu": Ascend 950 only)
from . import leaky_relu_grad  # noqa: F401  (describes "leaky_relu_grad": Ascend 950 only)
from . import softplus, softplus_grad  # noqa: F401  (describe "softplus", Ascend 950 only, and "softplus_grad")
from .softplus_grad import arch35 as softplus_grad_arch35  # noqa: F401  (its name before issue 40)
from . import elu, elu_grad  # noqa: F401  (describe "elu" and "elu_grad")
from .elu_grad import a2 as elu_grad_a2, a2_host as elu_grad_a2_host  # noqa: F401  (their names before issue 40)

__all__ = ["OPERATORS", "Kernel", "Operator", "OpTiling", "get_operator", "register", "ReadOperator", "read_kernel"]
from . import gelu_v2  # noqa: F401  (describes "gelu_v2": Ascend 950 only)
from . import gelu_grad_v2  # noqa: F401  (describes "gelu_grad_v2")
from .gelu_grad_v2 import a2 as gelu_grad_v2_a2  # noqa: F401  (its name before issue 40)
from . import hardswish  # noqa: F401  (registers "hardswish", 950 only, and "hardswish_grad")
from . import mish  # noqa: F401  (registers "mish")
from . import relu  # noqa: F401  (describes "relu", issue 41)
from . import threshold_backward  # noqa: F401  (describes "threshold_backward", issue 41)
from . import swi_glu  # noqa: F401,E402  (describes "swiglu" and "swiglu_grad": the rows kind, issue 40)
from . import rms_norm  # noqa: F401,E402  (describes "rms_norm": the rows kind, issue 40)
