"""1-byte GM tensors and kernels of several outputs (issue 43).

**1-byte GM tensors.** A kernel may read or write ``uint8_t`` or ``int8_t`` GM tensors of one element per
element of its float tensors, values as numbers: a mask of 0 and 1 read and Cast to ``half`` (ops-nn
relu_grad_v4), an IsFinite that writes 0 or 1 Cast from ``half``, a quantizer's ``Cast`` half -> int8 in a
round mode. The program form's inputs and output are float tensors of the launch's dtype, and the walk and
the engine load 2- and 4-byte elements only (:func:`swishgrad_numba.engine.launch.raw_args` refuses others).
Every value of a 1-byte dtype is exact in float16, bfloat16 and float32, so such a tensor crosses the
boundary as the launch's dtype: :meth:`ByteBoundary.widened` makes the host's array of it, the program's
first steps Cast it exactly to the 1-byte local the kernel reads (:func:`at_boundary`), and its last Cast a
1-byte result exactly to the launch's dtype, which :meth:`ByteBoundary.narrowed` turns back into the
1-byte array. Each conversion is exact, so the values are the kernel's; a launch of 2- and 4-byte tensors
only does none of this.

A 1-byte GM tensor read other than by a Cast (a ``Select``'s mask: the device reads its bits, 8 elements
a byte), or written other than by a Cast (a ``Compare``'s packed bits), is refused where it is.

**Several outputs.** A kernel that stores to N GM tensors (``y`` and a mask ``z``) is read into one body
whose :attr:`~.description.Body.outputs` names each; the program of output ``k`` is the body with that
output (:func:`for_output`; the program's lowering drops the steps it does not need), and a run launches
each output's program over the same tiles, returning the outputs in the kernel's GM order. Element-wise,
each output's elements are the kernel's: a step's result does not depend on which other results are kept.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .errors import KernelSourceError
from .instructions import STEP_KINDS

__all__ = ["BYTE_DTYPES", "ByteBoundary", "at_boundary", "boundary", "checked_uses", "for_output", "outputs_of"]

#: The 1-byte GM dtypes a read kernel may read or write (values as numbers).
BYTE_DTYPES = ("uint8", "int8")
_NUMPY = {"uint8": np.uint8, "int8": np.int8}


def _gm_bytes(body) -> dict:
    """GM name -> (tensor, dtype) of ``body``'s 1-byte GM inputs and outputs."""
    dtypes = dict(body.tensors)
    io = list(body.inputs) + list(outputs_of(body))
    return {g: (t, dtypes[t]) for g, t in io if dtypes.get(t) in BYTE_DTYPES}


def outputs_of(body) -> tuple:
    """``((GM name, tensor), ...)``: every output of ``body``, in the kernel's GM order."""
    return body.outputs or (body.output,)


def for_output(description, gm: str):
    """``description`` whose every body computes output ``gm`` (one of its outputs): the steps it needs
    (those writing a tensor it reads, back from the output) and the GM inputs they read; every call is
    still made (:attr:`~.description.Body.called`, which a core's schedule checks)."""
    bodies = []
    for b in description.bodies:
        out = dict(outputs_of(b))[gm]
        needed, kept = {out}, []
        for s in reversed(b.steps):
            tensors = [a for a, k in zip(s.args, STEP_KINDS[s.op]) if isinstance(a, str) and k in "dDsx"]
            if tensors and (tensors[0] in needed or b.bit_views):     # a bit view reads its buffer: all kept
                kept.append(s)
                needed.update(tensors[1:])
        kept.reverse()
        read = {a for s in kept for a, k in zip(s.args, STEP_KINDS[s.op]) if k in "sDx" and isinstance(a, str)}
        called = b.called or tuple((s.op, tuple(s.at)) for s in b.steps)
        bodies.append(replace(b, output=(gm, out), outputs=(), steps=tuple(kept), called=called,
                              inputs=tuple((g, t) for g, t in b.inputs if t in read or t == out)))
    return replace(description, bodies=tuple(bodies))


def checked_uses(body, file) -> None:
    """Refuse a 1-byte GM input read by anything but a Cast, or a 1-byte output written by anything but one."""
    byte = _gm_bytes(body)
    ins = {t for g, t in body.inputs if g in byte}
    outs = {t for g, t in outputs_of(body) if g in byte}
    for s in body.steps:
        at = getattr(s, "at", (file, 0))
        for arg, kind in zip(s.args, STEP_KINDS[s.op]):
            if kind in "sD" and arg in ins and s.op != "Cast":
                raise KernelSourceError(at[0], at[1], f"{s.op} reading the {dict(body.tensors)[arg]} GM tensor {arg}",
                                        "a 1-byte GM tensor is read as numbers by a Cast (as a mask the device "
                                        "reads its packed bits, which are not modelled)")
            if kind in "dD" and arg in outs and s.op != "Cast":
                raise KernelSourceError(at[0], at[1], f"{s.op} writing the {dict(body.tensors)[arg]} GM tensor {arg}",
                                        "a 1-byte GM tensor is written as numbers by a Cast (a mask's packed bits "
                                        "are not modelled)")


