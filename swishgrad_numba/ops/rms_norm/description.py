"""RmsNorm (aclnnRmsNorm), described once (issue 40), on the "rows" kernel kind
(:class:`~swishgrad_numba.ops.description.Rows`): the functional ``rms_norm``, aclnnRmsNorm and the Dask
function are generated from this description, and the torch faces (:mod:`swishgrad_numba.faces.torch_rows`, from
``torch_rows``: the device's RmsNormGrad is not emulated, so the gradients are the formulas here, in float64).

y = (x * rstd) * gamma and rstd = 1 / sqrt(mean(x**2) + epsilon) over the row made of x's last ``gamma.ndim``
axes (``axis_from="gamma"``); y has x's dtype, rstd is float32 of x's shape with those axes 1. gamma has x's
dtype, or float32 with a 16-bit x. The platform's kernel runs on the engine's row machine in the mode its host
picks: the Atlas A2's (:mod:`.host_a2`, :mod:`.kernel_a2`) or the Ascend 950's (:mod:`.kernel_950` full_load,
:mod:`.kernel_950_split`). The page (``norm/rms_norm/docs/aclnnRmsNorm.md``) gives the dtype rows (161002) and
refers what the host tiling checks (``CheckInputShape4RmsNorm``: ranks, gamma, the outputs' shapes, epsilon) to
561002; its workspace is the host's 256 bytes plus the 16 MiB system workspace.
"""
from __future__ import annotations

import math

import numpy as np

from ...engine.opcodes import REDUCE_ORDERS
from ...engine.rows import made_once
from ...platform import ARCH_950, ARCH_A2
from ..description import Attribute, Description, Input, Rows, Rule, describe
from ..registry import Kernel
from ..rows_torch import RowsTorch
from .host_a2 import A2Tiling, a2_tiling
from .kernel_950 import arch35_tiling, row_program_950
from .kernel_a2 import run_a2, run_program

__all__ = ["DESCRIPTION", "MODELLED_SOCS", "WORKSPACE", "rstd_shape"]

#: The SoC families whose RmsNorm kernel is modelled: the A2 and A3 (the AIV kernel of rms_norm.cpp) and the
#: 950. Not: ascend910 (its WholeReduceSum kernel), ascend310p (merge_n by other rules, Brcb), the rest.
MODELLED_SOCS = ("ascend910b", "ascend910_93", "ascend950")
WORKSPACE = 256 + 16 * 1024 * 1024
_FLOATS = ("float32", "float16", "bfloat16")


def rstd_shape(x_shape, gamma_ndim: int) -> tuple:
    return tuple(x_shape[:len(x_shape) - gamma_ndim]) + (1,) * gamma_ndim


def _shapes(xs, d) -> dict:
    return {"x": xs, "gamma": tuple(xs[d:]), "y": xs, "rstd": rstd_shape(xs, len(xs) - d)}


def _gamma_not_empty(xs, d):
    return f"gamma {tuple(xs[d:])} must not be empty" if 0 in xs[d:] else None


def _dtypes_with(x: str) -> dict:
    return {"gamma": (x,) + (("float32",) if x != "float32" else ()), "y": (x,), "rstd": ("float32",)}


