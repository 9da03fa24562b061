"""A2 unified-buffer plans: SwishGrad's, another operator's, as text and in bytes.

A plan is a tuple of ``(count, bytes_per_element)`` pairs, each buffer
holding ``tileDataNum`` elements and rounded up to
:data:`spec.a2.INIT_BUFFER_ALIGN` (32) bytes by ``TPipe::InitBuffer``. The
plan and its arithmetic are the spec/ package's (:func:`spec.a2.buffer_plan`,
:func:`spec.a2.plan_bytes`); this module checks arguments and reads and
writes plans as text (``2x4,2x4,2x4,1x4``, the CLI's ``--buffers``).
"""
from __future__ import annotations

import numbers

from ..dtypes import dtype_info
from ..spec import a2 as spec_a2

__all__ = ["buffer_plan_bytes", "check_plan", "format_plan", "parse_buffer_plan", "swishgrad_buffer_plan"]


def swishgrad_buffer_plan(dtype) -> tuple:
    """SwishGrad's A2 unified-buffer plan for a dtype (:func:`spec.a2.buffer_plan`).

    Parameters
    ----------
    dtype : dtype-like
        float32, float16 or bfloat16.

    Returns
    -------
    tuple of (int, int)
        ``(count, bytes_per_element)`` pairs: three queues of two buffers of
        the dtype, then one (float32) or three (16-bit) float32 buffers.
    """
    return spec_a2.buffer_plan(dtype_info(dtype, argname="dtype").itemsize)


def check_plan(buffers, argname: str = "buffers") -> tuple:
    """``buffers`` as a tuple of (count, bytes_per_element) int pairs, or a clear error."""
    if isinstance(buffers, (str, bytes)) or not hasattr(buffers, "__iter__"):
        raise TypeError(f"{argname} must be a sequence of (count, bytes_per_element) pairs, "
                        f"got {type(buffers).__name__}")
    plan = []
    for item in buffers:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
            raise TypeError(f"{argname} must hold (count, bytes_per_element) pairs, got {item!r}")
        for value in item:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{argname} must hold pairs of integers, got {item!r}")
        count, nbytes = int(item[0]), int(item[1])
        if count < 1 or nbytes < 1:
            raise ValueError(f"{argname}: count and bytes_per_element must be >= 1, got ({count}, {nbytes})")
        plan.append((count, nbytes))
    if not plan:
        raise ValueError(f"{argname} must name at least one buffer")
    return tuple(plan)


def buffer_plan_bytes(buffers, tile_data_num: int) -> int:
    """Unified-buffer bytes a buffer plan takes for tiles of ``tile_data_num`` elements.

    Each buffer holds ``tile_data_num * bytes_per_element`` bytes, rounded up
    to 32 bytes as ``TPipe::InitBuffer`` does (:func:`spec.a2.plan_bytes`).

    Parameters
    ----------
    buffers : sequence of (int, int)
        ``(count, bytes_per_element)`` pairs.
    tile_data_num : int
        Elements per tile (>= 0).

    Returns
    -------
    int
    """
    plan = check_plan(buffers)
    if isinstance(tile_data_num, bool) or not isinstance(tile_data_num, numbers.Integral):
        raise TypeError(f"tile_data_num must be an integer, got {type(tile_data_num).__name__}")
    if tile_data_num < 0:
        raise ValueError(f"tile_data_num must be >= 0, got {tile_data_num}")
    return spec_a2.plan_bytes(int(tile_data_num), plan)


def parse_buffer_plan(text: str) -> tuple:
    """Read a plan written ``COUNTxBYTES,...``, e.g. ``"2x4,2x4,2x4,1x4"``.

    Raises
    ------
    ValueError
        Naming the part that is not ``COUNTxBYTES`` with two positive integers.
    """
    if not isinstance(text, str):
        raise TypeError(f"the buffer plan must be a string, got {type(text).__name__}")
    plan = []
    for part in text.split(","):
        count, sep, nbytes = part.strip().lower().partition("x")
        if not (sep and (count + nbytes).isascii() and count.isdecimal() and nbytes.isdecimal()):
            raise ValueError(f"buffer plan part {part.strip()!r} is not COUNTxBYTES (e.g. 2x4)")
        plan.append((int(count), int(nbytes)))
    return check_plan(plan, "the buffer plan")


def format_plan(plan) -> str:
    """A plan as ``COUNTxBYTES,...`` text."""
    return ",".join(f"{count}x{nbytes}" for count, nbytes in plan)
