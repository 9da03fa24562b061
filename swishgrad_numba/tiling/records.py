"""The :class:`Tiling` a SwishGrad launch receives, the record layouts it is read by, and record helpers.

SwishGrad's two structs are defined here (re-exported by :mod:`swishgrad_numba.ops.swish_grad.host`, its
host; the tiling layer reads them, so they sit below the operators): the A2's eight
``uint64`` then the float32 ``sconf`` (72 bytes), the 950's ``EleBaseTilingData`` then the float32
``scale`` (88 bytes). Both are C layouts with natural alignment: ``record.tobytes()`` is the struct as
the device sees it. The struct's beta field keeps its C name (``sconf`` / ``scale``); in Python the
value is :attr:`Tiling.beta`. :func:`tiling_fields` turns a record into the one normalised form every
consumer reads: a ``TilingFields`` named tuple of Python ints.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..platform import ARCH_950, ARCH_A2
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35

__all__ = ["private_record", "checked_record", "UB_SIZED_FIELDS", "RecordLayout", "Tiling", "layouts",
           "layout_of", "tiling_fields", "TILING_FIELDS", "TILING_DTYPE", "ARCH35_TILING_FIELDS",
           "ARCH35_TILING_DTYPE", "LAYOUTS"]


@dataclass(frozen=True)
class RecordLayout:
    """One tiling struct: its record dtype, integer fields and beta field."""

    architecture: str
    dtype: np.dtype
    int_fields: tuple
    beta_field: str
    fields_type: type

    @property
    def nbytes(self) -> int:
        return self.dtype.itemsize

    def int_range(self, name: str) -> tuple:
        """``(lowest, highest)`` value the C type of integer field ``name`` holds."""
        info = np.iinfo(self.dtype.fields[name][0])
        return int(info.min), int(info.max)

    def int_range_text(self, name: str) -> str:
        """The range of integer field ``name``, e.g. ``"[0, 2**64) (a uint64 field)"``."""
        dt = self.dtype.fields[name][0]
        bits = 8 * dt.itemsize
        low = "0" if dt.kind == "u" else f"-2**{bits - 1}"
        high = f"2**{bits}" if dt.kind == "u" else f"2**{bits - 1}"
        article = "an" if dt.name[0] in "aeiou" else "a"
        return f"[{low}, {high}) ({article} {dt.name} field)"


def layouts() -> dict:
    """SwishGrad's record layouts by architecture (:data:`LAYOUTS`)."""
    return LAYOUTS


def layout_of(record) -> RecordLayout:
    """The layout of a record (or record array) by its dtype; TypeError for any other dtype."""
    for layout in layouts().values():
        if record.dtype == layout.dtype:
            return layout
    raise TypeError(f"tiling must have dtype TILING_DTYPE (A2) or ARCH35_TILING_DTYPE (950), got {record.dtype}")


def tiling_fields(record):
    """The integer fields of a record as its architecture's ``TilingFields`` of Python ints."""
    layout = layout_of(record)
    return layout.fields_type(*(int(record[name]) for name in layout.int_fields))


def private_record(data):
    """A private, read-only copy of a struct record (a frozen tiling's ``data``).

    A void scalar is a view of its array's memory, and ``np.array(void)``
    (even with ``copy=True``) may be another view: copy by assignment."""
    private = np.zeros(np.shape(data), dtype=data.dtype)
    private[...] = data
    private.flags.writeable = False
    return private[()] if private.ndim == 0 else private


