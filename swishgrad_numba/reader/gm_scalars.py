"""A scalar read from a GM input by ``GetValue`` (issue 43): ``w = weightGm.GetValue(0)``, then the scalar
operand of ``Muls``, ``Adds``, ``Maxs``, ``CompareScalar``, ``Select``, ``Duplicate``...

The value is known only when the kernel runs, from the input array itself, so it is a launch scalar
(:mod:`.launch_scalars`): ``LaunchScalar("gm", (GMValue,))``, named like the others and evaluated per launch
from the actual input (:func:`reading`, which :meth:`ReadOperator.run` sets). The index must be a constant
(the same on every core); one computed from data or from the core's index is refused. An input the kernel
also copies tile by tile is read at that element of the whole input, as the device reads it. The element is read as its dtype (float, half or bfloat16) and
widened to float32 exactly; a cast to its own type or to ``float`` keeps it (``T(g.GetValue(0))``,
``(float)threshold``, ``ToFloat(v)``), a cast to another type is refused, and so is arithmetic on a half or
bfloat16 one before its cast to ``float`` (the scalar unit's half arithmetic is not modelled).
"""
from __future__ import annotations

import contextvars
from dataclasses import dataclass

import numpy as np

from .abstract import refuse
from .values import CNum, is_int, render

__all__ = ["GMValue", "get_value", "check_dtype", "deref", "cast", "check_argument", "inputs_of", "reading", "value_of"]

_FLOAT_DTYPES = ("float32", "float16", "bfloat16")
_ZERO = CNum(0, "int")
_INPUTS: contextvars.ContextVar = contextvars.ContextVar("swishgrad_gm_scalars", default=None)


@dataclass(frozen=True)
class GMValue:
    """Element ``index`` of GM input ``gm`` (elements of ``dtype``), held as C type ``ctype``."""

    gm: str
    index: int
    dtype: str
    ctype: str

    def __str__(self):
        return f"{self.gm}[{self.index}]" + ("" if self.ctype != "float" or self.dtype == "float32" else "f")


def get_value(machine, node, glob, args):
    """``glob.GetValue(index)``: the :class:`GMValue` it reads (the caller makes it a launch scalar), or a
    refusal."""
    what = f"{glob.name}.GetValue"
    if glob.gm is None:
        refuse(node, what, "the GlobalTensor is never bound to a GM_ADDR by SetGlobalBuffer")
    if len(args) != 1 or not is_int(args[0]) or args[0].value < 0:
        refuse(node, render(node), "its index is not a constant: one that depends on data, the core or a "
               "loop is not modelled (only a fixed element, the same on every core and tile)")
    if getattr(glob, "at_start", False) is not True:
        refuse(node, what, f"{glob.name} is bound to GM input {glob.gm} at an offset (a core's part, "
               "SetGlobalBuffer(x + offset)): which element it reads is not modelled")
    dtype = check_dtype(node, what, glob.ctype)
    return GMValue(glob.gm, int(args[0].value), dtype, glob.ctype.cname)


def check_dtype(node, what, ctype) -> str:
    """The dtype of a GM scalar of C type ``ctype`` (a TypeVal), or a refusal: float, half and bfloat16_t only."""
    dtype = getattr(ctype, "dtype", None)
    if dtype not in _FLOAT_DTYPES:
        refuse(node, what, f"a GM scalar of type {getattr(ctype, 'cname', '(unknown)')}: the reader reads "
               "float, half and bfloat16_t ones")
    return dtype


def is_gm(x) -> bool:
    return getattr(x, "op", None) == "gm"


def cast(node, cname, x):
    """A C cast of a GM value (a launch scalar ``x``): to ``float`` (exact), or to its own type (itself); else
    refused."""
    leaf = x.args[0]
    if cname == leaf.ctype:
        return x
    if cname == "float":
        return type(x)("gm", (GMValue(leaf.gm, leaf.index, leaf.dtype, "float"),))
    refuse(node, f"cast of {leaf} ({leaf.ctype}) to {cname}", "a GM scalar is kept as read or widened to float")


def check_argument(node, x):
    """Refuse arithmetic on a GM value held as half or bfloat16 (C would compute on the 16-bit value)."""
    if is_gm(x) and x.args[0].ctype != "float":
        refuse(node, f"arithmetic on {x.args[0]} of type {x.args[0].ctype} ({render(node)})",
               "the scalar unit's 16-bit arithmetic is not modelled: cast it to float first")


def leaves(scalar) -> tuple:
    """The GMValues a launch scalar reads."""
    if isinstance(scalar, GMValue):
        return (scalar,)
    return tuple(v for a in getattr(scalar, "args", ()) for v in leaves(a))


