"""What a registered operator's host tiling hands to its launch: :class:`OpTiling`."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35

__all__ = ["OpTiling", "a2_walk_fields", "arch35_walk_fields", "kept_per_tiling"]


@dataclass(frozen=True)
class OpTiling:
    """What a registered operator's host tiling hands to its launch.

    Attributes
    ----------
    op : str
        The operator's registry name.
    architecture : str
        The kernel the tiling is for.
    data : numpy.void
        One record of the kernel's ``record_dtype``; its fields carry the C
        struct's names.
    block_dim : int
        Cores launched.
    tiling_key : int
        The kernel variant selector.
    workspace_size : int
        Bytes of workspace the launch needs.
    """

    op: str
    architecture: str
    data: np.void
    block_dim: int
    tiling_key: int
    workspace_size: int

    def __post_init__(self):
        # Frozen means the record too (as for Tiling): a private, read-only copy.
        from ..tiling.records import private_record

        object.__setattr__(self, "data", private_record(self.data))

    def __getitem__(self, name):
        return self.data[name]

    @property
    def fields(self) -> dict:
        """The struct's fields as Python numbers (lists for array fields), by their C names."""
        return {name: np.asarray(self.data[name]).tolist() for name in self.data.dtype.names}

    def as_dict(self) -> dict:
        """The struct's fields, plus blockDim and tilingKey."""
        out = self.fields
        out["blockDim"] = self.block_dim
        out["tilingKey"] = self.tiling_key
        return out

    def tobytes(self) -> bytes:
        """The struct's bytes."""
        return self.data.tobytes()


def kept_per_tiling(fn):
    """``fn(tiling)``, a pure function of an :class:`OpTiling` (its walk fields, read from the record on every
    call otherwise: a microsecond a field), kept on the tiling itself: its record is a private read-only copy,
    so the result never goes stale, and the host tiling is cached, so a warm call finds it. Not a dataclass
    field (equality, hashing, ``fields`` and ``as_dict`` stay the record's); anything but an OpTiling is
    passed through."""
    name = f"{fn.__module__}.{fn.__qualname__}"   # the memo's key: a string, so a tiling still pickles

    @functools.wraps(fn)
    def kept(tiling):
        if type(tiling) is not OpTiling:
            return fn(tiling)
        memo = tiling.__dict__.get("_kept")
        if memo is None:
            memo = {}
            object.__setattr__(tiling, "_kept", memo)
        if name not in memo:
            memo[name] = fn(tiling)
        return memo[name]
    return kept


@kept_per_tiling
def a2_walk_fields(tiling: OpTiling):
    """The A2 record's walk fields (``spec.a2.TilingFields``, Python ints), kept per tiling."""
    return spec_a2.TilingFields(*(int(tiling.data[n]) for n in spec_a2.FIELDS))


@kept_per_tiling
def arch35_walk_fields(tiling: OpTiling):
    """The 950 record's base fields (``spec.arch35.TilingFields``, Python ints), kept per tiling."""
    return spec_arch35.TilingFields(*(int(tiling.data[n]) for n in spec_arch35.FIELDS))