@dataclass(frozen=True)
class Tiling:
    """What the host tiling hands to a launch.

    Attributes
    ----------
    data : numpy.void
        One record of ``TILING_DTYPE`` (A2) or ``ARCH35_TILING_DTYPE`` (950): a
        private copy of the record given, read-only (so is every view of it).
    block_dim : int
        Number of cores launched.
    tiling_key : int
        Kernel variant selector (A2: 0; 950: 3, 5 or 7 by dtype).
    workspace_size : int
        Bytes of workspace the launch needs.
    """

    data: np.void
    block_dim: int
    tiling_key: int = 0
    workspace_size: int = 0

    def __post_init__(self):
        object.__setattr__(self, "data", private_record(self.data))

    def __reduce__(self):
        # Pickle and copy through the constructor, so a copy's record is private and read-only too.
        return type(self), (self.data, self.block_dim, self.tiling_key, self.workspace_size)

    def __getitem__(self, field):
        return self.data[field]

    @property
    def layout(self) -> RecordLayout:
        return layout_of(self.data)

    @property
    def architecture(self) -> str:
        """``"a2"`` or ``"arch35"``: the kernel this tiling is for."""
        return self.layout.architecture

    @property
    def fields(self):
        """The integer fields as a ``TilingFields`` named tuple of Python ints."""
        return tiling_fields(self.data)

    @property
    def beta(self) -> np.float32:
        """Beta as stored in the struct (``sconf`` / ``scale``)."""
        return np.float32(self.data[self.layout.beta_field])

    def as_dict(self) -> dict:
        """The struct's fields as Python numbers, plus blockDim and tilingKey."""
        out = {name: self.data[name].item() for name in self.data.dtype.names}
        out["blockDim"] = self.block_dim
        out["tilingKey"] = self.tiling_key
        return out

    def tobytes(self) -> bytes:
        """The struct's bytes (72 for A2, 88 for the 950)."""
        return self.data.tobytes()


#: The tiling fields a host sizes from the unified buffer alone (the A2's
#: ``tileDataNum``, the 950's ``ubFormer`` and ``elemNum``): one too large for
#: its C type is ``platform.ub_size``'s fault, not the tensor's.
UB_SIZED_FIELDS = ("tileDataNum", "ubFormer", "elemNum")


def checked_record(dtype: np.dtype, values: dict, argname: str = "numel",
                   ub_argname: str = "platform.ub_size") -> np.void:
    """One record of ``dtype`` with ``values`` by field name, every integer
    checked to fit its C type first (a ValueError blaming ``ub_argname`` for
    a field of :data:`UB_SIZED_FIELDS`, else ``argname``, whose size made it
    too large); the other fields stay zero."""
    record = np.zeros((), dtype=dtype)
    for name, value in values.items():
        ftype = dtype.fields[name][0]
        if ftype.kind in "iu":
            info = np.iinfo(ftype)
            if not info.min <= value <= info.max:
                cause = ub_argname if name in UB_SIZED_FIELDS else argname
                raise ValueError(f"{cause} is too large: the tiling field {name} = {value} does not fit its C "
                                 f"type ({ftype.name})")
        record[name] = value
    return record[()]

# ---------------------------------------------------------------- SwishGrad's structs

#: Field names of the A2 ``SwishGradTilingData``, in the C struct's order.
TILING_FIELDS = spec_a2.FIELDS + ("sconf",)

#: The A2 struct: eight uint64, one float32, 4 bytes of tail padding (72 bytes).
TILING_DTYPE = np.dtype([(name, "<u8") for name in spec_a2.FIELDS] + [("sconf", "<f4")], align=True)

#: Field names of the 950 struct, in the C struct's order.
ARCH35_TILING_FIELDS = spec_arch35.FIELDS + ("scale",)

#: The 950 struct ``SwishGradTilingData { EleBaseTilingData baseTiling; float scale; }``: the template's
#: 80 bytes, the float32 ``scale`` and 4 bytes of tail padding (88 bytes).
_BASE = spec_arch35.ELE_BASE_TILING_DTYPE
ARCH35_TILING_DTYPE = np.dtype([(n, _BASE.fields[n][0]) for n in spec_arch35.FIELDS] + [("scale", "<f4")], align=True)

assert TILING_DTYPE.itemsize == 72 and ARCH35_TILING_DTYPE.itemsize == 88

#: The layouts by architecture: what :class:`~swishgrad_numba.tiling.records.Tiling` reads its record by.
LAYOUTS = {
    ARCH_A2: RecordLayout(ARCH_A2, TILING_DTYPE, spec_a2.FIELDS, "sconf", spec_a2.TilingFields),
    ARCH_950: RecordLayout(ARCH_950, ARCH35_TILING_DTYPE, spec_arch35.FIELDS, "scale", spec_arch35.TilingFields),
}
