"""The operator registry: one frozen description per operator, keyed by name.

An operator module (:mod:`.swish`, ...) describes its operator once, as an
:class:`Operator` with one :class:`Kernel` per architecture, and registers
it here; generic code (the public functions, ``compute_tiling(op=...)``)
looks the operator up by name. :class:`OpTiling` is the host tiling of any
registered operator's kernel (:mod:`.op_tiling`); :class:`Kernel` and :class:`WalkCheck`, what one kernel
is and what it tells the validator, live in :mod:`.kernels`; all three are re-exported here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..platform import ARCH_A2, ASCEND950_PLATFORM, REFERENCE_PLATFORM
from .kernels import Kernel, WalkCheck
from .op_tiling import OpTiling

__all__ = ["Kernel", "Operator", "OpTiling", "WalkCheck", "OPERATORS", "ROWS", "register", "get_operator",
           "every_operator"]


@dataclass(frozen=True)
class Operator:
    """One operator: its names, its kernels by architecture, its host tiling.

    Attributes
    ----------
    name : str
        The registry key (``"swish"``, ``"silu"``, ``"silu_grad"``, ``"swish_grad"``).
    aclnn : tuple of str
        Its aclnn entry points (``...GetWorkspaceSize`` and the launch).
    kernel_op : str
        The device operator it launches (``"Swish"`` for both Swish and Silu).
    kernels : Mapping[str, Kernel]
        Its kernels by architecture.
    host_tiling : callable
        ``host_tiling(numel, info, beta32, platform) -> OpTiling`` for
        checked arguments (``beta32`` None where the operator has no beta).
    has_beta : bool
        Whether the operator takes a beta (``betaOptional``).
    inputs : int
        Input tensors its kernel copies in (1 for a forward, 2 for a backward).
    saturation : bool
        Whether it computes in the saturation overflow mode; one without it refuses such a platform
        (:func:`swishgrad_numba.arguments.check_platform_for`) rather than compute in the other mode.
    axpy : bool
        Whether a kernel's Compute has an ``Axpy``: every kernel's ``run`` then also takes
        ``axpy_rounding=``, the platform's :attr:`~swishgrad_numba.platform.Platform.axpy_rounding`.
    no_kernel : Mapping[str, str]
        Why it has no kernel on an architecture, by architecture (FastGelu: no public A2 kernel); every
        entry point refuses such a platform with this reason (:meth:`kernel_refusal`).
    aicpu_dtypes : tuple of str
        The dtypes its aclnn sends to an AICPU kernel rather than an AI Core one, which the public
        function emulates too (Elu's float64; SigmoidBackward's float64 and complex), whatever the platform.
    functional : str
        The name of its public function (``swishgrad_numba.<functional>``): a backward's ``_grad`` read as
        ``_backward`` where not given (``"gelu_grad_v2"``: ``"gelu_backward_v2"``); "" for an operator
        with no aclnn entry points (one read from its source).
    described_by : ops.description.Description or None
        Its one description, where the operator is in that form (:mod:`.description`): its faces are
        generated from it.
    """

    name: str
    aclnn: tuple
    kernel_op: str
    kernels: Mapping[str, Kernel] = field(default_factory=dict)
    host_tiling: Callable | None = None
    has_beta: bool = False
    inputs: int = 1
    saturation: bool = False
    axpy: bool = False
    no_kernel: Mapping[str, str] = field(default_factory=dict)
    aicpu_dtypes: tuple = ()
    functional: str = ""
    described_by: object = None
    #: ``"rows"`` for a row operator (its description's :class:`~.description.Rows` kind: held in :data:`ROWS`,
    #: apart from the element-wise walk's consumers); ``socs``: the SoC families its kernels are modelled on
    #: (empty: every SoC of their architectures)
    kind: str = "elementwise"
    socs: tuple = ()

    def __post_init__(self):
        if not self.functional and self.aclnn:
            object.__setattr__(self, "functional", self.name.replace("_grad", "_backward"))

    @property
    def default_platform(self):
        """The platform ``platform=None`` means: the A2 reference platform, or the Ascend 950's for an
        operator without an A2 kernel."""
        return REFERENCE_PLATFORM if ARCH_A2 in self.kernels else ASCEND950_PLATFORM

    def kernel_refusal(self, platform) -> str | None:
        """Why the operator cannot run on ``platform``'s kernel (it has none there), or None."""
        if platform.architecture in self.kernels and (not self.socs or platform.soc_family in self.socs):
            return None
        if platform.architecture in self.kernels:
            return (f"the {self.kernel_op} kernel of SoC {platform.soc_family!r} is not modelled (modelled: "
                    f"{', '.join(self.socs)})")
        reason = self.no_kernel.get(platform.architecture, "it has no kernel there")
        return (f"platform (soc_version {platform.soc_version!r}, the {platform.architecture} kernel) cannot run "
                f"{self.name}: {reason}")

    def program(self, dtype, platform=None, beta=1.0):
        """The program (:class:`swishgrad_numba.program.Program`) of the kernel ``platform``'s SoC runs
        (:attr:`default_platform` by default) for ``dtype``; ``beta`` picks the variant where the
        host chooses one by it. ``str()`` of it prints one instruction per line."""
        from ..dtypes import dtype_info

        platform = platform or self.default_platform
        if self.kernel_refusal(platform):
            raise ValueError(self.kernel_refusal(platform))
        kernel = self.kernels.get(platform.architecture)
        if kernel is None or kernel.programs is None:
            raise ValueError(f"operator {self.name!r} has no program for kernel {platform.architecture!r}")
        return kernel.programs(dtype_info(dtype).name, self.variant(platform, beta))

    def variant(self, platform, beta=1.0) -> str:
        """The program variant ``platform``'s kernel runs: by SoC, by beta, or ``"main"``."""
        kernel = self.kernels[platform.architecture]
        if kernel.soc_variant is not None:
            return kernel.soc_variant(platform)
        return "main" if kernel.variant is None else kernel.variant(np.float32(beta))


