"""The values the reader's interpreter computes with, besides compile-time numbers and types."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import KernelSourceError

__all__ = ["Unknown", "Symbolic", "TilingField", "Tensor", "Mode", "Return_", "refuse", "temporary",
           "scalar_call_operands"]


@dataclass(frozen=True)
class Unknown:
    why: str


@dataclass(frozen=True)
class Symbolic:
    """A value that depends on a non-type template argument of the entry (``text`` as written)."""
    text: str


@dataclass(frozen=True)
class TilingField:
    """A non-float field of the tiling struct: fixed for a launch, so a branch on its comparison
    with a constant chooses a variant, as a template argument does (``haveTanhx == 1``)."""
    name: str


@dataclass(frozen=True)
class Tensor:
    """A local tensor (A2 buffer, MicroAPI register, DAG node): ``key`` its storage, ``dtype``."""
    key: str
    dtype: str


@dataclass(frozen=True)
class Mode:
    """An ``AscendC::RoundMode`` value; ``kind`` "CMPMODE" or "SELMODE" for those enums' values (issue 43)."""
    name: str
    kind: str = "RoundMode"


class Return_(Exception):
    def __init__(self, value):
        self.value = value


def refuse(node, construct, detail=""):
    at = getattr(node, "at", ("", 0))
    raise KernelSourceError(at[0], at[1], construct, detail)


def temporary(machine, key, dtype) -> Tensor:
    """A local the reader adds where it expands one call into several steps (``<call>_tmp<line>``)."""
    machine.names.setdefault(key, key)
    machine.dtypes.setdefault(key, dtype)
    return Tensor(key, dtype)


def scalar_call_operands(node, name, args) -> tuple:
    """``(dst, src, scalarValue, count)`` of a level-2 vector-scalar call asc-devkit defines for half and
    float only (``SupportType<T, half, float>``: ``LeakyRelu``, ``Divs``), else a refusal naming ``name``."""
    if len(args) != 4:
        refuse(node, f"{name} with {len(args)} arguments", "the reader knows (dst, src, scalarValue, count); "
               "the level-0 forms (mask, repeat parameters) are not read")
    dst, src, scalar, count = args
    if not isinstance(dst, Tensor) or not isinstance(src, Tensor):
        refuse(node, name, "dst and src must be local tensors")
    if dst.dtype != src.dtype or dst.dtype not in ("float32", "float16"):
        refuse(node, f"{name} on {src.dtype} into {dst.dtype}", f"asc-devkit's {name} takes half or float "
               "tensors of one type (SupportType<T, half, float>)")
    return dst, src, scalar, count
