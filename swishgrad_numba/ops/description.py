"""One description per operator, from which its faces are generated (issue 40).

A :class:`Description` is plain data: the aclnn names, the functional name and signature, the inputs
with their roles, the attributes with their conversion, the dtype lists per SoC (AICPU ones included),
the promotion and broadcast rule, the kernels per SoC (the registry's :class:`~.registry.Kernel`, with
their programs and host tiling) and the backward pair. :func:`describe` registers the operator it
describes (an :class:`~.registry.Operator` built from it, ``op.described_by`` the description), so
``get_operator(name).functional`` and ``.aclnn`` name its faces. The faces are generated from it:

- the functional API (:mod:`swishgrad_numba.faces.functional`);
- the aclnn two-phase pairs (:mod:`swishgrad_numba.aclnn.described`);
- the torch module and its autograd row (:mod:`swishgrad_numba.faces.torch`);
- the Dask function (:func:`swishgrad_numba.dask.described`).

An operator described here lives in one folder, ``ops/<name>/``: ``description.py`` (this form) and
``kernel.py`` (its kernel data: record, host tiling, programs, launch). Operators in the older form
(``register(Operator(...))`` and hand-written faces) still register as before. The records a description is
built of (:class:`Input`, :class:`Attribute`, :class:`Rule`, :class:`Rows`) live in :mod:`.fields`, and the
description as text (:func:`show`) in :mod:`.description_text`; both are re-exported here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from .description_text import show
from .fields import ROLES, Attribute, Input, Rows, Rule, complex_promotion
from .registry import Operator, register

__all__ = ["Input", "Attribute", "Rule", "Rows", "Description", "describe", "described", "show", "complex_promotion"]


@dataclass(frozen=True)
class Description:
    """One operator, described once. See the module docstring; the fields:

    name, summary, kernel_op : the registry key, one line of what it computes, the device op type.
    functional : the public function's name (``swishgrad_numba.<functional>``).
    aclnn, aclnn_inplace : the aclnn pair ``(...GetWorkspaceSize, launch)``; the in-place pair or ().
    out : the aclnn output's name (``"out"``, ``"gradInput"``).
    inputs, attributes, rules : :class:`Input`, :class:`Attribute`, :class:`Rule` tuples, in signature order.
    acl_order : the aclnn signature's inputs and attributes by aclnn name, in its order, where it is not the
        inputs then the attributes (aclnnEluBackward's attributes sit between its tensors); the output is last.
        Phase one checks null pointers in this order.
    dtypes : the aclnn dtype lists by SoC family, ``"*"`` for the others (numpy names, op_api order).
    dtype_refusals : dtype name -> why, for a dtype the functional face refuses with a TypeError naming the
        reason (one that is in no list because the operator never takes it).
    aicpu_dtypes, aicpu : the dtypes an AICPU kernel takes, whatever the platform, and its plain model
        ``aicpu(*inputs, *attributes32) -> ndarray``.
    promotion : ``"promote"`` (two dtypes cast to their promoted type, float64 where either is, else
        float32), ``"same"`` (one dtype) or ``"float32"`` (the kernel in the inputs' dtype where they agree
        and it is a kernel dtype, float32, float16 or bfloat16; else every input Cast to float32 and the
        float32 result Cast to the result's dtype, PyTorch's promotion of the inputs,
        :func:`~swishgrad_numba.dtypes.promoted_float_dtype`: aclnnSoftplusBackward's).
    broadcast : whether inputs of different shapes broadcast (else they must share one shape).
    max_dims : the rank limit (None: none, aclnnSilu's).
    path : ``path(attrs, dtype) -> dtype or None``: the op_api's path picked by attribute value (``attrs``
        converted, by functional name; ``dtype`` the promoted one): the dtype it then runs the kernel in
        (inputs Cast to it, the result Cast back), None for the usual path.
    saturation : whether a kernel runs in the saturation overflow mode (else such a platform is refused).
    kernels, no_kernel, host_tiling : as :class:`~.registry.Operator`'s: the kernels per architecture (with
        their programs), why there is none on an architecture, the host tiling of equal-shaped inputs.
    shaped_tiling, shaped_launch : for broadcast inputs: ``shaped_tiling(shapes, info, attr32, platform)``,
        ``shaped_launch(arrays, out, tiling, info)`` (the broadcast walk).
    backward : the registry name of its backward operator (None for a backward itself).
    torch_module, second_derivative : the torch module's class name (None: no module) and ``s''(x)``
        in float64 for the second order (``second_derivative(x, attr, platform)``).
    torch_attributes : the float attributes the torch module takes (its constants, in its signature's order;
        the others keep their defaults in both passes); by default the only float attribute. Where it takes
        several, the autograd row's constant is their tuple (Softplus's ``(beta, threshold)``).
    torch_shows_platform : the module's repr names its platform's SoC always (``platform='ascend950'``, as
        torch Softplus's did before issue 40), not only where one is given.
    exact_dtypes, exact : integer dtypes the float32 arena cannot hold exactly (int32, int64), run on the host
        by a plain exact model instead of the engine, ``exact(inputs, attributes32, platform) -> ndarray``
        (the inputs of the one dtype, the float attributes as float32, the platform's kernel to follow): a
        model choice, documented per operator (issue 41).
    out_same_dtype : whether the op_api refuses an output whose dtype is not the inputs' (``OP_CHECK_DTYPE_NOT_MATCH``
        on ``out``: aclnnRelu, aclnnThresholdBackward) instead of Casting the result to it.
    axpy : a kernel's Compute has an ``Axpy`` (the registry's ``Operator.axpy``): its ``run`` takes the platform's
        ``axpy_rounding`` (Mish, MishGrad, Gelu, GeluGrad), and a ``shaped_launch`` also ``saturation=`` (the
        overflow mode: the platform's, or the aclnn stream's) and ``axpy_rounding=``.
    broadcast_to : inputs that broadcast are BroadcastTo the output's shape by the op_api, then run on the
        element-wise kernel over the output's elements (aclnnMishBackward): no ``shaped_tiling``/``shaped_launch``.
    soc_checked : the functional face checks every input's dtype against the aclnn list on the platform's SoC,
        Cast or not: a list whose bfloat16 SoCs are not the ASCEND910B..ASCEND910E gate (``GetDtypeSupportListV2``:
        the A2, A3 and 950 only, so not the 910E).
    out_listed : the op_api checks the output's dtype against the same SoC list as the inputs' (aclnnHardswish's
        ``out``, aclnnMishBackward's ``gradInput``), not only that the result can be Cast to it.
    acl_refusals : dtype name -> why, for a dtype the op_api's lists take whose run the emulator does not model:
        aclnn phase one refuses it (161002) naming why, at the dtype check (aclnnSigmoid's float64 and complex,
        sent to an AICPU kernel ops-nn does not publish; its integer and bool ``self``, whose Cast is not
        modelled). The functional face's own refusals are ``dtype_refusals``.
    out_dtypes : the output's dtypes beyond the floating ones (complex64, complex128: aclnnSigmoid's out list,
        aclnnSigmoidBackward's gradInput); a real result is Cast to a complex output, and under
        ``promotion="promote"`` a complex promoted dtype is refused for a real output (it cannot be Cast).
        Complex inputs promote as ``op::PromoteType`` does: complex128 where any input is complex128 or float64,
        else complex64 (:func:`complex_promotion`).
    torch_functions : the public torch names of a module without attributes, generated beside it
        (:func:`swishgrad_numba.faces.torch.functions`): the forward function ``f(x, *, platform=None)``, the
        backward's ``f(grad, second, *, platform=None)``, and, where four names are given, the forward's and
        backward's autograd Functions (``.apply(x, platform)``, ``.apply(grad, second, platform)``). The torch
        backward reads the forward's *result* where the backward operator's second input has role ``"y"``
        (SigmoidGrad): the autograd Function then saves the output, not the input.
    op_api_checks : the op_api's own checks where they come in an order (and say) what the generic ones do not,
        run by aclnn phase one right after the null pointers: ``op_api_checks(desc, named, out_name, out,
        platform, scalars=) -> message or None`` (``named`` the inputs' ``((aclnn name, aclTensor), ...)``,
        ``scalars`` the attributes' arguments by aclnn name; a message is 161002). They refuse nothing the functional face accepts (aclnnFastGelu's CheckDtypeValid, CheckShape,
        rank and storage format checks).
    """

    name: str
    summary: str
    kernel_op: str
    functional: str
    aclnn: tuple
    inputs: tuple
    attributes: tuple = ()
    rules: tuple = ()
    acl_order: tuple = ()
    aclnn_inplace: tuple = ()
    out: str = "out"
    dtypes: Mapping = field(default_factory=dict)
    dtype_refusals: Mapping = field(default_factory=dict)
    aicpu_dtypes: tuple = ()
    aicpu: Callable | None = None
    promotion: str = "same"
    broadcast: bool = False
    max_dims: int = 8
    path: Callable | None = None
    saturation: bool = False
    kernels: Mapping = field(default_factory=dict)
    no_kernel: Mapping = field(default_factory=dict)
    host_tiling: Callable | None = None
    shaped_tiling: Callable | None = None
    shaped_launch: Callable | None = None
    backward: str | None = None
    torch_module: str | None = None
    second_derivative: Callable | None = None
    torch_attributes: tuple = ()
    torch_shows_platform: bool = False
    exact_dtypes: tuple = ()
    exact: Callable | None = None
    out_same_dtype: bool = False
    axpy: bool = False
    broadcast_to: bool = False
    soc_checked: bool = False
    out_listed: bool = False
    acl_refusals: Mapping = field(default_factory=dict)
    out_dtypes: tuple = ()
    torch_functions: tuple = ()
    #: whether ``compute_tiling(op=)`` takes ``beta=`` (the registry's ``has_beta``: aclnnSwish's scale)
    has_beta: bool = False
    #: the architectures whose op_api takes one dtype and one shape for every input and the output, where
    #: ``broadcast``/``promotion`` rule the others (aclnnSiluBackward without regbase: the A2)
    one_shape_on: tuple = ()
    #: the "rows" kernel kind (:class:`Rows`): a kernel over rows along an axis, whose host tiling takes the shape
    #: and the axis (SwiGlu, SwiGluGrad); None for the element-wise kernels
    rows: object = None

    def one_shape(self, platform) -> bool:
        """Whether the inputs must share one shape and one dtype on ``platform`` (:attr:`one_shape_on`)."""
        return getattr(platform, "architecture", None) in self.one_shape_on
    op_api_checks: Callable | None = None
    #: architecture -> the private storage formats (aclFormat names) its kernel's op definition takes beside ND:
    #: tensors that all share one such format and one storage shape run the kernel over their storage, padding
    #: included (aclnnSwishBackward's A2: NC1HWC0, FRACTAL_NZ; :mod:`swishgrad_numba.aclnn.storage`)
    storage_formats: Mapping = field(default_factory=dict)
    #: a host tiling the platform set by set_platform cannot make (its block size, its UB) is a parameter error,
    #: 161002 naming the platform's soc_version (aclnnSwishBackward's), not the launcher's failure (561103)
    tiling_parameter_error: bool = False
    #: architecture -> kernel name, where a ``saturation`` operator's kernel has no saturation mode: a launch on a
    #: stream in that mode fails at the synchronize (SwishGrad's Ascend 950 kernel)
    no_saturation_on: Mapping = field(default_factory=dict)
    #: ``(attribute, operator)``: the torch module also takes that (``kind="choice"``) attribute of the named
    #: described operator, None by default: None runs this operator, a value that one with it (GELU's
    #: ``approximate``: Gelu, or GeluV2; :func:`swishgrad_numba.faces.torch.module`)
    torch_variant: tuple = ()
    #: a row operator's torch face (:class:`~.rows_torch.RowsTorch`; generated by ``faces/torch_rows.py``)
    torch_rows: object = None

    def dtypes_on(self, soc_family: str) -> tuple:
        """The aclnn dtype list on ``soc_family``."""
        return tuple(self.dtypes.get(soc_family, self.dtypes["*"]))

    @property
    def accepted_dtypes(self) -> tuple:
        """Every dtype some SoC accepts (the functional face's list: the platform then rules)."""
        seen = []
        for names in self.dtypes.values():
            seen += [n for n in names if n not in seen]
        return tuple(seen)

    @property
    def float_attributes(self) -> tuple:
        return tuple(a for a in self.attributes if a.kind == "float")

    @property
    def kernel_attributes(self) -> tuple:
        """The attributes the host tiling takes: the float ones, then the bools the kernel reads."""
        return self.float_attributes + tuple(a for a in self.attributes if a.kind in ("bool", "choice") and a.kernel)

    @property
    def acl_arguments(self) -> tuple:
        """The aclnn phase one's arguments by aclnn name, in order, the output last."""
        rows = self.rows is not None and self.rows.outputs
        outs = tuple(acl for _, acl in self.rows.outputs) if rows else (self.out,)
        return tuple(self.acl_order or [i.acl for i in self.inputs] + [a.acl for a in self.attributes]) + outs


#: The described operators, by name.
DESCRIPTIONS: dict = {}


def describe(desc: Description) -> Description:
    """Register ``desc``: its :class:`~.registry.Operator` (built from it) in the registry, and the
    description in :data:`DESCRIPTIONS`."""
    for inp in desc.inputs:
        if inp.role not in ROLES:
            raise ValueError(f"{desc.name}: input {inp.name!r} has role {inp.role!r}; one of {ROLES}")
    if desc.promotion not in ("same", "promote", "float32"):
        raise ValueError(f"{desc.name}: promotion must be 'same', 'promote' or 'float32', got {desc.promotion!r}")
    if desc.acl_order and sorted(desc.acl_order) != sorted([i.acl for i in desc.inputs]
                                                          + [a.acl for a in desc.attributes]):
        raise ValueError(f"{desc.name}: acl_order must name every input and attribute once, got {desc.acl_order}")
    if "*" not in desc.dtypes:
        raise ValueError(f"{desc.name}: dtypes needs a '*' entry (the SoCs not listed)")
    rows = {} if desc.rows is None else {"kind": "rows", "socs": tuple(desc.rows.socs)}
    host = desc.host_tiling if desc.rows is None else _numel_refused(desc.name)
    register(Operator(desc.name, tuple(desc.aclnn), desc.kernel_op, dict(desc.kernels), host,
                      inputs=len(desc.inputs), saturation=desc.saturation,
                      no_kernel=dict(desc.no_kernel), aicpu_dtypes=tuple(desc.aicpu_dtypes),
                      functional=desc.functional, described_by=desc, axpy=desc.axpy, has_beta=desc.has_beta, **rows))
    DESCRIPTIONS[desc.name] = desc
    return desc


def _numel_refused(name: str):
    """A row operator's registry host tiling: ``compute_tiling(op=)`` (a count of elements) is refused, naming
    where its tiling is (its description's ``rows.tiling``, of the shape and the axis)."""
    def host_tiling(numel, info, attrs, platform):
        raise ValueError(f"op {name!r} is a row operator: its host tiling takes x's shape and its axis, not a count "
                         f"of elements (swishgrad tiling --op {name} --numel N --cols C)")
    return host_tiling


def described() -> tuple:
    """The names of the operators in the described form, in registration order."""
    return tuple(DESCRIPTIONS)