def at_boundary(inputs, output, steps, dtype):
    """The program's ``(inputs, output, locals, steps)`` with its 1-byte GM tensors as ``dtype`` (float32,
    float16 or bfloat16) tensors, each Cast exactly to and from the 1-byte local the kernel names."""
    from ..program.form import Instr, Tensor

    names = {t.name for t in inputs} | {output.name} | {a for i in steps for a in i.args if isinstance(a, str)}
    made = []

    def local(base, dt):
        name, k = base, 0
        while name in names:
            k += 1
            name = f"{base}_{k}"
        names.add(name)
        made.append(Tensor(name, dt))
        return name

    def chain(dst, src, path):
        """Casts from ``src`` along ``path`` (dtypes, the last ``dst``'s) with the exact modes."""
        out, at = [], src
        for k, (dt, mode) in enumerate(path):
            to = dst if k == len(path) - 1 else local(f"{dst}_{dt}", dt)
            out.append(Instr("Cast", (to, at, mode)))
            at = to
        return out

    head, tail, new_ins = [], [], []
    for t in inputs:
        if t.dtype not in BYTE_DTYPES:
            new_ins.append(t)
            continue
        wide = local(f"{t.name}_gm", dtype)
        made.pop()          # an input, not a local
        new_ins.append(Tensor(wide, dtype))
        made.append(Tensor(t.name, t.dtype))
        path = {"float32": [("float16", "CAST_RINT")], "bfloat16": [("float32", "CAST_NONE"), ("float16", "CAST_RINT")],
                "float16": []}[dtype] + [(t.dtype, "CAST_RINT")]
        head += chain(t.name, wide, path)
    new_out = output
    if output.dtype in BYTE_DTYPES:
        wide = local(f"{output.name}_gm", dtype)
        made.pop()
        new_out = Tensor(wide, dtype)
        made.append(Tensor(output.name, output.dtype))
        path = [("float16", "CAST_NONE")] + {"float32": [("float32", "CAST_NONE")], "float16": [],
                                             "bfloat16": [("float32", "CAST_NONE"), ("bfloat16", "CAST_RINT")]}[dtype]
        tail = chain(wide, output.name, path)
    return tuple(new_ins), new_out, tuple(made), tuple(head) + tuple(steps) + tuple(tail)


class ByteBoundary:
    """A run's 1-byte GM tensors: ``inputs`` GM name -> dtype, ``output`` the output's dtype (or None)."""

    def __init__(self, inputs: dict, output):
        self.inputs, self.output = inputs, output

    def widened(self, name, arr, info) -> np.ndarray:
        """Input ``name`` (an array of its 1-byte dtype) as the launch's dtype ``info``, each value exact."""
        want = self.inputs[name]
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray, got {type(arr).__name__}")
        if arr.dtype != _NUMPY[want]:
            raise ValueError(f"{name}.dtype must be {want} (the kernel's GM tensor), got {arr.dtype}")
        return arr.astype(info.numpy)

    def narrowed(self, out) -> np.ndarray:
        """The launch's result ``out`` (of the launch's dtype) as the output's 1-byte dtype (exact: the
        program's last Cast wrote a value of that dtype)."""
        if self.output is None:
            return out
        return out.astype(np.float32).astype(_NUMPY[self.output])


def boundary(description) -> ByteBoundary | None:
    """The 1-byte GM tensors of ``description``'s bodies (each computing its :attr:`~.description.Body.output`),
    None where it has none."""
    ins, outs = {}, set()
    for b in description.bodies:
        dtypes = dict(b.tensors)
        ins.update({g: dtypes[t] for g, t in b.inputs if dtypes[t] in BYTE_DTYPES})
        outs.add(dtypes[b.output[1]] if dtypes[b.output[1]] in BYTE_DTYPES else None)
    if not ins and outs == {None}:
        return None
    if len(outs) > 1:
        raise KernelSourceError(description.entry, 0, f"output {description.bodies[0].output[0]} of the dtypes "
                                f"{sorted(map(str, outs))}", "a 1-byte output is of one dtype in every Compute")
    return ByteBoundary(ins, outs.pop())