#: The registered operators, by name.
OPERATORS: dict = {}
#: The row operators (``Operator.kind == "rows"``: SwiGlu, SwiGluGrad), by name: :func:`get_operator` finds
#: them; the consumers of the element-wise walk (``compute_tiling(op=)``, the demo, ``devicetime``) iterate
#: :data:`OPERATORS` only (issue 40).
ROWS: dict = {}


def register(op: Operator) -> Operator:
    """Add ``op`` to :data:`OPERATORS` (once per name).

    One kernel per (device op type, architecture): two operators may launch the same kernel (Swish and
    Silu share theirs), but a second, different kernel (another ``source``) for an op type and an
    architecture already registered is refused. ops-nn has such a pair: ``experimental/activation/softplus_v2``
    also registers SoftplusV2 on ``ascend950`` beside the mainline ``activation/softplus_v2``, which is
    the one registered here (docs/model.md, "Which kernel runs what").
    """
    if op.name in OPERATORS or op.name in ROWS:
        raise ValueError(f"operator {op.name!r} is registered already")
    if op.kind == "rows":   # the row kind: its own map (the element-wise consumers iterate OPERATORS)
        ROWS[op.name] = op
        return op
    for arch, kernel in op.kernels.items():
        for other in OPERATORS.values():
            theirs = other.kernels.get(arch) if other.kernel_op == op.kernel_op else None
            if theirs is not None and theirs.source != kernel.source:
                raise ValueError(
                    f"operator {op.name!r}: its {arch} kernel for op type {op.kernel_op!r} ({kernel.source}) "
                    f"duplicates operator {other.name!r}'s ({theirs.source}); one kernel per (op type, "
                    f"architecture) may be registered")
    OPERATORS[op.name] = op
    return op


def get_operator(name) -> Operator:
    """The registered operator called ``name``, or a ValueError listing them."""
    op = (OPERATORS.get(name) or ROWS.get(name)) if isinstance(name, str) else None
    if op is None:
        raise ValueError(f"op must be one of {sorted(OPERATORS)}, got {name!r}")
    return op


def every_operator() -> dict:
    """Every registered operator by name: :data:`OPERATORS` (the element-wise walk's), then :data:`ROWS`."""
    return {**OPERATORS, **ROWS}
