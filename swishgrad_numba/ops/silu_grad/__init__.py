"""SiluGrad, the operator behind ``aclnnSiluBackward``: its facts, host tilings and kernels.

The model is docs/model.md, section "SiluBackward".

``dx = dy * (s * ((1 - s) * x + 1))`` with ``s = 1 / (exp(-x) + 1)``, in
binary32, one instruction at a time. Two kernels, chosen by SoC:

* **Atlas A2** (ops-nn ``experimental/activation/silu_grad``): a 32-byte
  ``SiluGradTilingData`` of four uint64; the host picks single or double
  buffering (``schMode`` 0/1) from the small cores' data size. Inputs and
  output share one dtype and one shape.
* **Ascend 950** (mainline ``activation/silu_grad``, arch35): the atvoss
  ``BroadcastTiling`` (opbase) over the collapsed shapes; ``dy`` and ``x``
  may broadcast against each other and may have different dtypes, in which
  case ``dx`` is float32.

Both kernels run the same steps in the same order (the products commute),
so one program serves both (:mod:`.program`): ``z(x)``, the factor ``dy``
is multiplied by last. That factorisation is exact (every step is its own
binary32 rounding, and ``dy`` enters only in the last Mul), so a 16-bit
``x`` looks ``z`` up in a 65,536-entry table the engine builds from the
same program.

Public: :func:`silu_backward`; the host tilings :func:`a2_host_tiling`,
:func:`arch35_host_tiling` and :func:`host_tiling`; the structs
:data:`A2_TILING_DTYPE` and :data:`ARCH35_TILING_DTYPE`; the UB plans
:func:`a2_buffer_plan` and :func:`arch35_buffer_plan`; :func:`run_a2` and
:func:`run_arch35` run a kernel with a tiling (reads and writes stay inside
the arrays). The jitted kernels are private.

One module per concern; every public name is re-exported here, and
importing the package describes (registers) ``"silu_grad"`` once:

* :mod:`.names`: the package's name, CANN's operator type, the aclnn entry
  point and its signatures, the rank limit;
* :mod:`.a2`: the A2 struct, host tiling, buffer plan, walk fields and walk
  check;
* :mod:`.arch35`: the 950 struct, BroadcastTiling host (dimension collapse,
  op keys), dtype rule, buffer plan and walk check;
* :mod:`.record_walk`: the broadcast walk of a record in the 950 layout;
* :mod:`.program`: the program of both kernels, and the instructions the
  device-time model charges, read from it;
* :mod:`.launch`: :func:`run_a2`, :func:`run_arch35` and the registry's
  :func:`run`;
* :mod:`.host`: :func:`host_tiling`, the registry's host tiling, the broadcast inputs' tiling and launch,
  the kernels by architecture;
* :mod:`.description`: the operator described once (issue 40): ``silu_backward`` and the aclnn pair
  are generated from it (``swishgrad_numba.silu_backward``; ``ops.silu_grad.silu_backward`` still
  names it).
"""
from __future__ import annotations

from .names import ACLNN_LAUNCH_SIGNATURE, ACLNN_NAME, ACLNN_SIGNATURE, MAX_DIMS, NAME, OP_TYPE
from .a2 import (
    A2_TARGET_ELEMENTS_PER_CORE, A2_TILING_DTYPE, A2_TILING_FIELDS, A2_UB_UNITS, SCH_MODE_DOUBLE, SCH_MODE_SINGLE,
    A2Tiling, a2_buffer_plan, a2_host_tiling, a2_walk_check, a2_walk_fields, buffer_plan_bytes,
)
from .arch35 import (
    ARCH35_ARRAY_FIELDS, ARCH35_COMPUTE_PARAMS, ARCH35_OP_KEYS, ARCH35_SCALAR_FIELDS, ARCH35_TILING_DTYPE,
    ARCH35_WORKSPACE_SIZE, Arch35Tiling, arch35_buffer_plan, arch35_host_tiling, arch35_walk_check,
    dimension_collapse, output_dtype,
)
from .program import device_instructions, programs
from .launch import run, run_a2, run_arch35
from .host import KERNELS, host_tiling
from .description import DESCRIPTION, SILU_GRAD_DTYPES
from ..registry import get_operator

#: The registry entry.
SILU_GRAD = get_operator(NAME)

__all__ = [
    "NAME", "OP_TYPE", "ACLNN_NAME", "ACLNN_SIGNATURE", "ACLNN_LAUNCH_SIGNATURE",
    "A2_TILING_DTYPE", "A2_TILING_FIELDS", "ARCH35_TILING_DTYPE", "ARCH35_SCALAR_FIELDS", "ARCH35_ARRAY_FIELDS",
    "SCH_MODE_SINGLE", "SCH_MODE_DOUBLE", "A2_UB_UNITS", "A2_TARGET_ELEMENTS_PER_CORE",
    "ARCH35_OP_KEYS", "ARCH35_COMPUTE_PARAMS", "ARCH35_WORKSPACE_SIZE", "MAX_DIMS",
    "A2Tiling", "Arch35Tiling", "a2_host_tiling", "arch35_host_tiling", "host_tiling",
    "a2_buffer_plan", "arch35_buffer_plan", "buffer_plan_bytes", "output_dtype", "dimension_collapse",
    "run_a2", "run_arch35", "a2_walk_fields", "a2_walk_check", "arch35_walk_check", "run",
    "silu_backward", "KERNELS", "DESCRIPTION", "SILU_GRAD_DTYPES", "SILU_GRAD",
]


def __getattr__(name: str):
    """``silu_backward``: the generated function (:func:`swishgrad_numba.silu_backward`), named here as
    before issue 40 (made on first use: the faces import the operators)."""
    if name == "silu_backward":
        from ...faces.functional import face

        return face(NAME)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
