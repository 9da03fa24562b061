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

A view between other types (a float buffer's part as a ``uint8_t`` Compare mask, a float tensor as
``uint32_t`` for ``ShiftRight`` and as ``int32_t`` for its Cast, a ``float`` tensor's bytes as ``half`` or
``int8_t`` scratch) is a tensor of its own in the program too, but no instruction carries bytes between
it and its buffer's other views: such a view is read only where it holds the bytes, written through
itself since another view (or a DataCopy) last wrote the buffer; :func:`check_reads` refuses, at its line,
a read of bytes that another view of another type wrote (an element count that changes with the width
never meets another view's). ``ShiftRight`` of a ``uint32_t`` view of a float32 tensor is the program
form's ``ShiftRight`` of the float32 tensor (its bits as uint32). A Cast of a ``uint32_t`` view and a
DataCopy into such a view are refused.
"""
from __future__ import annotations

from dataclasses import dataclass

from .abstract import Tensor, refuse
from .errors import KernelSourceError
from .values import CNum, TypeVal, render

__all__ = ["BIT_CTYPES", "VIEW_CTYPES", "reinterpret", "check_call", "resolve", "bits_constant", "check_reads",
           "shift_source", "check_copy"]

#: The C integer types a bit view may be, by the program dtype they are read as.
BIT_CTYPES = {"int16_t": "int16", "uint16_t": "int16"}
_SIXTEEN = ("float16", "bfloat16")
#: The C types any view may be, by the program dtype it is read as (a float type: its own; a uint8_t one is a
#: Compare's mask, one element per element compared, :data:`swishgrad_numba.program.isa.MASK_DTYPE`).
VIEW_CTYPES = {**BIT_CTYPES, "uint8_t": "uint8", "int8_t": "int8", "int32_t": "int32", "uint32_t": "int32"}


@dataclass(frozen=True)
class UnsignedView(Tensor):
    """A ``uint32_t`` view: the program's int32 (the same 32 bits), which a Cast may not read as a value;
    ``of`` the tensor it was taken of (:func:`shift_source`)."""
    of: str = ""


def reinterpret(machine, node, obj: Tensor, targs) -> Tensor:
    """``obj.ReinterpretCast<T>()`` as a view of ``obj``'s buffer (see the module)."""
    tval = targs[0] if len(targs) == 1 and isinstance(targs[0], TypeVal) else None
    target = tval and (VIEW_CTYPES.get(tval.cname) or tval.dtype)
    views = machine.__dict__.setdefault("bit_views", {})
    base = views.get(obj.key, obj.key)
    base_dtype = machine.dtypes.get(base, obj.dtype)
    if target is None:
        refuse(node, "ReinterpretCast", f"a {obj.dtype} tensor as {tval.cname if tval else '?'}: a view is read "
               "as float, half, bfloat16_t or " + ", ".join(VIEW_CTYPES))
    if target == base_dtype:
        return UnsignedView(base, target, obj.key) if tval.cname == "uint32_t" else Tensor(base, target)
    key = f"{base}_as_{target}"
    views[key] = base
    if tval.cname == "uint16_t":
        machine.__dict__.setdefault("unsigned16", set()).add(key)
    machine.dtypes.setdefault(key, target)
    return UnsignedView(key, target, obj.key) if tval.cname == "uint32_t" else Tensor(key, target)


def check_call(node, op, args, unsigned=frozenset()) -> None:
    """Refuse, at its line, a vector call that mixes bit views and arithmetic (module docstring); a Cast of an
    int16 reads or writes its value (an ``int16_t``'s: ``unsigned`` holds the keys of ``uint16_t`` tensors)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    if op == "Cast" and len(args) > 1 and isinstance(args[1], UnsignedView):
        refuse(node, "Cast of a uint32_t tensor", "the program form's Cast reads an int32_t's value (a "
               "ReinterpretCast<int32_t> of the same bits is read)")
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


def _modelled(a: str, b: str) -> bool:
    """Whether the program carries the bits from a view of dtype ``a`` to one of ``b`` (a Reinterpret)."""
    return a == b or {a, b} in ({"float16", "int16"}, {"bfloat16", "int16"})


def check_copy(machine, node, args) -> None:
    """Refuse a DataCopy into a view its buffer's loads cannot reach (a type other than the buffer's, bar the
    16-bit bit views), or into a ``uint32_t`` view."""
    dst = args[0] if args else None
    views = getattr(machine, "bit_views", {})
    if isinstance(dst, Tensor) and dst.key in views:
        base = views[dst.key]
        if not _modelled(dst.dtype, machine.dtypes.get(base, dst.dtype)):
            refuse(node, f"DataCopy into a ReinterpretCast view ({render(node.args[0])})", "a GM input is read "
                   f"into its buffer as the buffer's type ({machine.dtypes.get(base)}), not as a {dst.dtype} view")


def shift_source(machine, op, args) -> list:
    """``ShiftRight(dst, x.ReinterpretCast<uint32_t>(), n)`` as the program's ShiftRight of ``x`` (its float32
    bits as uint32), where ``x``'s buffer is float32 (module docstring)."""
    if op == "ShiftRight" and len(args) > 1 and isinstance(args[1], UnsignedView) \
            and machine.dtypes.get(args[1].of) == "float32":
        return [args[0], Tensor(args[1].of, "float32")] + list(args[2:])
    return list(args)


