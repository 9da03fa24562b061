"""The torch face of a row operator whose gradients no emulated kernel computes (its description's ``torch_rows``
with ``gradient``, :class:`~swishgrad_numba.ops.rows_torch.RowsTorch`), generated (issue 40): RmsNorm's.

:func:`generate` makes the names ``RowsTorch.functions`` gives, ``(function, Function, Module)``:

- the autograd Function, ``.apply(*tensors, *attributes, platform)``: the kernel's first output (its generated
  functional face, whose rules and messages apply), bit for bit; its backward ``RowsTorch.gradient`` and its jvp
  ``RowsTorch.tangent``, in float64, rounded once; its ``vmap`` batches the first input by a leading axis (the row
  axes trail), every other input unbatched;
- the function ``f(*tensors, <attribute>=default, ..., *, platform=None)``: the tensors checked (CPU, float32,
  float16 or bfloat16) and the platform's type, then the Function;
- the module (``RowsTorch.weight``: torch.nn.RMSNorm's form), its forward the function with its weight and
  attributes.

All of them run eagerly under ``torch.compile``. Called by :func:`swishgrad_numba.faces.torch_rows.faces` with
PyTorch installed.
"""
from __future__ import annotations

from inspect import Parameter, Signature

from ..platform import Platform
from .signature import binder
from .torch_support import (batch_first, check_tensor, eager, platform_argument, tensor_from_numpy, tensor_to_numpy,
                            torch)

__all__ = ["generate"]

_POS, _KW = Parameter.POSITIONAL_OR_KEYWORD, Parameter.KEYWORD_ONLY


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _bound(bind, signature, name: str, args, kwargs) -> dict:
    """The arguments by name, defaults filled in; a call the signature does not take is a TypeError naming ``name``."""
    try:
        return bind(args, kwargs)
    except TypeError as exc:
        raise TypeError(f"{name}(): {exc} (signature {name}{signature})") from None


def generate(desc, rule, kernel) -> dict:
    """The names ``rule.functions`` gives; ``kernel(name)`` the functional face an operator's kernel runs by."""
    f_name, function_name, module_name = rule.functions
    inputs = [i.name for i in desc.inputs]
    n = len(inputs)
    attrs = [(rule.names.get(a.name, a.name), a) for a in desc.attributes]

    class Function(torch.autograd.Function):
        @staticmethod
        def forward(*args):
            for t, name in zip(args[:n], inputs):
                check_tensor(t, name)
            out = kernel(desc.name)(*map(tensor_to_numpy, args[:n]), *args[n:-1], platform=args[-1])
            return tensor_from_numpy(_first(out))

        @staticmethod
        def setup_context(ctx, inputs_, output):
            ctx.save_for_backward(*inputs_[:n])
            ctx.attrs, ctx.platform = inputs_[n:-1], inputs_[-1]
            ctx.tensors = tuple(t.detach() for t in inputs_[:n])

        @staticmethod
        def backward(ctx, gy):
            tensors = ctx.saved_tensors
            grads = rule.gradient(gy, tensors, ctx.attrs, ctx.needs_input_grad[:n])
            return (*(None if g is None else g.to(t.dtype) for g, t in zip(grads, tensors)),
                    *(None,) * (len(ctx.attrs) + 1))

        @staticmethod
        def jvp(ctx, *tangents):
            return rule.tangent(ctx.tensors, tangents[:n], ctx.attrs).to(ctx.tensors[0].dtype)

        @staticmethod
        def vmap(info, in_dims, *args):
            for k in range(1, n):
                if in_dims[k] is not None:
                    raise NotImplementedError(f"{f_name}: vmap over {inputs[k]} is not supported "
                                              f"(one {inputs[k]} per call)")
            return Function.apply(batch_first(args[0], in_dims[0], info.batch_size), *args[1:]), 0

    signature = Signature([Parameter(i, _POS) for i in inputs] + [Parameter(t, _POS, default=a.default)
                                                                   for t, a in attrs]
                          + [Parameter("platform", _KW, default=None, annotation=Platform | None)])

    bind = binder(signature)

    @eager
    def function(*args, **kwargs):
        values = list(_bound(bind, signature, f_name, args, kwargs).values())
        for t, name in zip(values[:n], inputs):
            check_tensor(t, name)
        platform_argument(values[-1])
        return Function.apply(*values)

    function.__signature__ = signature
    arrow = ", ".join(inputs + [t for t, _ in attrs])
    made = {f_name: function, function_name: Function}
    for obj, name, doc in (
            (function, f_name, f"{desc.summary}: its first output as the device computes it ({desc.aclnn[1]}), "
                               f"of CPU tensors (float32, float16, bfloat16); differentiable, the gradients by "
                               f"the float64 formulas (no kernel computes them). Generated "
                               f"(:mod:`swishgrad_numba.faces.torch_rows_formula`)."),
            (Function, function_name, f"``{function_name}.apply({arrow}, platform)``: operator ``{desc.name}``'s "
                                      f"kernel ({desc.aclnn[1]}), bit for bit; its gradients the float64 formulas. "
                                      f"Generated (:mod:`swishgrad_numba.faces.torch_rows_formula`).")):
        obj.__name__ = obj.__qualname__ = name
        obj.__module__ = "swishgrad_numba.torch"
        obj.__doc__ = doc
    if rule.weight is not None:
        made[module_name] = _module(desc, rule, module_name, function, attrs)
    return made