def _tiling(xs, d, dtypes, attrs, platform):
    n = math.prod(xs[d:])
    tiling = a2_tiling if platform.architecture == ARCH_A2 else arch35_tiling
    return tiling(math.prod(xs) // n, n, dtypes["x"], dtypes["gamma"], attrs["epsilon"], platform)


_row_program_950 = made_once(row_program_950)


def _launch(arrays, t, order="tree", scalar_fused=False, mula_fused=True, scalar_sqrt="float", out=None):
    x, gamma = arrays
    x2d, g = np.ascontiguousarray(x).reshape(t.num_row, t.num_col), np.ascontiguousarray(gamma)
    if isinstance(t, A2Tiling):
        return run_a2(x2d, g, t, order, scalar_fused, scalar_sqrt, out)
    return run_program(x2d, g, t, _row_program_950(t, x.dtype, order, mula_fused), out)


def _check_options(options) -> None:
    """The model choices (docs/model.md "RmsNorm"): the order inside one 64-lane repeat, the A2 scalar unit's
    ``s * avg + eps`` rounding once, its ``1 / sqrt`` in float32 or double, the 950's ``Mula`` rounding once."""
    if options["order"] not in REDUCE_ORDERS:
        raise ValueError(f"order must be one of {', '.join(REDUCE_ORDERS)}, got {options['order']!r}")
    if options["scalar_sqrt"] not in ("float", "double"):
        raise ValueError(f"scalar_sqrt must be 'float' or 'double', got {options['scalar_sqrt']!r}")


def _rstd_taken(got, xs, d) -> bool:
    """The op_api's rstdOut: x's rank, each axis x's or 1, one value per row (or an empty x)."""
    return (len(got) == len(xs) and all(r in (1, a) for r, a in zip(got, xs))
            and (math.prod(got) == math.prod(xs[:d]) or 0 in xs))


def _kernel(arch: str, source: str, struct: str) -> Kernel:
    return Kernel(arch, source, struct, None, "CAST_RINT", run=_launch, walk="rows")


def _r64(x, k, eps):
    """x in float64, the row's axes (x's last ``k``) and the float64 rstd (PyTorch, imported by the torch face only)."""
    import torch

    axes = tuple(range(x.dim() - k, x.dim()))
    x64 = x.double()
    return x64, axes, torch.rsqrt((x64 * x64).mean(dim=axes, keepdim=True) + float(eps))


def _gradient(gy, tensors, attrs, needs):
    """``gx = r * (g * gy) - x * r**3 * mean(x * g * gy)`` over the row and ``ggamma = sum(gy * x * r)`` over the
    leading axes, ``r`` the float64 rstd."""
    x, gamma = tensors
    x64, axes, r = _r64(x, gamma.dim(), attrs[0])
    gx = gg = None
    if needs[0]:
        gg64 = gy.double() * gamma.double()
        gx = r * gg64 - x64 * r ** 3 * (x64 * gg64).mean(dim=axes, keepdim=True)
    if needs[1]:
        lead = tuple(range(x.dim() - gamma.dim()))
        full = gy.double() * x64 * r
        gg = full.sum(dim=lead) if lead else full
    return gx, gg


def _tangent(tensors, tangents, attrs):
    """y's tangent: ``g * (r * dx - x * r**3 * mean(x * dx)) + x * r * dgamma``."""
    import torch

    (x, gamma), (d_x, d_gamma) = tensors, tangents
    x64, axes, r = _r64(x, gamma.dim(), attrs[0])
    out = torch.zeros_like(x64)
    if d_x is not None:
        dx = d_x.double()
        out = out + gamma.double() * (r * dx - x64 * r ** 3 * (x64 * dx).mean(dim=axes, keepdim=True))
    if d_gamma is not None:
        out = out + x64 * r * d_gamma.double()
    return out


DESCRIPTION = describe(Description(
    name="rms_norm", summary="RmsNorm, y = x * rstd * gamma and rstd over the row of x's last gamma.ndim axes",
    kernel_op="RmsNorm", functional="rms_norm", aclnn=("aclnnRmsNormGetWorkspaceSize", "aclnnRmsNorm"),
    inputs=(Input("x", "x"), Input("gamma", "gamma")), attributes=(Attribute("epsilon", "epsilon", 1e-6),),
    rules=(Rule(lambda v: not float(v["epsilon"]) >= 0, "{epsilon} must be >= 0 (the host refuses less), got {value}",
                "epsilon"),),
    dtypes={"*": _FLOATS},
    kernels={ARCH_A2: _kernel(ARCH_A2, "norm/rms_norm (rms_norm.cpp, AIV)", "RMSNormTilingData"),
             ARCH_950: _kernel(ARCH_950, "norm/rms_norm (arch35 full_load, split)", "RMSNormArch35TilingData")},
    rows=Rows(socs=MODELLED_SOCS, shapes=_shapes, tiling=_tiling, launch=_launch, into=True,
              workspace=lambda t: WORKSPACE,
              says={"gamma": "x's last axes", "y": "x's shape", "rstd": "x's leading axes, the row's axes 1"},
              axis_rule=_gamma_not_empty, outputs=(("y", "yOut"), ("rstd", "rstdOut")), dtypes_with=_dtypes_with,
              axis_from="gamma", trailing=True,
              options={"order": "tree", "scalar_fused": False, "mula_fused": True, "scalar_sqrt": "float"},
              check_options=_check_options, status=561002, acl_shape_ok={"rstd": _rstd_taken}),
    torch_rows=RowsTorch(functions=("rms_norm_torch", "RmsNormFunction", "RMSNorm"), names={"epsilon": "eps"},
                         gradient=_gradient, tangent=_tangent, weight="gamma")))
