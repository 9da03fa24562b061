"""Branch-free integer helpers for the model's arithmetic, and the core class both kernels' walks
are described by (see :mod:`swishgrad_numba.spec`).

Each works on Python ints, NumPy integer arrays (with boolean conditions)
and inside jitted code.
"""
from __future__ import annotations

from typing import NamedTuple

from numba.extending import register_jitable

__all__ = ["INIT_BUFFER_ALIGN", "CoreClass", "ceil_div", "maximum", "minimum", "pad_to", "select"]

#: ``TPipe::InitBuffer`` rounds every buffer up to this many bytes (both kernels).
INIT_BUFFER_ALIGN = 32


@register_jitable(inline="always")
def select(cond, a, b):
    """``a`` where ``cond`` else ``b``; ``cond`` is a bool or a bool array."""
    return b + (a - b) * cond


@register_jitable(inline="always")
def minimum(a, b):
    """The smaller of ``a`` and ``b``."""
    return select(a < b, a, b)


@register_jitable(inline="always")
def maximum(a, b):
    """The larger of ``a`` and ``b``."""
    return select(a > b, a, b)


@register_jitable(inline="always")
def ceil_div(a, b):
    """``ceil(a / b)`` for ``a >= 0``, ``b > 0``, in integers."""
    return -(-a // b)


@register_jitable(inline="always")
def pad_to(value, granule):
    """``value`` rounded up to a multiple of ``granule``."""
    return ceil_div(value, granule) * granule


class CoreClass(NamedTuple):
    """Cores ``first .. first + cores - 1`` that share one walk shape, in
    either kernel: core ``first + k`` starts at element ``base + count * k``
    and makes ``passes - 1`` full passes of ``pass_len`` elements (A2 tiles,
    950 UB loops), then one of ``tail``."""

    first: int
    cores: int
    base: int
    count: int
    passes: int
    pass_len: int
    tail: int

    @property
    def length(self) -> int:
        """Elements one core transfers (its passes abut); Python ints."""
        return 0 if self.passes <= 0 else (self.passes - 1) * self.pass_len + self.tail

    def start(self, core: int) -> int:
        """The first element of ``core`` (one of the class's)."""
        return self.base + self.count * (core - self.first)
