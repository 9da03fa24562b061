"""Tilings: the host computation, the struct records, their binaries, and their validation.

- :mod:`.records`: the two struct layouts (A2, 950) and :class:`Tiling`;
- :mod:`.host`: :func:`compute_tiling`;
- :mod:`.io`: struct binaries and the loose forms a tiling arrives in;
- :mod:`.validate`, :mod:`.coverage`, :mod:`.balance`: is a tiling correct,
  and how well does it balance (analytic, from the core ranges);
- :mod:`.checked`: the instrumented walk that counts every element write;
- :mod:`.sweep`: the host tiling checked over millions of sizes and platforms.
"""
from .host import check_numel, compute_tiling, ub_buffer_units
from .io import TILING_NBYTES, as_tiling_record, read_tiling_bin, record_from_fields, write_tiling_bin
from .records import ARCH35_TILING_DTYPE, ARCH35_TILING_FIELDS, TILING_DTYPE, TILING_FIELDS, Tiling, tiling_fields

__all__ = [
    "ARCH35_TILING_DTYPE", "ARCH35_TILING_FIELDS", "TILING_DTYPE", "TILING_FIELDS", "TILING_NBYTES", "Tiling",
    "as_tiling_record", "check_numel", "compute_tiling", "read_tiling_bin", "record_from_fields",
    "tiling_fields", "ub_buffer_units", "write_tiling_bin",
]
