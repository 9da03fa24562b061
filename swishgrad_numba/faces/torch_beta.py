"""The public torch functions of a described forward operator with one float attribute (issue 40: Swish's
``swish``, ``swish_backward_torch``, ``SwishFunction``, ``SwishBackwardFunction``), generated from its
description's ``torch_functions``; :func:`swishgrad_numba.faces.torch.functions` hands such an operator here.

``f(x, attr=default, *, platform=None)`` and ``f_backward(grad, x, attr=default, *, platform=None)`` run the
two kernels through the shared autograd Functions (:mod:`.torch_family`); the attribute (a number or a 0-d
tensor) is rounded to float32 once and is a constant. ``platform=None`` is each kernel's own default, and a
given platform is checked by the kernel that runs it (as the functional faces check it).
``Function.apply(x, attr, platform=None)`` and ``BackwardFunction.apply(grad, x, attr, platform=None)`` are
the shared Functions with the row's name bound (an optional attribute None: its default); their higher derivatives are the description's
``second_derivative`` (float64, rounded once), the first order the device kernel, bit for bit."""
from __future__ import annotations

import inspect

from ..dtypes import to_float32
from .signature import binder
from .torch_family import ActivationBackwardFunction, ActivationFunction, float_beta32
from .torch_support import NO_TORCH, check_tensor, check_tensor_pair, eager, missing_torch, platform_argument, torch

__all__ = ["functions_with_attribute"]


def functions_with_attribute(name: str, desc, backward_desc):
    """``(f, f_backward, Function, BackwardFunction)`` of forward operator ``desc`` (one float attribute);
    its ACTIVATIONS row must exist (:func:`.torch.module`)."""
    (attr,) = desc.float_attributes
    f_name, b_name, cls_name, b_cls_name = desc.torch_functions
    if torch is None:
        def unavailable(*args, **kwargs):
            """Unavailable: PyTorch is not installed."""
            raise ImportError(NO_TORCH)

        return (unavailable, unavailable, missing_torch(cls_name, "Unavailable: PyTorch is not installed."),
                missing_torch(b_cls_name, "Unavailable: PyTorch is not installed."))
    a, default = attr.name, attr.default
    second = backward_desc.inputs[-1].name
    P = inspect.Parameter
    sig = inspect.Signature([P("x", P.POSITIONAL_OR_KEYWORD), P(a, P.POSITIONAL_OR_KEYWORD, default=default),
                             P("platform", P.KEYWORD_ONLY, default=None)])
    b_sig = inspect.Signature([P("grad", P.POSITIONAL_OR_KEYWORD), P(second, P.POSITIONAL_OR_KEYWORD),
                               P(a, P.POSITIONAL_OR_KEYWORD, default=default),
                               P("platform", P.KEYWORD_ONLY, default=None)])

    def _constant(value) -> float:   # None is the default where the attribute is optional (aclnn's null)
        return float(to_float32(default if value is None and attr.optional else value, argname=a))

    bind, b_bind = binder(sig), binder(b_sig)

    @eager
    def f(*args, **kwargs):
        x, value, platform = bind(args, kwargs).values()
        check_tensor(x, "x")
        return ActivationFunction.apply(x, name, float_beta32(value), platform_argument(platform))

    @eager
    def f_backward(*args, **kwargs):
        grad, other, value, platform = b_bind(args, kwargs).values()
        check_tensor_pair(grad, other)
        return ActivationBackwardFunction.apply(grad, other, name, float_beta32(value), platform_argument(platform))

    def apply(x, value, platform=None):
        return ActivationFunction.apply(x, name, _constant(value), platform)

    def apply_backward(grad, other, value, platform=None):
        return ActivationBackwardFunction.apply(grad, other, name, _constant(value), platform)

    f.__name__ = f.__qualname__ = f_name
    f_backward.__name__ = f_backward.__qualname__ = b_name
    f.__signature__, f_backward.__signature__ = sig, b_sig
    f.__module__ = f_backward.__module__ = "swishgrad_numba.torch"
    f.__doc__ = (f"{desc.summary}, for torch tensors: operator ``{name}``'s kernel forward, ``{desc.backward}``'s "
                 f"backward, bit for bit (CPU tensors of float32, float16 or bfloat16, any strides); ``{a}`` a "
                 f"number or 0-d tensor, rounded to float32 once, a constant; ``platform`` the kernels' default "
                 f"where None. Higher derivatives: ``{b_cls_name}``. Generated from the description.")
    f_backward.__doc__ = (f"Operator ``{desc.backward}``'s kernel on ``(grad, {second})``, bit for bit what "
                          f":func:`swishgrad_numba.{backward_desc.functional}` returns for the same data; "
                          f"differentiable again (``{b_cls_name}``). Generated from the description.")
    docs = (f"``{cls_name}.apply(x, {a}, platform=None)``: operator ``{name}``'s kernel, its backward pass "
            f"``{b_cls_name}`` (:class:`ActivationFunction` with the row bound).",
            f"``{b_cls_name}.apply(grad, {second}, {a}, platform=None)``: operator ``{desc.backward}``'s kernel, "
            f"bit for bit; with respect to ``grad`` its derivative is that kernel again, with respect to "
            f"``{second}`` ``grad * s''`` (the description's ``second_derivative``, float64, rounded once) "
            f"(:class:`ActivationBackwardFunction` with the row bound).")
    fn_cls, b_cls = (type(n, (base,), dict(apply=staticmethod(run), __module__="swishgrad_numba.torch", __doc__=doc))
                     for n, base, run, doc in zip((cls_name, b_cls_name), (ActivationFunction,
                                                                          ActivationBackwardFunction),
                                                  (apply, apply_backward), docs))
    return f, f_backward, fn_cls, b_cls
