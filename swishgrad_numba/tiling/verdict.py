"""The verdict of :func:`~swishgrad_numba.tiling.validate_tiling`, over arrays of tilings (for the sweep).

One function per kernel. Each takes the record's fields as a
``TilingFields`` of arrays (or a mapping of names to arrays), reads them
by name, and evaluates on int64 arrays the rules of :mod:`.rules` (each
written once, for ints and arrays) and the spec/ package's arithmetic (core
classes, buffer bytes, padding). Both rely on the abutting of a core's passes:
when every launched class is consistent (``(passes - 1) * pass length +
tail`` equals the core's length), the cores of a class abut, so the
coverage follows from where the launch ends, in O(1) per tiling. Exact for
fields, block dims and sizes below 2**40; products that could overflow are
compared by division or saturated. Beta and the tiling key are not
checked (the sweep runs the host's fields only).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from . import rules
from .buffers import check_plan
from .launch import negative_masks

__all__ = ["vectorized_verdict", "vectorized_verdict_arch35"]

_LIMIT = 1 << 40
_RANGE_CHECKED = ("block_dim", "numel")


def _arrays(fields_type, fields, others: dict, signed: bool = False) -> tuple:
    """The fields (by name) and the other arguments as int64 arrays of one 1-d shape; the fields, block
    dims and sizes range-checked (values in ``[0, 2**40)``, the fields in ``(-2**40, 2**40)`` when signed)."""
    if isinstance(fields, Mapping):
        values = [fields[name] for name in fields_type._fields]
    else:
        values = [getattr(fields, name) for name in fields_type._fields]
    names = list(fields_type._fields) + list(others)
    arrays = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, dtype=np.int64))
                                   for v in values + list(others.values())))
    for name, arr in zip(names, arrays):
        if name not in _RANGE_CHECKED and name not in fields_type._fields:
            continue
        lowest, text = (1 - _LIMIT, "(-2**40, 2**40)") if signed and name in fields_type._fields else (0, "[0, 2**40)")
        if arr.size and (arr.min() < lowest or arr.max() >= _LIMIT):
            raise ValueError(f"{name} must be in {text} for the vectorised check")
    k = len(fields_type._fields)
    return fields_type(*arrays[:k]), arrays[k:]


def _passes_match(passes, pass_len, tail, length):
    """Where a class's walk passes :mod:`.rules`' loop rules: a pass, its tail in range, its length."""
    return ((passes >= 1) & ~rules.tail_outside(tail, pass_len)
            & ~rules.walk_length_differs(passes, pass_len, tail, length))


def _launch_end(classes):
    """Where the launch's cores end when each class is consistent (``cores * count`` saturated at 2**60)."""
    limit = 1 << 60
    return sum(np.where(c.count > limit // np.maximum(c.cores, 1), limit, c.cores * np.minimum(c.count, limit))
               for c in classes)


def vectorized_verdict(fields, block_dim, numel, itemsize, ub_size, core_num, block_size, buffers=None):
    """The checks of :func:`validate_tiling` over arrays of Atlas A2 tilings.

    ``fields`` is an A2 ``TilingFields`` of arrays (or a mapping of the
    field names); the other arguments broadcast with them. ``buffers`` is
    one unified-buffer plan for every row; by default SwishGrad's for each
    row's itemsize.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``error`` (bool: :func:`validate_tiling` would report an error) and
        ``padding`` (bool: an overrun into the padding, a warning).
    """
    f, (bd, n, b, ub, cores, block) = _arrays(spec_a2.TilingFields, fields, {
        "block_dim": block_dim, "numel": numel, "itemsize": itemsize, "ub_size": ub_size, "core_num": core_num,
        "block_size": block_size})
    if buffers is None:
        plan = spec_a2.buffer_plan(b)
    else:
        plan = check_plan(buffers)
        if sum(count * nbytes for count, nbytes in plan) >= 1 << 20:
            raise ValueError("buffers must take fewer than 2**20 bytes per element for the vectorised check")
    T = f.tileDataNum
    ok = ~rules.block_dim_outside(bd, cores) & ~rules.ub_overflows(spec_a2.plan_bytes(T, plan), ub)
    # the classes' starts are not used (they may wrap here): the launch's end is
    classes = spec_a2.core_classes(f, bd)
    for c in classes:
        idle = rules.a2_idle(c.passes, c.count)
        busy = (_passes_match(c.passes, T, c.tail, c.count) & ~rules.a2_tail_unaligned(c.tail, b, block)
                & ~rules.a2_full_tiles_unaligned(c.passes, T, b, block))
        ok &= (c.cores == 0) | idle | busy
    end = _launch_end(classes)
    ok &= (end >= n) & (end <= spec_a2.padded_numel(n, b, block))
    return ~ok, ok & (end > n)


def vectorized_verdict_arch35(fields, block_dim, numel, itemsize, ub_size, core_num):
    """The checks of :func:`validate_tiling` over arrays of Ascend 950 tilings.

    ``fields`` is a 950 ``TilingFields`` of arrays (or a mapping of the
    field names; values in ``(-2**40, 2**40)``); the other arguments
    broadcast with them. With consistent loops the former blocks abut and
    the tail block ends at ``dim0``, so the coverage is exact exactly when
    ``dim0 == numel``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``error`` and ``warning`` (bool: :func:`validate_tiling` would
        report an error / a warning).
    """
    f, (bd, n, b, ub, cores) = _arrays(spec_arch35.TilingFields, fields, {
        "block_dim": block_dim, "numel": numel, "itemsize": itemsize, "ub_size": ub_size, "core_num": core_num},
        signed=True)
    U = f.ubFormer
    former, tail, extra = classes = spec_arch35.block_classes(f, bd)
    # a negative field a launched block reads is an error; one no block reads, a warning
    negative = unread = np.zeros(bd.shape, dtype=bool)
    for read, not_read in negative_masks(f, classes).values():
        negative, unread = negative | read, unread | not_read
    error = rules.block_dim_outside(bd, cores) | rules.block_num_differs(bd, f.blockNum) | negative
    error |= rules.ub_overflows(spec_arch35.ub_bytes(U, b), ub) | rules.ub_former_off_block(U, b)
    # the tail block's length, dim0 - (blockNum - 1) * blockFormer (-1 where the product passes dim0)
    small = (f.blockFormer <= 0) | (f.blockNum - 1 <= np.maximum(f.dim0, 0) // np.maximum(f.blockFormer, 1))
    tail_len = np.where(small, f.dim0 - np.where(small, f.blockNum - 1, 0) * f.blockFormer, -1)
    error |= ((former.cores > 0) | (extra.cores > 0)) & ~_passes_match(f.ubLoopOfFormerBlock, U,
                                                                       f.ubTailOfFormerBlock, f.blockFormer)
    error |= (tail.cores > 0) & ~_passes_match(f.ubLoopOfTailBlock, U, f.ubTailOfTailBlock, tail_len)
    error |= rules.dim0_differs(f.dim0, n)    # everything else consistent: the walk ends at dim0
    warning = (unread | rules.core_num_outside(f.coreNum, f.blockNum, cores) | rules.dim0_differs(f.dim0, n)
               | rules.elem_num_differs(f.elemNum, U) | rules.sche_mode_unknown(f.scheMode))
    warning |= ~negative & ((~rules.ub_former_off_block(U, b) & rules.ub_former_off_register(U, b))
                            | rules.block_former_unaligned(f.blockFormer))
    return error, warning
