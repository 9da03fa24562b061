"""``ReinterpretCast`` between a 16-bit float tensor and ``int16_t``/``uint16_t`` (issue 43): a bit view.

``LocalTensor<int16_t> xi = xLocal.ReinterpretCast<int16_t>();`` is the same UB buffer read as other
elements of the same width, so it is read as a view of the buffer: a tensor of its own (the program's
``int16``, :data:`swishgrad_numba.program.isa.BITS_DTYPE`: a bit pattern, whatever the signedness) that
holds the same bits. The A2 basic API's ``And`` and ``Or`` take ``int16_t``/``uint16_t`` tensors only
(the ``Or`` page of the Ascend C API reference: "Atlas A2 ... int16_t, uint16_t"), so a kernel's sign
tricks (``Abs`` as ``x & 0x7FFF``, ``copysign`` as ``(x & 0x7FFF) | (y & 0x8000)``) are read through such
views, with ``Duplicate`` of a constant's bits into an ``int16_t`` buffer.

:func:`reinterpret` makes the view while the entry is followed; :func:`resolve`, on the program's
instructions, keeps the views of one buffer in step: before an instruction reads a view (or the buffer)
that another view of it wrote last, it inserts ``Reinterpret(read, written)`` (the same bits), and so for
the output. Refused at the call: a view between other types (float32 and int32 or int16, whose lanes
differ in width or are not modelled), ``And``/``Or`` on anything but int16 tensors, an int16
``Duplicate`` of a value that is not a whole number representable in 16 bits, a ``Cast`` of a ``uint16_t``
tensor. The same int16 tensor may be a Cast's (which reads or writes the value of its two's-complement bits,
:mod:`swishgrad_numba.program.int_casts`) and a bit view's.
"""
from __future__ import annotations

from .abstract import Tensor, refuse
from .values import CNum, TypeVal, render

__all__ = ["BIT_CTYPES", "reinterpret", "check_call", "resolve", "bits_constant"]

#: The C integer types a bit view may be, by the program dtype they are read as.
BIT_CTYPES = {"int16_t": "int16", "uint16_t": "int16"}
_SIXTEEN = ("float16", "bfloat16")


def reinterpret(machine, node, obj: Tensor, targs) -> Tensor:
    """``obj.ReinterpretCast<T>()`` as a view of ``obj``'s buffer (see the module)."""
    tval = targs[0] if len(targs) == 1 and isinstance(targs[0], TypeVal) else None
    target = tval and (BIT_CTYPES.get(tval.cname) or tval.dtype)
    views = machine.__dict__.setdefault("bit_views", {})
    base = views.get(obj.key, obj.key)
    base_dtype = machine.dtypes.get(base, obj.dtype)
    if target == base_dtype:
        return Tensor(base, target)
    pair = {target, base_dtype}
    if target is None or len(pair) != 2 or not ("int16" in pair and pair - {"int16"} <= set(_SIXTEEN)):
        refuse(node, "ReinterpretCast", f"a {obj.dtype} tensor as {tval.cname if tval else '?'}: read only "
               "between float16 or bfloat16 and int16_t or uint16_t (the same 16 bits)")
    key = f"{base}_as_{target}"
    views[key] = base
    if tval.cname == "uint16_t":
        machine.__dict__.setdefault("unsigned16", set()).add(key)
    machine.dtypes.setdefault(key, target)
    return Tensor(key, target)


def check_call(node, op, args, unsigned=frozenset()) -> None:
    """Refuse, at its line, a vector call that mixes bit views and arithmetic (module docstring); a Cast of an
    int16 reads or writes its value (an ``int16_t``'s: ``unsigned`` holds the keys of ``uint16_t`` tensors)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    if op == "Cast":
        if any(t.dtype == "int16" and t.key in unsigned for t in tensors):
            refuse(node, "Cast of a uint16_t tensor", "an int16 Cast reads or writes an int16_t's value "
                   "(the program form has no uint16_t pair)")
        return
    if op in ("And", "Or"):
        other = sorted({t.dtype for t in tensors if t.dtype != "int16"})
        if other:
            refuse(node, f"{op} on {', '.join(other)} tensors", "the A2's And and Or take int16_t or uint16_t "
                   "tensors (a float tensor's bits through ReinterpretCast)")
        return
    bits = [t for t in tensors if t.dtype == "int16"]
    if bits and op == "Duplicate" and len(args) > 1:
        v = args[1].value if isinstance(args[1], CNum) else None
        if not (isinstance(v, int) or (isinstance(v, float) and v.is_integer())) or not -32768 <= v <= 65535:
            refuse(node, f"Duplicate of {render(node.args[1]) if len(node.args) > 1 else '?'} into an int16_t "
                   "or uint16_t tensor", "a whole number that 16 bits hold (-32768..65535) is read")
        return
    if bits:
        refuse(node, f"{op} on an int16_t or uint16_t tensor", "of the integer instructions only Cast, And, Or "
               "and Duplicate are read (a ReinterpretCast to another type is read as the same bits)")


def resolve(instrs: list, inputs: tuple, output: str, views: dict) -> list:
    """The program's instructions with the views of each buffer kept in step (module docstring); ``views``
    maps a view's name to its buffer's. An int16 Duplicate's constant becomes its bits (0..65535)."""
    from ..program.form import Instr
    from ..program.isa import INSTRUCTIONS

    members = set(views) | set(views.values())
    fresh = {views.get(n, n): [n] for n in inputs}      # the members of a buffer's views holding its bits now
    out = []

    def sync(name):
        holding = fresh.get(views.get(name, name))
        if name in members and holding and name not in holding:
            out.append(Instr("Reinterpret", (name, holding[0])))
            holding.append(name)

    for ins in instrs:
        for name, kind in zip(ins.args, INSTRUCTIONS.get(ins.op, "")):
            if kind in "sD" and isinstance(name, str):
                sync(name)
        out.append(ins)
        fresh[views.get(ins.args[0], ins.args[0])] = [ins.args[0]]
    sync(output)
    return out


def bits_constant(ins, dtypes):
    """An int16 Duplicate with its constant as the bits it writes (``-32768`` is ``0x8000``)."""
    from ..program.form import Const, Instr

    if ins.op == "Duplicate" and dtypes.get(ins.args[0]) == "int16" and isinstance(ins.args[1], Const):
        return Instr("Duplicate", (ins.args[0], Const(float(int(ins.args[1].f32) & 0xFFFF))))
    return ins
