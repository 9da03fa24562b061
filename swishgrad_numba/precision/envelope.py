"""The device's error envelope (model section 10): :func:`envelope` (SwishGrad) and
:func:`operator_envelope` (any registered operator, from its program): the outputs a device whose
Exp, Div and Ln err by a few ulps can reach, per element, as an :class:`Envelope` of bounds.

Split from :mod:`swishgrad_numba.precision` (whose names it still exports).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arguments import check_array
from ..dtypes import dtype_info

__all__ = ["ENVELOPE_PRESETS", "Envelope", "MAX_ENVELOPE_ULP", "envelope", "operator_envelope"]

#: Largest ``exp_ulp`` / ``div_ulp`` :func:`envelope` takes (each element enumerates
#: ``(2 exp_ulp + 1)(2 div_ulp + 1)`` outputs).
MAX_ENVELOPE_ULP = 64

#: Envelopes by SoC from CANN's documentation (model section 10 cites the sources): keyword arguments of
#: :func:`envelope` plus the SoC family whose kernel they describe. No bound is documented for the A2's
#: vector ``Exp`` and ``Div``, so there is no A2 preset.
ENVELOPE_PRESETS = {
    "950-doc": {"exp_ulp": 1, "div_ulp": 1, "flush_subnormals": True, "soc_version": "ascend950"},
}


@dataclass(frozen=True, eq=False)
class Envelope:
    """The outputs a device can reach, per element, when its Exp, Div and Ln err
    (:func:`envelope`, :func:`operator_envelope`).

    Attributes
    ----------
    lo, hi : numpy.ndarray
        The output's dtype and shape: the least and greatest reachable output
        other than NaN (by value; -0 counts below +0). NaN where only NaN is
        reachable.
    nan_reachable : numpy.ndarray of bool
        Where a NaN output is reachable.
    exp_ulp, div_ulp, ln_ulp : int
    flush_subnormals : bool
    beta : numpy.float32 or None
        The operator's beta, where it has one.
    architecture : str
        The kernel whose program was followed (``"a2"`` or ``"arch35"``).
    op : str
        The operator.
    freed : tuple
        The program's results that were let err, in order (``("Exp", "Div")``).
    axpy_roundings : tuple
        The Axpy roundings enumerated (both where the program has an Axpy: the device's is not public).
    """

    lo: np.ndarray
    hi: np.ndarray
    nan_reachable: np.ndarray
    exp_ulp: int
    div_ulp: int
    flush_subnormals: bool
    beta: np.float32 | None
    architecture: str
    ln_ulp: int = 1
    op: str = "swish_grad"
    freed: tuple = ()
    axpy_roundings: tuple = ("fused",)
    _program: object = field(default=None, repr=False)

    def contains(self, device_output) -> np.ndarray:
        """Exact membership: ``True`` where ``device_output``'s element is a reachable output.

        Bit patterns are compared exactly (so -0 and +0 differ), except that
        any NaN equals any NaN. ``device_output`` must have the output's dtype and
        shape. Computed by enumerating each element's outputs again.
        """
        check_array(device_output, "device_output")      # a masked array is refused, not read unmasked
        if device_output.dtype != self.lo.dtype:
            raise TypeError(f"device_output must have dtype {self.lo.dtype}, got {device_output.dtype}")
        if device_output.shape != self.lo.shape:
            raise ValueError(f"device_output must have shape {self.lo.shape}, got {device_output.shape}")
        flat = np.ascontiguousarray(device_output).reshape(-1)
        return self._program.contains(flat).reshape(self.lo.shape)

    def count(self) -> np.ndarray:
        """How many distinct outputs each element can reach (every NaN counts as one), as int32."""
        return self._program.count().reshape(self.lo.shape)


def _ulp_budget(value, argname: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{argname} must be an integer, got {type(value).__name__}")
    if not 0 <= value <= MAX_ENVELOPE_ULP:
        raise ValueError(f"{argname} must be in [0, {MAX_ENVELOPE_ULP}], got {value}")
    return int(value)


def envelope(grad_output, x, beta=1.0, *, exp_ulp=1, div_ulp=1, flush_subnormals=False,
             platform=None, ln_ulp=1) -> Envelope:
    """Every output a device can produce when its Exp and Div err by up to a few ulps (model section 10).

    The model of the device's freedom: each Exp result may be any binary32
    within ``exp_ulp`` ulps of the correctly rounded e**t; each Div result
    any binary32 within ``div_ulp`` ulps of the correctly rounded quotient of
    its actual (already perturbed) operands; every other instruction of the
    platform's kernel is exact. Ulps are steps on the ordered binary32 line,
    +-inf included, -0 and +0 one point (a step onto it keeps the exact
    result's sign); a NaN stays NaN. With ``flush_subnormals`` every
    subnormal Exp or Div result (after the perturbation) becomes the zero of
    its sign. 16-bit outputs are narrowed as usual. Each element's reachable
    set is enumerated exactly, in compiled code, from SwishGrad's program
    (:func:`operator_envelope` for any operator).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        As for :func:`~swishgrad_numba.swish_backward`: same shape and dtype.
    beta : float
        Rounded to float32 once.
    exp_ulp, div_ulp : int
        Ulp budgets of Exp and Div, in [0, :data:`MAX_ENVELOPE_ULP`]. With
        both 0 (and no flush) the envelope is the emulator's output alone.
    flush_subnormals : bool
        Subnormal Exp and Div results become zeros (the 950's documented default).
    platform : Platform, optional
        Its SoC picks the kernel (default: the A2 reference platform). The
        envelope models the Inf/NaN overflow mode only.
    ln_ulp : int
        Ulp budget of each Ln (``Log``) result, as :func:`operator_envelope`'s (issue 30): SwishGrad's
        kernels issue no Ln, so it changes nothing here (checked, and recorded on the result).

    Returns
    -------
    Envelope
        ``.lo``, ``.hi``, ``.nan_reachable`` now; ``.contains(output)`` and
        ``.count()`` enumerate again on demand.
    """
    from ..arguments import check_pair
    from ..dtypes import beta_argument
    from ..platform import REFERENCE_PLATFORM, Platform

    info = check_pair(grad_output, x)
    beta32 = beta_argument(beta, {})
    exp_ulp = _ulp_budget(exp_ulp, "exp_ulp")
    div_ulp = _ulp_budget(div_ulp, "div_ulp")
    ln_ulp = _ulp_budget(ln_ulp, "ln_ulp")
    if not isinstance(flush_subnormals, (bool, np.bool_)):
        raise TypeError(f"flush_subnormals must be a bool, got {type(flush_subnormals).__name__}")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    platform = platform or REFERENCE_PLATFORM
    if platform.saturation:
        raise ValueError("envelope models the Inf/NaN overflow mode only; platform.overflow_mode is 'saturation'")

    return _program_envelope("swish_grad", (grad_output, x), {"beta": beta32}, platform, exp_ulp, div_ulp, ln_ulp,
                             flush_subnormals)


def _program_envelope(op: str, inputs: tuple, attrs: dict, platform, exp_ulp: int, div_ulp: int, ln_ulp: int,
                      flush_subnormals: bool) -> Envelope:
    """The envelope of checked arguments: ``op``'s program on ``platform``'s kernel."""
    from ..ops.registry import get_operator
    from ..program.envelope import program_envelope

    operator = get_operator(op)
    variant = operator.variant(platform, attrs.get("beta", np.float32(1.0)))
    shape = inputs[-1].shape
    flat = tuple(np.ascontiguousarray(a).reshape(-1) for a in inputs)
    env = program_envelope(op, flat, attrs, platform.architecture, variant,
                           budgets={"exp_ulp": exp_ulp, "div_ulp": div_ulp, "ln_ulp": ln_ulp},
                           flush_subnormals=bool(flush_subnormals))
    return Envelope(lo=env.lo.reshape(shape), hi=env.hi.reshape(shape),
                    nan_reachable=env.nan_reachable.reshape(shape), exp_ulp=exp_ulp, div_ulp=div_ulp,
                    flush_subnormals=bool(flush_subnormals), beta=attrs.get("beta"),
                    architecture=platform.architecture, ln_ulp=ln_ulp, op=op, freed=env.freed,
                    axpy_roundings=env.axpy_roundings, _program=env)


def operator_envelope(op: str, *inputs, exp_ulp=1, div_ulp=1, ln_ulp=1, flush_subnormals=False, platform=None,
                      **attrs) -> Envelope:
    """Every output operator ``op``'s kernel can produce when the device's Exp, Div and Ln err by up to
    a few ulps, and its Axpy rounds either way (model section 10; docs/model.md "Axpy").

    The model of the device's freedom, for any registered operator, from its program
    (:meth:`~swishgrad_numba.ops.registry.Operator.program`): each Exp, Div and Ln result may be any
    binary32 within its budget of ulps of the correctly rounded result of its actual (already
    perturbed) operands, subnormals flushed to zero with ``flush_subnormals``; where the program has
    an Axpy, both of its roundings are enumerated; every other instruction is exact. The reachable set
    of each element is enumerated exactly, in compiled code (:mod:`swishgrad_numba.program.envelope`).
    :func:`envelope` is this for SwishGrad.

    Parameters
    ----------
    op : str
        A registered operator (``swishgrad ops list``).
    *inputs : numpy.ndarray
        Its input tensors in the kernel's order (``gelu_backward``: grad_output, x), of one shape and
        one dtype.
    exp_ulp, div_ulp, ln_ulp : int
        Ulp budgets, each in [0, :data:`MAX_ENVELOPE_ULP`]; all 0 (and no flush, no Axpy) give the
        emulator's output alone.
    flush_subnormals : bool
    platform : Platform, optional
        Its SoC picks the kernel (default: the operator's default platform). Inf/NaN mode only.
    **attrs : float
        The program's attributes by name (``beta=1.0`` for SwishGrad), each rounded to float32 once.
    """
    from ..arguments import check_platform_for
    from ..ops.registry import get_operator

    operator = get_operator(op)
    if len(inputs) != operator.inputs:
        raise TypeError(f"operator {op!r} takes {operator.inputs} input tensor(s), got {len(inputs)}")
    for i, arr in enumerate(inputs):
        check_array(arr, f"inputs[{i}]")
        if arr.dtype != inputs[0].dtype or arr.shape != inputs[0].shape:
            raise ValueError(f"inputs must share one dtype and shape, got {inputs[0].dtype}{inputs[0].shape} and "
                             f"{arr.dtype}{arr.shape} (inputs[{i}])")
    info = dtype_info(inputs[0].dtype, argname="inputs[0].dtype")
    budgets = [_ulp_budget(v, name) for v, name in ((exp_ulp, "exp_ulp"), (div_ulp, "div_ulp"), (ln_ulp, "ln_ulp"))]
    if not isinstance(flush_subnormals, (bool, np.bool_)):
        raise TypeError(f"flush_subnormals must be a bool, got {type(flush_subnormals).__name__}")
    platform = check_platform_for(platform, op, info)
    if platform.saturation:
        raise ValueError("operator_envelope models the Inf/NaN overflow mode only; platform.overflow_mode is "
                         "'saturation'")
    program = operator.program(info.name, platform, attrs.get("beta", 1.0))
    missing = [a for a in program.attrs if a not in attrs]
    unknown = [a for a in attrs if a not in program.attrs]
    if missing or unknown:
        raise TypeError(f"operator {op!r} takes the attributes {list(program.attrs)}; missing {missing}, "
                        f"unknown {unknown}")
    attrs32 = {}
    for name, value in attrs.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
        attrs32[name] = np.float32(value)
    return _program_envelope(op, inputs, attrs32, platform, *budgets, bool(flush_subnormals))
