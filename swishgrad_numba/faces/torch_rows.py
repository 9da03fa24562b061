"""The torch face of a row operator (a description with the "rows" kernel kind and ``torch_rows``, a
:class:`~swishgrad_numba.ops.rows_torch.RowsTorch`), generated (issue 40): SwiGlu's here; an operator without a
backward kernel (``RowsTorch.gradient``: RmsNorm) by :mod:`.torch_rows_formula`.

:func:`faces` makes, once per operator, the names its description gives (``torch_module``, ``RowsTorch.functions``):

- the backward operator's autograd Function, ``.apply(grad, x, d, platform)``: grad_x by the backward operator's
  kernel (its generated functional face) on the platform, bit for bit; where the platform has none (the launch
  raises NotImplementedError) ``RowsTorch.fallback`` in float64, rounded once to x's dtype; an empty x gives zeros.
  Its own backward and jvp (the second order, no kernel computes it) are ``RowsTorch.second`` and ``second_jvp``,
  in float64, rounded once;
- the forward's autograd Function, ``.apply(x, d, platform)``: the forward kernel's result, bit for bit; its
  backward the backward Function; its jvp as ``RowsTorch.jvp`` says (``"halves"``: each half of the tangent fed to
  the backward kernel, that half of its result kept, the two added in the dtype);
- both Functions' ``vmap``: the batch axis first, the axis shifted by one, one launch over the batch;
- the functions ``f(x, <axis>=default, *, platform=None)`` and ``f_backward(grad, x, <axis>=default, *,
  platform=None)``: the tensors checked (CPU, float32, float16 or bfloat16), then every rule of the functional
  face (:func:`~swishgrad_numba.faces.rows.checked`, on zero-strided arrays of the tensors' shapes: their messages,
  the backward's inputs named as the torch function names them);
- the module ``M(<axis>=default, *, platform=None)``: the forward function with its constants.

All of them run eagerly under ``torch.compile`` (a graph break around each launch). Without PyTorch the names
exist and raise the integration's ImportError.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import bfloat16
from ..platform import Platform, modelled_platform
from ..ops.rows_torch import JVPS
from .functional import face
from .rows import axis_attribute, axis_input, checked
from .torch_support import (NO_TORCH, batch_first, check_tensor, eager, missing_torch, tensor_from_numpy,
                            tensor_to_numpy, torch)

__all__ = ["faces", "KERNELS"]

#: The functional faces the torch faces launch, by operator name (made on first use).
KERNELS: dict = {}
_MADE: dict = {}


def _kernel(name: str):
    if name not in KERNELS:
        KERNELS[name] = face(name)
    return KERNELS[name]


def _probe(t):
    """A zero-strided array of the tensor's shape and dtype (under vmap a tensor has no storage to view)."""
    dtype = {torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: bfloat16}[t.dtype]
    return np.broadcast_to(np.zeros((), dtype), tuple(t.shape))


def _renamed(exc, names: dict):
    text = str(exc)
    for old, new in names.items():
        text = text.replace(old, new)
    return type(exc)(text)


def _shifted(d: int) -> int:
    return d + 1 if d >= 0 else d


def faces(name: str) -> dict:
    """Row operator ``name``'s torch names, by name (its description's ``torch_module``, ``RowsTorch.functions``)."""
    if name in _MADE:
        return _MADE[name]
    from ..ops.registry import get_operator

    desc = get_operator(name).described_by
    rule = desc.torch_rows
    formula = rule is not None and rule.gradient is not None   # no backward kernel: the float64 formulas
    if rule is None or (not formula and (desc.backward is None or len(rule.functions) != 4 or rule.jvp not in JVPS)) \
            or (formula and (len(rule.functions) != 3 or rule.tangent is None or rule.weight is None
                             or not desc.rows.trailing)):
        raise ValueError(f"operator {name!r} has no generated torch face (its description's torch_rows)")
    functions, classes = ((rule.functions[:1], rule.functions[1:]) if formula
                          else (rule.functions[:2], (*rule.functions[2:], desc.torch_module)))
    if torch is None:
        made = {n: missing_torch(n, "Unavailable: PyTorch is not installed.") for n in classes}

        def unavailable(*args, **kwargs):
            raise ImportError(NO_TORCH)

        made.update({n: unavailable for n in functions})
        _MADE[name] = made
        return made
    if formula:
        from .torch_rows_formula import generate

        made = generate(desc, rule, _kernel)
    else:
        made = _generate(desc, get_operator(desc.backward).described_by, rule)
    _MADE[name] = made
    return made