def check_reads(file, events, views: dict, parts: dict, dtypes: dict, names: dict) -> None:
    """Refuse, at its line, a step (or the store) reading a view whose buffer's bytes another view of a type
    the program cannot carry them to wrote last (module docstring). ``events`` in order (loads, steps,
    stores); ``views`` a view's viewed tensor by key, ``parts`` a buffer's part (``buf[n]``) by key: (its
    buffer's key, ...). A view wider than its buffer's elements may reach any part of the buffer: a write
    through it clobbers every other part, a write of a part the bytes it held."""
    from .instructions import STEP_KINDS
    from .ub_bounds import BYTES

    def buffer(k):
        for _ in range(8):
            k2 = views.get(k, parts[k][0] if k in parts else k)
            if k2 == k:
                break
            k = k2
        return k

    members = set(views) | set(views.values())
    holding, clobbered, roots = {}, {}, {}
    for e in events:
        for k in ([e.key] if e.kind != "step" else [a for a in e.step.args if isinstance(a, str) and a in dtypes]):
            roots.setdefault(buffer(k), set()).add(views.get(k, k))
    wide = {k for k in members if BYTES.get(dtypes.get(k), 0) > BYTES.get(dtypes.get(buffer(k)), 0)}

    def read(key, at, what):
        held = holding.get(views.get(key, key))
        if held is None or key in held or not held and key not in clobbered:
            return
        if held and any(_modelled(dtypes[h], dtypes[key]) for h in held):
            held.append(key)        # a Reinterpret carries them (resolve)
            return
        by = held[-1] if held else clobbered[key]
        raise KernelSourceError(at[0], at[1], f"{what} reading {names.get(key, key)}", f"its bytes were last "
                                f"written as {dtypes[by]} through {names.get(by, by)} (a ReinterpretCast view of the "
                                f"same buffer); a {dtypes[key]} view is read only where it was written through "
                                "itself since")

    def wrote(key):
        root = views.get(key, key)
        holding[root] = [key]
        for other in roots.get(buffer(key), ()):
            if other != root and (key in wide or wide & set(holding.get(other, ()))):
                for k in holding.get(other, ()):
                    clobbered[k] = key
                holding[other] = []

    for e in events:
        if e.kind == "load":
            wrote(e.key)
        elif e.kind == "store":
            read(e.key, (file, 0), "the store to GM")
        elif e.kind == "step":
            s = e.step
            for arg, kind in zip(s.args, STEP_KINDS[s.op]):
                if kind in "sD" and isinstance(arg, str):
                    read(arg, s.at, s.op)
            wrote(s.args[0])
