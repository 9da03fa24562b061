"""The torch module of a described operator (:mod:`swishgrad_numba.ops.description`), generated.

:func:`module` makes the forward operator's ``torch.nn.Module`` (its description's ``torch_module``
name), and adds the operator's row to :data:`swishgrad_numba.faces.torch_family.ACTIVATIONS`: forward its
functional face, backward its ``backward`` operator's, both the device's kernels through the shared
autograd Functions (``ActivationFunction``, ``ActivationBackwardFunction``: ``torch.func`` and
``torch.compile`` as for every activation of the family). The second order takes the description's
``second_derivative``. The module's constants are the description's ``torch_attributes`` (float attributes,
by default the only one; each rounded once to float32; several travel as one tuple, Softplus's ``(beta,
threshold)``); the other attributes, forward's and backward's, keep their defaults. Both passes run on one
platform: the pair's default where none is given (:func:`~.torch_family.pair_platform`). A description's
``torch_variant`` adds an attribute that picks another operator (GELU's ``approximate``: GeluV2).

:func:`functions` makes an attribute-free operator's public torch functions (its ``torch_functions``: SiLU's,
Mish's, Hardswish's, Sigmoid's), over the same row.
"""
from __future__ import annotations

import inspect

from .torch_family import (ACTIVATIONS, Activation, ActivationBackwardFunction, ActivationFunction,
                           check_torch_platform, float_beta32, pair_platform)
from .torch_support import check_tensor, eager, missing_torch, torch
from .torch_support import NO_TORCH, check_tensor_pair
from .functional import face
from .signature import binder

__all__ = ["module", "functions"]

_MODULES: dict = {}


def _functional(desc):
    """The public function of described operator ``desc``: its generated functional face (issue 40)."""
    return face(desc.name)


def _row(desc, backward_desc, names: tuple):
    forward, backward = _functional(desc), _functional(backward_desc)

    def kw(b):   # the autograd row's constant: one attribute's value, or several as a tuple
        return {names[0]: b} if len(names) == 1 else dict(zip(names, b))

    ACTIVATIONS[desc.name] = Activation(lambda x, b, p: forward(x, **kw(b), platform=p),
                                        lambda g, x, b, p: backward(g, x, **kw(b), platform=p), has_beta=True,
                                        operators=(desc.name, backward_desc.name),
                                        second_derivative=desc.second_derivative)