def _generate(desc, back, rule) -> dict:
    f_name, b_name, function_name, backward_function_name = rule.functions
    axis, x_name = axis_attribute(desc), axis_input(desc).name
    g_input = next(i for i in back.inputs if i.role == "grad")
    g_name = rule.names.get(g_input.name, g_input.name)

    def grad_x(g, x, d, platform):
        if x.numel() == 0:
            return torch.zeros_like(x)
        try:
            gx = _kernel(back.name)(tensor_to_numpy(g), tensor_to_numpy(x), d, platform=platform)
        except NotImplementedError:
            return rule.fallback(g, x, d).to(x.dtype)
        return tensor_from_numpy(gx)

    class BackwardFunction(torch.autograd.Function):
        @staticmethod
        def forward(grad, x, d, platform):
            return grad_x(grad, x, d, platform)

        @staticmethod
        def setup_context(ctx, inputs, output):
            grad, x, d, platform = inputs
            ctx.save_for_backward(grad, x)
            ctx.save_for_forward(grad, x)
            ctx.d, ctx.platform = d, platform

        @staticmethod
        def backward(ctx, ggx):
            grad, x = ctx.saved_tensors
            d_grad, d_x = rule.second(grad, x, ggx, ctx.d, ctx.needs_input_grad[:2])
            return (None if d_grad is None else d_grad.to(grad.dtype),
                    None if d_x is None else d_x.to(x.dtype), None, None)

        @staticmethod
        def jvp(ctx, d_grad, d_x, *_constants):
            grad, x = ctx.saved_tensors
            return rule.second_jvp(grad, x, d_grad, d_x, ctx.d).to(x.dtype)

        @staticmethod
        def vmap(info, in_dims, grad, x, d, platform):
            grad, x = batch_first(grad, in_dims[0], info.batch_size), batch_first(x, in_dims[1], info.batch_size)
            return BackwardFunction.apply(grad, x, _shifted(d), platform), 0

    class Function(torch.autograd.Function):
        @staticmethod
        def forward(x, d, platform):
            check_tensor(x, x_name)
            return tensor_from_numpy(_kernel(desc.name)(tensor_to_numpy(x), d, platform=platform))

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, d, platform = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            ctx.d, ctx.platform = d, platform

        @staticmethod
        def backward(ctx, gy):
            (x,) = ctx.saved_tensors
            gx = BackwardFunction.apply(gy, x, ctx.d, ctx.platform) if ctx.needs_input_grad[0] else None
            return gx, None, None

        @staticmethod
        def jvp(ctx, d_x, *_constants):
            # "halves": each half of the tangent is the backward kernel's gradient, that half of its result kept
            (x,) = ctx.saved_tensors
            ga, gb = (BackwardFunction.apply(h.contiguous(), x, ctx.d, ctx.platform).chunk(2, dim=ctx.d)[k]
                      for k, h in enumerate(d_x.chunk(2, dim=ctx.d)))
            return ga + gb

        @staticmethod
        def vmap(info, in_dims, x, d, platform):
            return Function.apply(batch_first(x, in_dims[0], info.batch_size), _shifted(d), platform), 0

    for cls, op, fname in ((Function, desc, function_name), (BackwardFunction, back, backward_function_name)):
        cls.__name__ = cls.__qualname__ = fname
        cls.__module__ = "swishgrad_numba.torch"
        cls.__doc__ = (f"``{fname}.apply({'grad, ' if op is back else ''}x, dim, platform)``: operator "
                       f"``{op.name}``'s kernel ({op.aclnn[1]}), bit for bit, differentiable; generated "
                       f"(:mod:`swishgrad_numba.faces.torch_rows`).")

    def check_platform(platform):
        modelled_platform(platform, desc.functional, desc.kernel_op, desc.rows.socs)

    @eager
    def forward_fn(x, dim=axis.default, *, platform: Platform | None = None):
        check_tensor(x, x_name)
        check_platform(platform)
        d, *_ = checked(desc, {x_name: _probe(x), axis.name: dim, "platform": platform})
        return Function.apply(x, d, platform)

    @eager
    def backward_fn(grad, x, dim=axis.default, *, platform: Platform | None = None):
        check_tensor(x, x_name)
        check_platform(platform)
        check_tensor(grad, g_name)
        try:
            d, *_ = checked(back, {g_input.name: _probe(grad), x_name: _probe(x), axis.name: dim,
                                   "platform": platform})
        except (TypeError, ValueError) as exc:
            raise _renamed(exc, rule.names) from None
        return BackwardFunction.apply(grad, x, d, platform)

    forward_fn.__name__ = forward_fn.__qualname__ = f_name
    backward_fn.__name__ = backward_fn.__qualname__ = b_name
    for fn in (forward_fn, backward_fn):
        fn.__module__ = "swishgrad_numba.torch"
    forward_fn.__doc__ = (f"{desc.summary}, of a CPU tensor (float32, float16, bfloat16) as the device computes "
                          f"it ({desc.aclnn[1]}); its gradient operator ``{back.name}``'s kernel. Generated "
                          f"(:mod:`swishgrad_numba.faces.torch_rows`).")
    backward_fn.__doc__ = (f"{back.summary}, by its kernel ({back.aclnn[1]}), or the float64 formula where the "
                           f"platform has none; differentiable (the second order in float64).")

    class Module(torch.nn.Module):
        def __init__(self, dim=axis.default, *, platform: Platform | None = None):
            super().__init__()
            check_platform(platform)
            if isinstance(dim, bool) or not isinstance(dim, int):
                raise TypeError(f"{axis.name} must be an int, got {type(dim).__name__}")
            setattr(self, axis.name, dim)
            self.platform = platform

        @eager
        def forward(self, x):
            return forward_fn(x, getattr(self, axis.name), platform=self.platform)

        def extra_repr(self) -> str:
            return f"{axis.name}={getattr(self, axis.name)}" + (
                "" if self.platform is None else f", platform={self.platform!r}")

    Module.__name__ = Module.__qualname__ = desc.torch_module
    Module.__module__ = "swishgrad_numba.torch"
    Module.__doc__ = (f"{desc.summary}: a module whose forward pass is operator ``{desc.name}``'s kernel "
                      f"({desc.aclnn[1]}) and whose gradient is ``{back.name}``'s, bit for bit; generated from the "
                      f"descriptions (:mod:`swishgrad_numba.faces.torch_rows`).\n\nParameters\n----------\n"
                      f"{axis.name} : int\n    The axis of x, {axis.default} by default.\nplatform : Platform, "
                      f"optional\n    A modelled SoC ({', '.join(desc.rows.socs)}); the reference platform by "
                      f"default.")
    return {f_name: forward_fn, b_name: backward_fn, function_name: Function, backward_function_name: BackwardFunction,
            desc.torch_module: Module}