def inputs_of(description, dtype: str | None = None, variants=None) -> dict:
    """GM input -> (elements it must hold, its dtype) for the GM scalars of ``description``'s bodies (of
    ``dtype`` and among ``variants``, where given: the variants a launch runs)."""
    out = {}
    for body in description.bodies:
        if dtype is not None and body.dtype != dtype or variants is not None and body.variant not in variants:
            continue
        for _, scalar in body.scalars:
            for leaf in leaves(scalar):
                n, _ = out.get(leaf.gm, (0, leaf.dtype))
                out[leaf.gm] = (max(n, leaf.index + 1), leaf.dtype)
    return out


def checked_inputs(needed: dict, arrays: dict, name: str) -> dict:
    """The flat arrays of the GM scalar inputs ``needed`` (:func:`inputs_of` the bodies a launch runs), checked:
    given, ndarrays of their dtype, holding the elements read."""
    from ..dtypes import dtype_info

    out = {}
    for gm, (n, want) in needed.items():
        if gm not in arrays:
            raise TypeError(f"{name}() missing input {gm!r} (the kernel reads a scalar from it by GetValue)")
        arr = arrays[gm]
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"{gm} must be a numpy.ndarray, got {type(arr).__name__}")
        if dtype_info(arr.dtype, argname=f"{gm}.dtype").name != want:
            raise ValueError(f"{gm}.dtype must be {want} (the kernel reads it as its input's type), got "
                             f"{arr.dtype}")
        if arr.size < n:
            raise ValueError(f"{gm} must hold at least {n} element(s) (the kernel reads element {n - 1}), "
                             f"got {arr.size}")
        out[gm] = np.ascontiguousarray(arr).reshape(-1)
    return out


class reading:
    """``with reading(arrays):`` the GM inputs (name -> flat array) the launch's GM scalars read."""

    def __init__(self, arrays: dict):
        self.arrays = arrays

    def __enter__(self):
        self.token = _INPUTS.set(self.arrays)
        return self

    def __exit__(self, *exc):
        _INPUTS.reset(self.token)


def value_of(leaf: GMValue) -> np.float32:
    """The float32 value of ``leaf`` in the running launch's input (exact: a widening)."""
    arrays = _INPUTS.get()
    if arrays is None or leaf.gm not in arrays:
        raise ValueError(f"the kernel reads a scalar from GM input {leaf.gm!r} (GetValue): run it with "
                         f"the operator's run(), which passes that input")
    return np.float32(arrays[leaf.gm][leaf.index])


def exact_in(body, scalar, dtype: str) -> bool:
    """Whether the scalar operand ``scalar`` (an AttrRef of ``body``) is a GM value of ``dtype`` as read, which
    a ``dtype`` instruction takes exactly (no conversion rounds it)."""
    named = dict(getattr(body, "scalars", ()) or ())
    x = named.get(getattr(scalar, "name", None))
    return is_gm(x) and x.args[0].dtype == dtype


def deref(machine, node):
    """``*((__gm__ T*)scalar)`` or ``*((__gm__ T*)scalar + i)`` with ``scalar`` a ``GM_ADDR`` argument: that
    element of the input, the :class:`GMValue` :func:`get_value` gives (``i`` a constant); None where ``node``
    is not that."""
    from .objects import GMAddr, GlobalT
    from .syntax import Binary, CCast, Name

    x, index = node.x, _ZERO
    if isinstance(x, Binary) and x.op == "+" and isinstance(x.a, CCast):      # *((__gm__ T*)w + i)
        x, index = x.a, machine.eval(x.b)
    if not isinstance(x, CCast) or not x.type.ptr or "__gm__" not in x.type.quals:
        return None
    addr = machine.eval(x.x)
    if not isinstance(addr, GMAddr):
        return None
    if not isinstance(x.x, Name):
        refuse(node, f"a GM scalar {render(node)}", "a GM address moved before its cast is not followed")
    glob = GlobalT(addr.name, addr.name, machine.type_of(x.type))
    glob.at_start = True
    return get_value(machine, node, glob, [index])


def note_binding(glob, address) -> None:
    """Record on ``glob`` whether ``SetGlobalBuffer``'s ``address`` (its syntax) is a GM_ADDR argument itself,
    cast or not (``(__gm__ T*)w``): then ``GetValue(i)`` reads the input's element ``i``. A binding at an
    offset on any way the reader followed (both ways of a runtime branch) keeps it moved."""
    from .syntax import CCast, Call, Name

    while True:
        if isinstance(address, CCast):
            address = address.x
        elif isinstance(address, Call) and isinstance(address.fn, Name) and address.fn.last in (
                "static_cast", "reinterpret_cast") and len(address.args) == 1:
            address = address.args[0]
        else:
            break
    glob.at_start = isinstance(address, Name) and getattr(glob, "at_start", True)    # once moved, moved