def _module(desc, rule, name, function, attrs):
    init = Signature([Parameter("self", _POS), Parameter("normalized_shape", _POS)]
                     + [Parameter(t, _POS, default=a.default) for t, a in attrs]
                     + [Parameter("elementwise_affine", _POS, default=True), Parameter("dtype", _KW, default=None),
                        Parameter("platform", _KW, default=None, annotation=Platform | None)])
    x_name = desc.inputs[0].name
    bind = binder(init)

    def __init__(self, *args, **kwargs):
        v = _bound(bind, init, name, (self, *args), kwargs)
        torch.nn.Module.__init__(self)
        platform_argument(v["platform"])
        shape = v["normalized_shape"]
        self.normalized_shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for t, a in attrs:
            setattr(self, t, float(v[t]) if a.kind == "float" else v[t])
        self.platform = v["platform"]
        weight = torch.ones(self.normalized_shape, dtype=v["dtype"] or torch.float32)
        if v["elementwise_affine"]:
            self.weight = torch.nn.Parameter(weight)
        else:
            self.register_buffer("weight", weight)

    __init__.__signature__ = init

    @eager
    def forward(self, x):
        check_tensor(x, x_name)
        weight, kind = self.weight, str(x.dtype).split(".")[-1]
        taken = desc.rows.dtypes_with(kind)[rule.weight] if desc.rows.dtypes_with is not None else (kind,)
        if str(weight.dtype).split(".")[-1] not in taken:
            weight = weight.to(x.dtype)
        return function(x, weight, *(getattr(self, t) for t, _ in attrs), platform=self.platform)

    def extra_repr(self) -> str:
        return ", ".join([str(self.normalized_shape)] + [f"{t}={getattr(self, t)}" for t, _ in attrs])

    params = "".join(f"{t} : {a.kind}\n    {desc.name}'s {a.name}, {a.default!r} by default.\n" for t, a in attrs)
    doc = (f"{desc.summary}: a module (torch.nn.RMSNorm's form) whose forward pass is operator ``{desc.name}``'s "
           f"kernel ({desc.aclnn[1]}), bit for bit, its ``weight`` the input {rule.weight}; the gradients by the "
           f"float64 formulas. Generated (:mod:`swishgrad_numba.faces.torch_rows_formula`).\n\nParameters\n"
           f"----------\nnormalized_shape : int or tuple of int\n    The trailing axes normalised.\n{params}"
           f"elementwise_affine : bool\n    A learnable ``weight`` (ones at first); else a buffer of ones.\n"
           f"dtype : torch.dtype, optional\n    The weight's dtype (float32 by default).\nplatform : Platform, "
           f"optional\n    A modelled SoC ({', '.join(desc.rows.socs)}); the reference platform by default.")
    return type(name, (torch.nn.Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                           "__doc__": doc, "__module__": "swishgrad_numba.torch",
                                           "__qualname__": name})
