"""A read kernel's run arguments checked (:meth:`.operator.ReadOperator.run`): the inputs by the kernel's
``GM_ADDR`` names, the attributes by its struct's or op definition's names, the launch's dtype."""
from __future__ import annotations

import numpy as np

from ..dtypes import dtype_info
from . import byte_tensors

__all__ = ["checked"]


def checked(op, kw: dict) -> tuple:
    """``(kw, arrays, info, byte, own_shape)``: ``kw`` with the op definition's attribute names translated,
    the GM inputs given (1-byte ones widened to the launch's dtype ``info``, :mod:`.byte_tensors`' boundary
    ``byte``), and the GM scalar inputs (``own_shape``: read by GetValue, of any shape). Raises a TypeError
    or ValueError naming the argument and the rule."""
    gm, read = op.description.gm_params, op.description.inputs_read
    op_attrs = {a[0] for a in op.definition.attrs} if op.definition is not None else set()
    for name in kw:
        if name not in gm and name not in op.attributes and name not in op_attrs:
            raise TypeError(f"{op.name}() got an unknown argument {name!r}: its inputs are {list(gm)}, "
                            f"its attributes {list(op.attributes) + list(op.attribute_names)}")
    kw = op._translated(kw)
    arrays = {n: kw[n] for n in gm if n in kw}
    for name in read:
        if name not in arrays:
            raise TypeError(f"{op.name}() missing input {name!r} (the kernel reads {list(read)})")
    own_shape = set(op._gm_scalar_inputs())                  # read by GetValue: of any shape (the
    info = None                                              # walk checks a tiled one's size)
    if "bytes" not in op._compiled:                         # 1-byte GM tensors, widened at the boundary
        op._compiled["bytes"] = byte_tensors.boundary(op.description)
    byte = op._compiled["bytes"]
    byte_ins = {} if byte is None else byte.inputs
    for name, arr in ((n, a) for n, a in arrays.items() if n not in own_shape and n not in byte_ins):
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray, got {type(arr).__name__}")
        row = dtype_info(arr.dtype, argname=f"{name}.dtype")
        if info is not None and row is not info:
            raise ValueError(f"{name}.dtype must be {info.name} as {read[0]}'s, got {row.name}")
        if arr.shape != arrays[read[0]].shape:
            raise ValueError(f"{name} must have {read[0]}'s shape {arrays[read[0]].shape}, got {arr.shape}")
        info = row
    if info is None and len(op.description.dtypes) == 1:        # 1-byte inputs only: the one Compute's dtype
        info = dtype_info(op.description.dtypes[0])
    if info is None:
        raise TypeError(f"{op.name}() reads no float input and computes {list(op.description.dtypes)}: "
                        "the launch's dtype is not known")
    for name in (n for n in byte_ins if n in arrays):
        if np.shape(arrays[name]) != arrays[read[0]].shape:
            raise ValueError(f"{name} must have {read[0]}'s shape {arrays[read[0]].shape}, got "
                             f"{np.shape(arrays[name])}")
        arrays[name] = byte.widened(name, arrays[name], info)
    allowed = op.definition.dtypes() if op.definition is not None else ()
    if allowed and info.name not in allowed:
        raise ValueError(f"{read[0]}.dtype must be one of {list(allowed)} (op {op.definition.name}'s "
                         f"definition in op_host), got {info.name}")
    return kw, arrays, info, byte, own_shape
