"""What a registered operator's host tiling hands to its launch: :class:`OpTiling`."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["OpTiling"]


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
