"""The rules a tiling's fields must follow, one set per kernel (everything but the coverage).

Each rule is written once, as a predicate that holds where the rule is
broken, for Python ints and NumPy int64 arrays alike (the way
:mod:`swishgrad_numba.spec` works): :func:`structure` and :func:`remarks`
turn them into findings for one tiling, :mod:`.verdict` evaluates them over
arrays of tilings for the sweep.

Rules are checked only for what the launch reads: the fields of a core
class with no launched core do not matter. :func:`structure` gives the
findings about the launch's shape and the unified-buffer bytes it takes;
:func:`remarks` those about beta and the tiling key.
"""
from __future__ import annotations

import math

from ..platform import ARCH_950
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from ..spec.arith import maximum, pad_to, select
from .buffers import format_plan
from .findings import finding
from .launch import negative_fields

__all__ = [
    "remarks", "structure",
    "block_dim_outside", "ub_overflows", "tail_outside", "walk_length_differs", "a2_full_tiles_unaligned",
    "a2_tail_unaligned", "a2_idle", "block_num_differs", "dim0_differs", "elem_num_differs", "sche_mode_unknown",
    "core_num_outside", "ub_former_off_block", "ub_former_off_register",
    "block_former_unaligned",
]


# ----------------------------------------------------------------------------
# The rules: each true where it is broken; Python ints or int64 arrays

def block_dim_outside(block_dim, core_num):
    """BLOCK_DIM_RANGE: the cores launched are not in ``[1, core_num]``."""
    return (block_dim < 1) | (block_dim > core_num)


def ub_overflows(ub_use, ub_size):
    """UB_OVERFLOW: the kernel's padded buffers take more than the unified buffer."""
    return ub_use > ub_size


def tail_outside(tail, pass_len):
    """TAIL_RANGE: a walk's last pass is not in ``[1, pass_len]`` (A2 tiles, 950 UB loops)."""
    return (tail < 1) | (tail > pass_len)


