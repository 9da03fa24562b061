"""What tests/test_described.py needs for the row operators (the descriptions' "rows" kind, issue 40: SwiGlu,
SwiGluGrad, RmsNorm): each tensor's shape from the description, the outputs (several for RmsNorm), phase one's
argument order, the output arrays."""
import numpy as np

from aclnn_helpers import BF16

NP = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16,
      "float64": np.dtype(np.float64)}


def shapes(desc, shape) -> dict:
    """Each input's shape by name and the output's (``"out"``) for an axis input of ``shape``: all ``shape`` for an
    element-wise operator; a row operator's (the "rows" kind, issue 40) at its axis's default."""
    if desc.rows is None:
        return {**{i.name: shape for i in desc.inputs}, "out": shape}
    if desc.rows.axis_from:   # the row is x's last axis (RmsNorm's gamma: x's last axis)
        return desc.rows.shapes(tuple(shape), len(shape) - 1)
    axis = next(a for a in desc.attributes if a.kind == "int")
    return desc.rows.shapes(tuple(shape), axis.default % len(shape))


def outputs(desc) -> tuple:
    """``(functional name, aclnn name)`` of each output: a row operator's several (RmsNorm's y, rstd), else one."""
    return tuple(desc.rows.outputs) if desc.rows is not None and desc.rows.outputs else (("out", desc.out),)


def acl_order(desc) -> tuple:
    """Phase one's arguments by aclnn name, the outputs last."""
    if desc.rows is None:
        return desc.acl_arguments
    return tuple(desc.acl_order or [i.acl for i in desc.inputs] + [a.acl for a in desc.attributes]) + tuple(
        acl for _, acl in outputs(desc))


def zeros(desc, arrays, dtype):
    """The output of these inputs, of ``dtype``; a row operator's several outputs as a tuple, each of its shape and
    of ``dtype`` or the dtype its description fixes (RmsNorm's float32 rstd)."""
    if len(outputs(desc)) == 1:
        return np.zeros(out_of(desc, arrays), dtype)
    x = next(a for i, a in zip(desc.inputs, arrays) if i.role == "x")
    fixed = desc.rows.dtypes_with(x.dtype.name) if desc.rows.dtypes_with is not None else {}
    by_name = shapes(desc, x.shape)
    return tuple(np.zeros(by_name[n], dtype if fixed.get(n, (x.dtype.name,))[0] == x.dtype.name else
                          NP[fixed[n][0]]) for n, _ in outputs(desc))


def each(got) -> tuple:
    return got if isinstance(got, tuple) else (got,)


def out_of(desc, arrays):
    """The output's shape for these inputs (a row operator's from its axis input's shape)."""
    if desc.rows is None:
        return arrays[0].shape
    return shapes(desc, next(a for i, a in zip(desc.inputs, arrays) if i.role == "x").shape)[outputs(desc)[0][0]]
