"""SwiGlu (aclnnSwiGlu) and SwiGluGrad (aclnnSwiGluGrad), each described once (issue 40), on the "rows" kernel
kind (:class:`~swishgrad_numba.ops.description.Rows`): the functional ``swiglu``/``swiglu_backward``, the aclnn
pairs, the Dask functions and the torch faces (:mod:`swishgrad_numba.faces.torch_rows`: ``torch_rows`` says the jvp
is the backward kernel's on each half of the tangent, and gives the float64 second order) are generated from these
descriptions.

x is split along ``dim`` into halves a (first) and b (second); out = a * sigmoid(a) * b as the kernel computes it
(:mod:`.kernel`), x's shape with ``dim`` halved. SwiGluGrad's grad_x has x's shape; its ``yGrad`` the forward
output's. The host tilings (:mod:`.host`, the 950 SwiGluGrad's :mod:`.host_950`) take the shape and ``dim``.
Modelled on the A2 and A3 (swi_glu.cpp, swi_glu_grad.cpp) and the 950 (swi_glu_apt.cpp; the regbase
swi_glu_grad_base.h), not the 310P. Pages: ``activation/swi_glu/docs/aclnnSwiGlu.md`` and
``activation/swi_glu_grad/docs/aclnnSwiGluGrad.md`` (the op_api sources are not in ops-nn).
"""
from __future__ import annotations

from ...dtypes import dtype_info
from ...platform import ARCH_950, ARCH_A2
from ..description import Attribute, Description, Input, Rows, describe
from ..registry import Kernel
from ..rows_torch import RowsTorch
from .host import swiglu_tiling
from .host_950 import GluBaseTiling, swiglu_grad_tiling_950
from .kernel import run
from .kernel_grad import run_grad
from .kernel_grad_950 import run_grad_950

__all__ = ["FORWARD", "BACKWARD", "MODELLED_SOCS", "out_shape", "even_axis", "grad_tiling", "run_grad_any"]

#: The SoC families whose SwiGlu kernels are modelled: the A2 and A3, and the 950. Not ascend310p (its 64-byte
#: rule and no bfloat16), nor the Kirin parts.
MODELLED_SOCS = ("ascend910b", "ascend910_93", "ascend950")
#: The host's workspace (``WORKSPACE_BUFFER``, 16 MiB); the 950 SwiGluGrad adds 32 bytes a core (``PostTiling``).
WORKSPACE = 16 * 1024 * 1024
_FLOATS = ("float32", "float16", "bfloat16")