def walk_length_differs(passes, pass_len, tail, length):
    """TILE_COUNT_MISMATCH: ``(passes - 1) * pass_len + tail != length``, for ``passes >= 1``
    and ``tail >= 0``; exact for arrays too (no product larger than ``length`` is formed)."""
    fits = (pass_len == 0) | (passes - 1 <= maximum(length, 0) // maximum(pass_len, 1))
    full = select(fits, maximum(passes - 1, 0), 0) * pass_len
    return (fits == 0) | (full + tail != length)


def a2_full_tiles_unaligned(passes, tile_data_num, itemsize, block_size):
    """TRANSFER_NOT_BLOCK_ALIGNED (A2): a walk of two tiles or more moves full tiles that are not whole blocks."""
    return (passes >= 2) & ((tile_data_num * itemsize) % block_size != 0)


def a2_tail_unaligned(tail, itemsize, block_size):
    """TRANSFER_NOT_BLOCK_ALIGNED (A2): the last tile's transfer is not whole blocks."""
    return (tail * itemsize) % block_size != 0


def a2_idle(passes, count):
    """IDLE_CORE (A2, a warning): cores that run no tile and own no element."""
    return (passes == 0) & (count == 0)


def block_num_differs(block_dim, block_num):
    """BLOCK_NUM_MISMATCH (950): the cores launched are not ``blockNum``."""
    return block_dim != block_num


def dim0_differs(dim0, numel):
    """DIM0_MISMATCH (950): ``dim0`` is not the tensor's element count."""
    return dim0 != numel


def elem_num_differs(elem_num, ub_former):
    """ELEM_NUM_MISMATCH (950): ``elemNum`` is not ``ubFormer``."""
    return elem_num != ub_former


def sche_mode_unknown(sche_mode):
    """SCHE_MODE_UNKNOWN (950): not the one schedule mode ElewiseBaseTiling sets."""
    return sche_mode != spec_arch35.SCHE_MODE


def core_num_outside(core_num_field, block_num, core_num):
    """CORE_NUM_RANGE (950): ``coreNum`` is not in ``[blockNum, core_num]``."""
    return (core_num_field < block_num) | (core_num_field > core_num)


def ub_former_off_block(ub_former, itemsize):
    """UB_FORMER_NOT_BLOCK_ALIGNED (950): a UB slot is not whole 32-byte blocks."""
    return (ub_former * itemsize) % spec_arch35.INIT_BUFFER_ALIGN != 0


def ub_former_off_register(ub_former, itemsize):
    """UB_FORMER_NOT_REGISTER_ALIGNED (950): ``ubFormer`` is not whole 256-byte vector registers."""
    return ub_former % (spec_arch35.UB_ALIGN_BYTES // itemsize) != 0


def block_former_unaligned(block_former):
    """BLOCK_FORMER_NOT_ALIGNED (950): ``blockFormer`` is not a multiple of 512 elements."""
    return block_former % spec_arch35.BLOCK_ALIGN != 0


# ----------------------------------------------------------------------------
# The findings of one tiling

def structure(launch, classes, numel: int, plan, whole_blocks: bool = True) -> tuple:
    """``(findings, ub_bytes)``: the rules of the launch's kernel, before the coverage.

    ``whole_blocks`` False: the A2 kernel moves exact byte counts
    (``DataCopyPad``), so its transfers need not be whole blocks."""
    findings = []
    bd, cores = launch.block_dim, launch.platform.core_num
    if block_dim_outside(bd, cores):
        findings.append(finding("BLOCK_DIM_RANGE", f"block dim {bd} is outside [1, {cores}] (the platform's core "
                                                   f"count)."))
    if launch.architecture == ARCH_950:
        findings += _arch35_fields(launch, numel)
        return findings, _arch35_structure(launch, classes, findings, plan)
    return findings, _a2_structure(launch, classes, plan, findings, whole_blocks)


def remarks(launch) -> list:
    """Findings about beta and the tiling key (after the coverage)."""
    out = []
    if not math.isfinite(launch.beta):
        out.append(finding("SCONF_NONFINITE", f"{launch.layout.beta_field} is {launch.beta}: every output is NaN "
                                              f"or infinite."))
    key = launch.key
    if launch.architecture == ARCH_950:
        expected = spec_arch35.tiling_key(launch.info.arch35_template)
        if key is not None and key != expected:
            out.append(finding("TILING_KEY_MISMATCH", f"tiling key {key}; SwishGrad's 950 host gives {expected} "
                                                      f"for {launch.info.name} (schedule mode {spec_arch35.SCHE_MODE}, "
                                                      f"dtype template {launch.info.arch35_template})."))
    elif key != spec_a2.TILING_KEY:
        out.append(finding("TILING_KEY_UNKNOWN", f"tiling key {key}; SwishGrad's only kernel variant is key "
                                                 f"{spec_a2.TILING_KEY}."))
    return out


def _ub_fits(findings: list, ub_use: int, ub: int, what: str) -> None:
    """An UB_OVERFLOW finding when the kernel's buffers (``what`` ... ``ub_use`` bytes) pass the UB."""
    if ub_overflows(ub_use, ub):
        findings.append(finding("UB_OVERFLOW", f"{what} {ub_use} bytes, more than the {ub}-byte unified buffer."))


# ----------------------------------------------------------------------------
# Atlas A2 (model sections 3 and 4)

def _a2_structure(launch, classes, plan, findings: list, whole_blocks: bool = True) -> int:
    b, block, ub = launch.info.itemsize, launch.platform.block_size, launch.platform.ub_size
    T = launch.fields.tileDataNum
    ub_use = spec_a2.plan_bytes(T, plan)
    _ub_fits(findings, ub_use, ub, f"the kernel's buffers {format_plan(plan)} (count x bytes per element) of "
                                   f"tileDataNum={T} elements, each rounded up to {spec_a2.INIT_BUFFER_ALIGN} "
                                   f"bytes, take")
    for c in classes:
        if c.cores == 0:
            continue
        who, name = c.span(), c.name
        tiles_field = f"final{name.title()}TileNum"
        if c.passes == 0:
            if not a2_idle(c.passes, c.count):
                findings.append(finding("TILE_COUNT_MISMATCH", f"{who} run no tile ({tiles_field}=0) but "
                                                               f"{name}CoreDataNum={c.count}.", c.first))
            else:
                findings.append(finding("IDLE_CORE", f"{who} run no tile and own no element.", c.first))
            continue
        if tail_outside(c.tail, T):
            findings.append(finding(
                "TAIL_RANGE", f"{who}: {name}TailDataNum={c.tail} is not in (0, tileDataNum={T}]"
                              + (" (a tail longer than a tile overflows the tile buffer)" if c.tail > T else "")
                              + ".", c.first, c.passes - 1))
        if walk_length_differs(c.passes, T, c.tail, c.count):
            findings.append(finding(
                "TILE_COUNT_MISMATCH", f"{who}: ({tiles_field}-1)*tileDataNum+{name}TailDataNum = "
                                       f"({c.passes}-1)*{T}+{c.tail} = {c.length}, but {name}CoreDataNum={c.count}.",
                c.first))
        if not whole_blocks:
            continue
        if a2_full_tiles_unaligned(c.passes, T, b, block):
            findings.append(finding("TRANSFER_NOT_BLOCK_ALIGNED", f"{who}: full tiles move {T * b} bytes, not a "
                                                                  f"whole number of {block}-byte blocks.", c.first, 0))
        if a2_tail_unaligned(c.tail, b, block):
            findings.append(finding("TRANSFER_NOT_BLOCK_ALIGNED", f"{who}: the last tile moves {c.tail * b} bytes, "
                                                                  f"not a whole number of {block}-byte blocks.",
                                    c.first, c.passes - 1))
    return ub_use


# ----------------------------------------------------------------------------
# Ascend 950 (model section 9): ElewiseTiling and ElementwiseSch

def _arch35_fields(launch, numel: int) -> list:
    """The fields the kernel does not read, against the launch and the host's rules; and blockNum."""
    f, bd, cores = launch.fields, launch.block_dim, launch.platform.core_num
    out = []
    if block_num_differs(bd, f.blockNum):
        if bd > f.blockNum:
            what = f"blocks {max(f.blockNum, 0)}..{bd - 1} run the former blocks' loops past the last block"
        else:
            what = f"blocks {bd}..{f.blockNum - 1} never run"
        out.append(finding("BLOCK_NUM_MISMATCH", f"block dim {bd} differs from blockNum={f.blockNum}: the kernel "
                                                 f"takes block {f.blockNum - 1} as its tail block, and {what}."))
    if core_num_outside(f.coreNum, f.blockNum, cores):
        out.append(finding("CORE_NUM_RANGE", f"coreNum={f.coreNum} is not in [blockNum={f.blockNum}, {cores}] (the "
                                             f"platform's core count)."))
    if dim0_differs(f.dim0, numel):
        out.append(finding("DIM0_MISMATCH", f"dim0={f.dim0} but the tensor has {numel} elements."))
    if elem_num_differs(f.elemNum, f.ubFormer):
        out.append(finding("ELEM_NUM_MISMATCH", f"elemNum={f.elemNum} differs from ubFormer={f.ubFormer}."))
    if sche_mode_unknown(f.scheMode):
        out.append(finding("SCHE_MODE_UNKNOWN", f"scheMode={f.scheMode}; ElewiseBaseTiling always sets "
                                                f"{spec_arch35.SCHE_MODE}."))
    return out


def _arch35_structure(launch, classes, findings: list, plan=()) -> int:
    """The walk's fields: signs, the UB, alignments, loops and tails. Returns the UB bytes.

    ``plan`` is the schedule's one buffer as ``((slots, bytes_per_element),)``
    (another operator's DAG); SwishGrad's :data:`spec.arch35.BUFFER_NUM`
    slots of the dtype when empty."""
    f, b, ub = launch.fields, launch.info.itemsize, launch.platform.ub_size
    negative, unread = negative_fields(launch.architecture, f, classes)
    for name in negative:
        findings.append(finding("FIELD_NEGATIVE", f"{name}={getattr(f, name)} is negative; the walk is not "
                                                  f"analysed."))
    for name in unread:
        findings.append(finding("FIELD_NEGATIVE_UNREAD", f"{name}={getattr(f, name)} is negative, but no launched "
                                                         f"block reads it."))
    if negative:
        return 0
    U = f.ubFormer
    if plan:
        ((slots, slot_bytes),) = plan
        ub_use = pad_to(slots * U * slot_bytes, spec_arch35.INIT_BUFFER_ALIGN)
    else:
        slots, slot_bytes, ub_use = spec_arch35.BUFFER_NUM, b, spec_arch35.ub_bytes(U, b)
    _ub_fits(findings, ub_use, ub, f"the kernel's buffer of {slots} slots of ubFormer={U} "
                                   f"elements ({U * slot_bytes} bytes each), rounded up to "
                                   f"{spec_arch35.INIT_BUFFER_ALIGN} bytes, takes")
    register = spec_arch35.UB_ALIGN_BYTES // b
    if ub_former_off_block(U, b):
        findings.append(finding(
            "UB_FORMER_NOT_BLOCK_ALIGNED", f"ubFormer={U} elements are {U * b} bytes, not a multiple of "
                                           f"{spec_arch35.INIT_BUFFER_ALIGN}: the UB slots after the first start off "
                                           f"the 32-byte alignment, and a copy-in's padding spills into the next "
                                           f"slot."))
    elif ub_former_off_register(U, b):
        findings.append(finding(
            "UB_FORMER_NOT_REGISTER_ALIGNED", f"ubFormer={U} is not a multiple of {register} elements "
                                              f"({spec_arch35.UB_ALIGN_BYTES} bytes, one vector register), as the "
                                              f"host rounds it."))
    if block_former_unaligned(f.blockFormer):
        findings.append(finding("BLOCK_FORMER_NOT_ALIGNED", f"blockFormer={f.blockFormer} is not a multiple of "
                                                            f"{spec_arch35.BLOCK_ALIGN} elements, as the host "
                                                            f"rounds it."))
    former, tail, extra = classes
    if former.cores or extra.cores:
        launched = former if former.cores else extra
        _arch35_loops(findings, launched, "Former", f.blockFormer, f"blockFormer={f.blockFormer}", U)
    if tail.cores:
        length = f.dim0 - (f.blockNum - 1) * f.blockFormer
        _arch35_loops(findings, tail, "Tail", length, f"dim0 - (blockNum-1)*blockFormer = {f.dim0} - "
                                                      f"{f.blockNum - 1}*{f.blockFormer} = {length}", U)
    return ub_use


def _arch35_loops(findings: list, c, kind: str, length: int, length_text: str, U: int) -> None:
    """The UB loops and tail of one kind of block against the block's length."""
    who, loops, tail = c.span(), f"ubLoopOf{kind}Block", f"ubTailOf{kind}Block"
    if c.passes < 1:
        findings.append(finding(
            "TILE_COUNT_MISMATCH", f"{who}: {loops}={c.passes}; a block runs loopNum - 1 full UB loops, then its "
                                   f"tail (on the device loopNum - 1 wraps as a uint64: 2**64 - 1 loops; here "
                                   f"none).", c.first))
        return
    if tail_outside(c.tail, U):
        findings.append(finding("TAIL_RANGE", f"{who}: {tail}={c.tail} is not in [1, ubFormer={U}]"
                                              + (" (a tail longer than ubFormer overflows its UB slot)"
                                                 if c.tail > U else "") + ".", c.first, c.passes - 1))
    if walk_length_differs(c.passes, U, c.tail, length):
        findings.append(finding(
            "TILE_COUNT_MISMATCH", f"{who}: ({loops}-1)*ubFormer+{tail} = ({c.passes}-1)*{U}+{c.tail} = {c.length}, "
                                   f"but the block holds {length_text} elements.", c.first))
