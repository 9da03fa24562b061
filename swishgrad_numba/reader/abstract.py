"""The values the reader's interpreter computes with, besides compile-time numbers and types."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import KernelSourceError

__all__ = ["Unknown", "Symbolic", "TilingField", "Tensor", "Mode", "Return_", "refuse"]


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