def out_shape(shape, d: int) -> tuple:
    """x's shape with axis ``d`` halved."""
    return tuple(shape[:d]) + (shape[d] // 2,) + tuple(shape[d + 1:])


def even_axis(shape, dim: int) -> str | None:
    """The infershape's rule: ``x.shape[dim]`` even (it is split into halves), or why not."""
    if shape[dim % len(shape)] % 2:
        return f"x {tuple(shape)} must have an even length at dim {dim} (axis dim={dim} is split into halves a, b)"
    return None


def _tiling(x_shape, d, dtypes, attrs, platform):
    return swiglu_tiling(tuple(x_shape), d, dtype_info(dtypes["x"]).name, platform.ub_size, platform.core_num)


def _grad_tiling(x_shape, d, dtypes, attrs, platform):
    return grad_tiling(x_shape, d, dtype_info(dtypes["x"]).name, platform)


def grad_tiling(x_shape, d: int, dtype: str, platform):
    """SwiGluGrad's host tiling of a non-empty x (``d`` normalised) on a modelled platform: the A2's
    :class:`~.host.SwiGluTiling`, or the 950's :class:`~.host_950.GluBaseTiling`."""
    if platform.architecture == ARCH_A2:
        return swiglu_tiling(tuple(x_shape), d, dtype, platform.ub_size, platform.core_num, grad=True)
    return swiglu_grad_tiling_950(tuple(x_shape), d, dtype, platform.ub_size, platform.core_num)


def run_grad_any(grad_output, x, t, out=None):
    """grad_x (flat) of the kernel the tiling is for, into ``out`` where given (flat)."""
    return (run_grad_950 if isinstance(t, GluBaseTiling) else run_grad)(grad_output, x, t, out)


def _kernel(arch: str, source: str, struct: str, launch) -> Kernel:
    # the rows kind: no element-wise record (its tiling is a dataclass) and no program of the element-wise walk
    return Kernel(arch, source, struct, None, "CAST_RINT", run=launch, walk="rows")


def _halves64(x, d):
    """x's halves' float64 pieces: b, silu(a), silu'(a), silu''(a) (PyTorch, imported by the torch face only)."""
    import torch

    a, b = x.double().chunk(2, dim=d)
    s = torch.sigmoid(a)
    d1 = s * (1.0 + a * torch.sigmoid(-a))
    return b, a * s, d1, s * torch.sigmoid(-a) * (2.0 - a * torch.tanh(0.5 * a))


def _fallback(g, x, d):
    """grad_x by the formula in float64: ``[g * b * silu'(a), g * silu(a)]``."""
    import torch

    b, silu, d1, _ = _halves64(x, d)
    return torch.cat([g.double() * b * d1, g.double() * silu], dim=d)


def _second(grad, x, ggx, d, needs):
    """SwiGluGrad differentiated (float64): for grad ``u * b * silu'(a) + v * silu(a)``, for x
    ``[g * (u * b * silu''(a) + v * silu'(a)), g * u * silu'(a)]``, ``u, v`` ggx's halves."""
    import torch

    b, silu, d1, d2 = _halves64(x, d)
    u, v = ggx.double().chunk(2, dim=d)
    g = grad.double()
    return (u * b * d1 + v * silu if needs[0] else None,
            torch.cat([g * (u * b * d2 + v * d1), g * u * d1], dim=d) if needs[1] else None)


def _second_jvp(grad, x, d_grad, d_x, d):
    """SwiGluGrad's tangent (float64) for tangents ``d_grad`` and ``d_x`` (either None)."""
    import torch

    b, silu, d1, d2 = _halves64(x, d)
    g = grad.double()
    ta, tb = torch.zeros_like(b), torch.zeros_like(b)
    if d_grad is not None:
        ta, tb = ta + d_grad.double() * b * d1, tb + d_grad.double() * silu
    if d_x is not None:
        da, db = d_x.double().chunk(2, dim=d)
        ta, tb = ta + g * (db * d1 + b * d2 * da), tb + g * d1 * da
    return torch.cat([ta, tb], dim=d)


_DIM = Attribute("dim", "dim", -1, kind="int", axis_of="x")

FORWARD = describe(Description(
    name="swiglu", summary="SwiGlu, silu(a) * b of x's halves a, b along dim", kernel_op="SwiGlu",
    functional="swiglu", aclnn=("aclnnSwiGluGetWorkspaceSize", "aclnnSwiGlu"),
    inputs=(Input("x", "x"),), attributes=(_DIM,), dtypes={"*": _FLOATS}, backward="swiglu_grad",
    kernels={ARCH_A2: _kernel(ARCH_A2, "activation/swi_glu (swi_glu.cpp)", "SwiGluTilingData", run),
             ARCH_950: _kernel(ARCH_950, "activation/swi_glu (swi_glu_apt.cpp)", "SwiGluTilingData", run)},
    rows=Rows(socs=MODELLED_SOCS, shapes=lambda xs, d: {"x": xs, "out": out_shape(xs, d)},
              says={"out": "x's shape with dim halved"}, axis_rule=even_axis, tiling=_tiling,
              launch=lambda arrays, t, out=None: run(arrays[0], t, out), workspace=lambda t: WORKSPACE,
              into=True),
    torch_module="SwiGLU",
    torch_rows=RowsTorch(functions=("swiglu_torch", "swiglu_backward_torch", "SwiGluFunction",
                                    "SwiGluBackwardFunction"), jvp="halves", fallback=_fallback, second=_second,
                         second_jvp=_second_jvp, names={"grad_output": "grad"})))

BACKWARD = describe(Description(
    name="swiglu_grad", summary="SwiGluGrad, grad_x of SwiGlu (x's shape)", kernel_op="SwiGluGrad",
    functional="swiglu_backward", aclnn=("aclnnSwiGluGradGetWorkspaceSize", "aclnnSwiGluGrad"),
    inputs=(Input("grad_output", "yGrad", role="grad"), Input("x", "x")), attributes=(_DIM,),
    dtypes={"*": _FLOATS},
    kernels={ARCH_A2: _kernel(ARCH_A2, "activation/swi_glu_grad (swi_glu_grad.cpp)", "SwiGluTilingData",
                              run_grad),
             ARCH_950: _kernel(ARCH_950, "activation/swi_glu_grad (arch35 swi_glu_grad_base.h)", "GluBaseTilingData",
                               run_grad_950)},
    rows=Rows(socs=MODELLED_SOCS, shapes=lambda xs, d: {"grad_output": out_shape(xs, d), "x": xs, "out": xs},
              says={"grad_output": "the forward's output: x's shape with dim halved", "out": "x's shape"},
              axis_rule=even_axis, tiling=_grad_tiling, into=True,
              launch=lambda arrays, t, out=None: run_grad_any(arrays[0], arrays[1], t, out),
              workspace=lambda t: t.workspace if isinstance(t, GluBaseTiling) else WORKSPACE,
              empty="x {x} is empty: aclnnSwiGluGrad does not take empty tensors (its page; the A2 host finds no "
                    "tile)")))