def module(name: str):
    """The torch module class of described forward operator ``name`` (made once)."""
    if name in _MODULES:
        return _MODULES[name]
    from ..ops.registry import get_operator

    desc = get_operator(name).described_by
    if desc is None or desc.torch_module is None or desc.backward is None:
        raise ValueError(f"operator {name!r} has no generated torch module")
    if desc.torch_variant:   # an attribute picks another operator (GELU's approximate: GeluV2)
        _MODULES[name] = _variant_module(name, desc)
        return _MODULES[name]
    if not desc.attributes and not desc.torch_attributes:   # no constant (ReLU, issue 41)
        _MODULES[name] = _module_without_attributes(name, desc)
        return _MODULES[name]
    taken = desc.torch_attributes or tuple(a.name for a in desc.float_attributes)
    floats = {a.name: a for a in desc.float_attributes}
    if not taken or any(t not in floats for t in taken):
        raise ValueError(f"operator {name!r}: a generated torch module takes float attributes, got {taken}")
    attrs = tuple(floats[t] for t in taken)
    default_platform = pair_platform(name, desc.backward)
    _row(desc, get_operator(desc.backward).described_by, taken)
    if torch is None:
        cls = missing_torch(desc.torch_module, "Unavailable: PyTorch is not installed.")
        _MODULES[name] = cls
        return cls

    P = inspect.Parameter
    sig = inspect.Signature([P("self", P.POSITIONAL_ONLY)]
                            + [P(a.name, P.POSITIONAL_OR_KEYWORD, default=a.default) for a in attrs]
                            + [P("platform", P.KEYWORD_ONLY, default=None)])

    def __init__(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        self, *values, platform = bound.arguments.values()
        torch.nn.Module.__init__(self)
        self._platform_given = platform is not None
        platform = default_platform if platform is None else platform
        check_torch_platform(platform, name)
        for a, value in zip(attrs, values):
            try:
                setattr(self, a.name, float_beta32(value))
            except (TypeError, ValueError) as exc:
                raise type(exc)(str(exc).replace("beta", a.name)) from None
        self.platform = platform

    __init__.__signature__ = sig

    @eager
    def forward(self, x):
        check_tensor(x, "x")
        constant = tuple(getattr(self, a.name) for a in attrs)
        return ActivationFunction.apply(x, name, constant[0] if len(attrs) == 1 else constant, self.platform)

    def extra_repr(self) -> str:
        shown = ", ".join(f"{a.name}={getattr(self, a.name)!r}" for a in attrs)
        if desc.torch_shows_platform:
            return shown + f", platform={self.platform.soc_version!r}"
        return shown + (f", platform={self.platform!r}" if self._platform_given else "")

    doc = (f"{desc.summary}: a module whose forward pass is operator ``{name}``'s kernel ({desc.aclnn[1]}) and "
           f"whose gradient is ``{desc.backward}``'s, bit for bit; generated from the description.\n\n"
           f"Parameters\n----------\n"
           + "".join(f"{a.name} : float or 0-d tensor\n    Rounded once to float32; {a.default!r} by default.\n"
                     for a in attrs)
           + f"platform : Platform, optional\n    The operator's default platform by "
           f"default; one where either pass has no kernel is refused here.\n")
    cls = type(desc.torch_module, (torch.nn.Module,), {"__init__": __init__, "forward": forward,
                                                       "extra_repr": extra_repr, "__doc__": doc,
                                                       "__module__": "swishgrad_numba.torch"})
    _MODULES[name] = cls
    return cls


def _module_without_attributes(name: str, desc):
    """The module of a forward operator without attributes (issue 41: ``ReLU``): ``Module(*, platform=None)``;
    its backward operator runs with its own attributes' defaults (ThresholdBackward's threshold 0)."""
    _bare_row(name, desc)
    if torch is None:
        return missing_torch(desc.torch_module, "Unavailable: PyTorch is not installed.")
    default_platform = pair_platform(name, desc.backward)

    def __init__(self, *, platform=None):
        torch.nn.Module.__init__(self)
        self._platform_given = platform is not None
        self.platform = default_platform if platform is None else platform
        check_torch_platform(self.platform, name)

    @eager
    def forward_(self, x):
        check_tensor(x, "x")
        return ActivationFunction.apply(x, name, 0.0, self.platform)

    def extra_repr(self) -> str:
        return f"platform={self.platform!r}" if self._platform_given else ""

    doc = (f"{desc.summary}: a module whose forward pass is operator ``{name}``'s kernel ({desc.aclnn[1]}) and "
           f"whose gradient is ``{desc.backward}``'s, bit for bit; generated from the description.\n\n"
           f"Parameters\n----------\nplatform : Platform, optional\n    The operator's default platform by "
           f"default; one where either pass has no kernel is refused here.\n")
    return type(desc.torch_module, (torch.nn.Module,), {"__init__": __init__, "forward": forward_,
                                                       "extra_repr": extra_repr, "__doc__": doc,
                                                       "__module__": "swishgrad_numba.torch"})


def _bare_row(name: str, desc):
    """The autograd row of attribute-free forward operator ``name`` (its constant unused)."""
    from ..ops.registry import get_operator

    forward, backward = _functional(desc), _functional(get_operator(desc.backward).described_by)
    # a backward whose second input is the forward's result (role "y", SigmoidGrad's): the result is saved
    saves_output = get_operator(desc.backward).described_by.inputs[-1].role == "y"
    ACTIVATIONS[name] = Activation(lambda x, b, p: forward(x, platform=p),
                                   lambda g, x, b, p: backward(g, x, platform=p), has_beta=False,
                                   operators=(desc.name, desc.backward), second_derivative=desc.second_derivative,
                                   saves_output=saves_output)


def _variant_module(name: str, desc):
    """The module of attribute-free operator ``name`` whose ``torch_variant`` attribute, given, runs the other
    operator with it (GELU: ``GELU(approximate=None, *, platform=None)``, Gelu, or GeluV2 with ``approximate``).
    ``platform`` defaults to the pair's platform of the operator run (the 950 for GeluV2); the repr shows the
    attribute where given and the platform where given (but for the other operator's default)."""
    from ..ops.registry import get_operator

    attr_name, other = desc.torch_variant
    other_desc = get_operator(other).described_by
    attr = next((a for a in other_desc.attributes if a.name == attr_name), None)
    if attr is None or attr.kind != "choice" or other_desc.backward is None:
        raise ValueError(f"operator {name!r}: torch_variant must name a choice attribute of a forward operator, "
                         f"got {desc.torch_variant}")
    _bare_row(name, desc)
    _row(other_desc, get_operator(other_desc.backward).described_by, (attr_name,))
    if torch is None:
        return missing_torch(desc.torch_module, "Unavailable: PyTorch is not installed.")
    defaults = {name: pair_platform(name, desc.backward), other: pair_platform(other, other_desc.backward)}
    P = inspect.Parameter
    sig = inspect.Signature([P("self", P.POSITIONAL_ONLY), P(attr_name, P.POSITIONAL_OR_KEYWORD, default=None),
                             P("platform", P.KEYWORD_ONLY, default=None)])

    def __init__(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        self, value, platform = bound.arguments.values()
        torch.nn.Module.__init__(self)
        if value is not None and (not isinstance(value, str) or value not in attr.choices):
            raise ValueError(f"{attr_name} must be None or one of {attr.choices}, got {value!r}")
        self._op = name if value is None else other
        self._platform_given = platform is not None
        platform = defaults[self._op] if platform is None else platform
        check_torch_platform(platform, self._op)
        setattr(self, attr_name, value)
        self.platform = platform

    __init__.__signature__ = sig

    @eager
    def forward(self, x):
        check_tensor(x, "x")
        value = getattr(self, attr_name)
        return ActivationFunction.apply(x, self._op, 0.0 if value is None else value, self.platform)

    def extra_repr(self) -> str:
        value = getattr(self, attr_name)
        parts = [] if value is None else [f"{attr_name}={value!r}"]
        if self._platform_given and not (value is not None and self.platform is defaults[other]):
            parts.append(f"platform={self.platform!r}")
        return ", ".join(parts)

    doc = (f"{desc.summary}: a module whose forward pass is operator ``{name}``'s kernel ({desc.aclnn[1]}) and "
           f"whose gradient is ``{desc.backward}``'s; with ``{attr_name}`` given ({', '.join(map(repr, attr.choices))}"
           f"), operator ``{other}``'s ({other_desc.aclnn[1]}) and ``{other_desc.backward}``'s; bit for bit, "
           f"generated from the descriptions.\n\nParameters\n----------\n{attr_name} : None or str\n"
           f"platform : Platform, optional\n    The default platform of the operators run; one where either "
           f"pass has no kernel is refused here.\n")
    return type(desc.torch_module, (torch.nn.Module,), {"__init__": __init__, "forward": forward,
                                                       "extra_repr": extra_repr, "__doc__": doc,
                                                       "__module__": "swishgrad_numba.torch"})


def functions(name: str):
    """The public torch functions of described forward operator ``name`` (its description's ``torch_functions``,
    a module without attributes: Sigmoid's, SiLU's, Mish's, Hardswish's): ``(f, f_backward, Function,
    BackwardFunction)``, or ``(f, f_backward)`` where the description names two.

    ``f(x, *, platform=None)`` and ``f_backward(grad, second, *, platform=None)`` (``second`` named as the
    backward operator's second input: Sigmoid's ``output``) run the two kernels through the shared autograd
    Functions, on the forward operator's default platform where none is given; ``Function.apply(x, platform)``
    and ``BackwardFunction.apply(grad, second, platform)`` are those Functions with the row's name and constant
    bound (subclasses of :class:`~.torch_family.ActivationFunction` and
    :class:`~.torch_family.ActivationBackwardFunction`)."""
    from ..ops.registry import get_operator

    desc = get_operator(name).described_by
    if desc is not None and len(desc.torch_functions) == 4 and len(desc.float_attributes) == 1 == len(
            desc.attributes):   # one float attribute (Swish's beta, issue 40): faces/torch_beta.py
        from .torch_beta import functions_with_attribute

        module(name)   # its ACTIVATIONS row
        return functions_with_attribute(name, desc, get_operator(desc.backward).described_by)
    if desc is None or len(desc.torch_functions) not in (2, 4) or desc.attributes:
        raise ValueError(f"operator {name!r} has no generated torch functions")
    module(name)   # its ACTIVATIONS row
    f_name, b_name, cls_name, b_cls_name = (*desc.torch_functions, None, None)[:4]
    second = get_operator(desc.backward).described_by.inputs[-1].name
    if torch is None:
        def unavailable(*args, **kwargs):
            """Unavailable: PyTorch is not installed."""
            raise ImportError(NO_TORCH)

        return (unavailable, unavailable, *(missing_torch(n, "Unavailable: PyTorch is not installed.")
                                            for n in desc.torch_functions[2:]))
    default_platform = pair_platform(name, desc.backward)

    def _platform(platform):
        platform = default_platform if platform is None else platform
        check_torch_platform(platform, name)
        return platform

    @eager
    def f(x, *, platform=None):
        check_tensor(x, "x")
        return ActivationFunction.apply(x, name, 0.0, _platform(platform))

    P = inspect.Parameter
    sig = inspect.Signature([P("grad", P.POSITIONAL_OR_KEYWORD), P(second, P.POSITIONAL_OR_KEYWORD),
                             P("platform", P.KEYWORD_ONLY, default=None)])

    bind = binder(sig)

    @eager
    def f_backward(*args, **kwargs):
        grad, other, platform = bind(args, kwargs).values()
        check_tensor_pair(grad, other)
        return ActivationBackwardFunction.apply(grad, other, name, 0.0, _platform(platform))

    f.__name__ = f.__qualname__ = f_name
    f_backward.__name__ = f_backward.__qualname__ = b_name
    f_backward.__signature__ = sig
    f.__doc__ = (f"{desc.summary}, for torch tensors: operator ``{name}``'s kernel forward, ``{desc.backward}``'s "
                 f"backward, bit for bit (CPU tensors of float32, float16 or bfloat16, any strides); ``platform`` "
                 f"the operator's default where None. Generated from the description.")
    f_backward.__doc__ = (f"Operator ``{desc.backward}``'s kernel on ``(grad, {second})``, bit for bit what "
                          f":func:`swishgrad_numba.{get_operator(desc.backward).functional}` returns for the same "
                          f"data; differentiable again. Generated from the description.")
    if cls_name is None:
        return f, f_backward

    def apply(x, platform=None):
        return ActivationFunction.apply(x, name, 0.0, platform)

    def apply_backward(grad, other, platform=None):
        return ActivationBackwardFunction.apply(grad, other, name, 0.0, platform)

    fn_cls = type(cls_name, (ActivationFunction,), {
        "apply": staticmethod(apply), "__module__": "swishgrad_numba.torch",
        "__doc__": f"``{cls_name}.apply(x, platform)``: operator ``{name}``'s kernel, its backward pass "
                   f"``{b_cls_name}`` (:class:`ActivationFunction` with the row bound)."})
    b_cls = type(b_cls_name, (ActivationBackwardFunction,), {
        "apply": staticmethod(apply_backward), "__module__": "swishgrad_numba.torch",
        "__doc__": f"``{b_cls_name}.apply(grad, {second}, platform)``: operator ``{desc.backward}``'s kernel, "
                   f"differentiable again (:class:`ActivationBackwardFunction` with the row bound)."})
    return f, f_backward, fn_cls, b_cls
