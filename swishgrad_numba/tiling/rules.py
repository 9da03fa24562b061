"""The rules a tiling's fields must follow, one set per kernel (everything but the coverage).

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
from .buffers import format_plan
from .findings import finding
from .launch import negative_fields

__all__ = ["remarks", "structure"]


def structure(launch, classes, numel: int, plan) -> tuple:
    """``(findings, ub_bytes)``: the rules of the launch's kernel, before the coverage."""
    findings = []
    bd, cores = launch.block_dim, launch.platform.core_num
    if not 1 <= bd <= cores:
        findings.append(finding("BLOCK_DIM_RANGE", f"block dim {bd} is outside [1, {cores}] (the platform's core "
                                                   f"count)."))
    if launch.architecture == ARCH_950:
        findings += _arch35_fields(launch, numel)
        return findings, _arch35_structure(launch, classes, findings)
    return findings, _a2_structure(launch, classes, plan, findings)


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
    if ub_use > ub:
        findings.append(finding("UB_OVERFLOW", f"{what} {ub_use} bytes, more than the {ub}-byte unified buffer."))


# ----------------------------------------------------------------------------
# Atlas A2 (model sections 3 and 4)

def _a2_structure(launch, classes, plan, findings: list) -> int:
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
            if c.count:
                findings.append(finding("TILE_COUNT_MISMATCH", f"{who} run no tile ({tiles_field}=0) but "
                                                               f"{name}CoreDataNum={c.count}.", c.first))
            else:
                findings.append(finding("IDLE_CORE", f"{who} run no tile and own no element.", c.first))
            continue
        if not 0 < c.tail <= T:
            findings.append(finding(
                "TAIL_RANGE", f"{who}: {name}TailDataNum={c.tail} is not in (0, tileDataNum={T}]"
                              + (" (a tail longer than a tile overflows the tile buffer)" if c.tail > T else "")
                              + ".", c.first, c.passes - 1))
        if c.length != c.count:
            findings.append(finding(
                "TILE_COUNT_MISMATCH", f"{who}: ({tiles_field}-1)*tileDataNum+{name}TailDataNum = "
                                       f"({c.passes}-1)*{T}+{c.tail} = {c.length}, but {name}CoreDataNum={c.count}.",
                c.first))
        if c.passes >= 2 and (T * b) % block:
            findings.append(finding("TRANSFER_NOT_BLOCK_ALIGNED", f"{who}: full tiles move {T * b} bytes, not a "
                                                                  f"whole number of {block}-byte blocks.", c.first, 0))
        if (c.tail * b) % block:
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
    if bd != f.blockNum:
        if bd > f.blockNum:
            what = f"blocks {max(f.blockNum, 0)}..{bd - 1} run the former blocks' loops past the last block"
        else:
            what = f"blocks {bd}..{f.blockNum - 1} never run"
        out.append(finding("BLOCK_NUM_MISMATCH", f"block dim {bd} differs from blockNum={f.blockNum}: the kernel "
                                                 f"takes block {f.blockNum - 1} as its tail block, and {what}."))
    if not f.blockNum <= f.coreNum <= cores:
        out.append(finding("CORE_NUM_RANGE", f"coreNum={f.coreNum} is not in [blockNum={f.blockNum}, {cores}] (the "
                                             f"platform's core count)."))
    if f.dim0 != numel:
        out.append(finding("DIM0_MISMATCH", f"dim0={f.dim0} but the tensor has {numel} elements."))
    if f.elemNum != f.ubFormer:
        out.append(finding("ELEM_NUM_MISMATCH", f"elemNum={f.elemNum} differs from ubFormer={f.ubFormer}."))
    if f.scheMode != spec_arch35.SCHE_MODE:
        out.append(finding("SCHE_MODE_UNKNOWN", f"scheMode={f.scheMode}; ElewiseBaseTiling always sets "
                                                f"{spec_arch35.SCHE_MODE}."))
    return out


def _arch35_structure(launch, classes, findings: list) -> int:
    """The walk's fields: signs, the UB, alignments, loops and tails. Returns the UB bytes."""
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
    ub_use = spec_arch35.ub_bytes(U, b)
    _ub_fits(findings, ub_use, ub, f"the kernel's buffer of {spec_arch35.BUFFER_NUM} slots of ubFormer={U} "
                                   f"elements ({U * b} bytes each), rounded up to {spec_arch35.INIT_BUFFER_ALIGN} "
                                   f"bytes, takes")
    register = spec_arch35.UB_ALIGN_BYTES // b
    if (U * b) % spec_arch35.INIT_BUFFER_ALIGN:
        findings.append(finding(
            "UB_FORMER_NOT_BLOCK_ALIGNED", f"ubFormer={U} elements are {U * b} bytes, not a multiple of "
                                           f"{spec_arch35.INIT_BUFFER_ALIGN}: the UB slots after the first start off "
                                           f"the 32-byte alignment, and a copy-in's padding spills into the next "
                                           f"slot."))
    elif U % register:
        findings.append(finding(
            "UB_FORMER_NOT_REGISTER_ALIGNED", f"ubFormer={U} is not a multiple of {register} elements "
                                              f"({spec_arch35.UB_ALIGN_BYTES} bytes, one vector register), as the "
                                              f"host rounds it."))
    if f.blockFormer % spec_arch35.BLOCK_ALIGN:
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
    if not 1 <= c.tail <= U:
        findings.append(finding("TAIL_RANGE", f"{who}: {tail}={c.tail} is not in [1, ubFormer={U}]"
                                              + (" (a tail longer than ubFormer overflows its UB slot)"
                                                 if c.tail > U else "") + ".", c.first, c.passes - 1))
    if c.length != length:
        findings.append(finding(
            "TILE_COUNT_MISMATCH", f"{who}: ({loops}-1)*ubFormer+{tail} = ({c.passes}-1)*{U}+{c.tail} = {c.length}, "
                                   f"but the block holds {length_text} elements.", c.first))
