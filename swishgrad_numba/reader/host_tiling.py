"""A read kernel's host side (issue 31): its tiling struct as a C-layout record, the template's host tiling,
the walk its record stands for and what the validator sees of it.

A read kernel's own host code is not read here (an A2 kernel's op_host tiling function is evaluated by
:mod:`swishgrad_numba.reader.host_eval`, over the template's walk): it runs on the host tiling of the
template its style is written for, the A2 element-wise split (:func:`swishgrad_numba.spec.a2.split_blocks`,
with the kernel's UB plan: every queue ``BUFFER_NUM`` buffers of the element type, every other local tensor
one float32 buffer) or the 950's ``ElewiseTiling`` (:func:`swishgrad_numba.spec.arch35.host_tiling`, into the struct's
``EleBaseTilingData`` field, or into one of opbase's structs used as it is: :data:`OPBASE_STRUCTS`).
Only the 950's walk is all in its record; an A2 struct's integer fields are
the author's own, so a :class:`ReadTiling` carries the template's walk beside the record, and the record's
fields named as the template's (:data:`swishgrad_numba.spec.a2.FIELDS`) carry its values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..dtypes import DTypeInfo
from ..platform import ARCH_950, ARCH_A2, ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from ..tiling.records import checked_record
from ..ops.registry import OpTiling, WalkCheck
from .errors import KernelSourceError
from .tiling_arrays import split_ctype
from ..ops.swish.host import ARCH35_RECORD_DTYPE
from . import broadcast_sch
from .broadcast_sch import launch as broadcast_launch

__all__ = ["C_TYPES", "ELE_BASE_TILING_DTYPE", "ELE_BASE_TILING_16B_DTYPE", "OPBASE_STRUCTS", "ReadTiling",
           "record_dtype", "ub_plan", "host_tiling", "split_for_cores",
           "walk_fields", "walk_check", "broadcast_launch"]

#: The C scalar types a tiling struct's fields may have, as NumPy types (little-endian, as the device).
C_TYPES = {"uint8_t": "u1", "int8_t": "i1", "uint16_t": "<u2", "int16_t": "<i2", "uint32_t": "<u4",
           "int32_t": "<i4", "uint64_t": "<u8", "int64_t": "<i8", "int": "<i4", "float": "<f4",
           "double": "<f8", "bool": "?"}

#: opbase's ``EleBaseTilingData``, the 950 ElewiseTiling's fields (80 bytes).
ELE_BASE_TILING_DTYPE = spec_arch35.ELE_BASE_TILING_DTYPE
_STRUCTS = {"EleBaseTilingData": ELE_BASE_TILING_DTYPE}

#: opbase's ``EleBaseTilingData32B`` (``pkg_inc/op_common/atvoss/elewise/elewise_base_struct.h:53-58``):
#: ``dim0``, ``coreNum``, ``ubFormer`` and 16 bytes of ``scalarData``, laid out as the Swish 950 record
#: (:data:`swishgrad_numba.ops.swish.host.ARCH35_RECORD_DTYPE`, whose ``scale`` is the first float of
#: ``scalarData``). ``ElementwiseSchWithScalar::Init`` fills the DAG's ``Placeholder::Var`` scalars from
#: ``scalarData`` in index order, each after the one before (``elewise_sch_with_scalar.h:62, 100-113``).
_HEAD_32B = ("dim0", "coreNum", "ubFormer")
_SCALAR_OFFSET_32B = ARCH35_RECORD_DTYPE.fields["scale"][1]
_SCALAR_BYTES_32B = ARCH35_RECORD_DTYPE.itemsize - _SCALAR_OFFSET_32B

#: opbase's ``EleBaseTilingData16B`` (``dim0``, ``coreNum``, ``ubFormer``, no scalarData): ``ElementwiseSch16B``
#: splits the blocks again as the 32-byte schedule does (:func:`.gelu.walk_fields`).
ELE_BASE_TILING_16B_DTYPE = spec_arch35.ELE_BASE_TILING_16B_DTYPE

#: opbase's element-wise structs a kernel may use as its tiling struct as they are (not in its folder):
#: the 80-byte ``EleBaseTilingData``, ``EleBaseTilingDataV2`` (its alias, ``elewise_base_struct.h:60``),
#: ``EleBaseTilingData16B`` and ``EleBaseTilingData32B``.
OPBASE_STRUCTS = ("EleBaseTilingData", "EleBaseTilingDataV2", "EleBaseTilingData16B", "EleBaseTilingData32B",
                  "EleBaseTilingData24B")
#: The structs that keep only the head of the ElewiseTiling result (dim0, coreNum, ubFormer).
_SHORT_STRUCTS = ("EleBaseTilingData16B", "EleBaseTilingData32B", "EleBaseTilingData24B")
#: opbase's ``EleBaseTilingData24B`` (``elewise_base_struct.h:45-50``, as the package's 950 LeakyRelu record,
#: :data:`swishgrad_numba.ops.leaky_relu.kernel.RECORD_DTYPE`): the 32-byte head, then 8 bytes of
#: ``scalarData`` at byte 16 (``(offset, bytes, itemsize)``); ``ElementwiseSchWithScalar`` splits it again.
_SCALARS_24B = (16, 8, 24)


def _refuse(struct, detail):
    file, line = struct.named_at
    raise KernelSourceError(file, line, f"tiling struct {struct.name}", detail)


def _opbase_dtype(struct) -> np.dtype:
    """The record of an opbase struct used as it is: the 80-byte one whole, the 16-byte one, or the 32-byte
    one with the DAG's float ``Placeholder::Var`` s in ``scalarData`` (``var<i>`` at ``4 i`` bytes into it).
    KernelSourceError, at the line naming the struct, for one it cannot lay out."""
    if struct.name == broadcast_sch.BROADCAST_STRUCT:       # BroadcastSch's record (issue 43)
        return broadcast_sch.record_dtype(struct)
    if struct.name not in OPBASE_STRUCTS:
        _refuse(struct, f"it was not found in the kernel's folder, nor is it one of opbase's element-wise "
                        f"structs {list(OPBASE_STRUCTS)}: its record cannot be laid out")
    names = [n for n, _ in struct.fields]
    if names != [f"var{i}" for i in range(len(names))] or any(t != "float" for _, t in struct.fields):
        _refuse(struct, f"the DAG's Placeholder::Var scalars {names} are not float var0, var1, ... in order; "
                        f"their place in the struct is not read")
    if struct.name == "EleBaseTilingData24B":       # issue 43: the 32-byte layout in 24 bytes (below)
        scalar_offset, scalar_bytes, itemsize = _SCALARS_24B
    else:
        scalar_offset, scalar_bytes, itemsize = _SCALAR_OFFSET_32B, _SCALAR_BYTES_32B, ARCH35_RECORD_DTYPE.itemsize
    if struct.name not in ("EleBaseTilingData32B", "EleBaseTilingData24B"):      # no scalarData
        if names:
            _refuse(struct, f"it has no scalarData: the DAG's Placeholder::Var scalars {names} are set by no "
                            f"SetVar")
        base = ELE_BASE_TILING_16B_DTYPE if struct.name == "EleBaseTilingData16B" else ELE_BASE_TILING_DTYPE
        return np.dtype(base, metadata={"opbase": struct.name})
    if 4 * len(names) > scalar_bytes:
        _refuse(struct, f"{len(names)} float scalars do not fit its {scalar_bytes} bytes of scalarData")
    head = [ARCH35_RECORD_DTYPE.fields[n] for n in _HEAD_32B]
    return np.dtype({"names": list(_HEAD_32B) + names,
                     "formats": [f[0] for f in head] + ["<f4"] * len(names),
                     "offsets": [f[1] for f in head] + [scalar_offset + 4 * i for i in range(len(names))],
                     "itemsize": itemsize}, metadata={"opbase": struct.name})


def _is_short(dtype) -> bool:
    """An opbase struct that keeps only ``dim0``, ``coreNum``, ``ubFormer`` (and the 32-byte one's scalars)."""
    return (dtype.metadata or {}).get("opbase") in _SHORT_STRUCTS


def record_dtype(struct, style: str) -> np.dtype:
    """The tiling struct as a NumPy record laid out as a C compiler lays it out (each field at its type's
    alignment, the size rounded to the largest); KernelSourceError (a ValueError) at the field it cannot
    lay out."""
    if struct is None:
        raise ValueError("the kernel's tiling struct was not found in its folder: its record cannot be laid out")
    if getattr(struct, "opbase", False):
        if style != "dag":
            raise ValueError(f"tiling struct {struct.name} (opbase's) is read for the 950 DAG style only")
        return _opbase_dtype(struct)
    fields, seen = [], set()
    for i, (name, ctype) in enumerate(struct.fields):
        where = struct.at[i] if i < len(struct.at) else ("", 0)
        if name in seen:
            raise KernelSourceError(*where, f"tiling struct field {name}", "declared twice")
        seen.add(name)
        ctype, count = split_ctype(ctype)             # an array field: "int64_t[8]" (.tiling_arrays)
        if count is None and where[0] and re.search(rf"\b{re.escape(name)}\s*\[", _line(where)):
            raise KernelSourceError(*where, f"tiling struct field {name}", "an array, whose layout is not read")
        if ctype not in C_TYPES and (ctype not in _STRUCTS or count is not None):
            raise KernelSourceError(*where, f"tiling struct field {name}", f"its type {ctype} is not one of "
                                    f"{sorted(C_TYPES) + sorted(_STRUCTS)}")
        kind = C_TYPES.get(ctype) or _STRUCTS[ctype]
        fields.append((name, kind) if count is None else (name, kind, (count,)))
    dtype = np.dtype(fields, align=True)
    if style == "dag" and _base_field(dtype) is None:
        where = struct.at[0] if struct.at else struct.named_at
        raise KernelSourceError(*where, f"tiling struct {struct.name}", "the 950 DAG style needs an "
                                "EleBaseTilingData field for the ElewiseTiling host")
    return dtype


def _line(where) -> str:
    from .source import read_regular

    try:
        return read_regular(Path(where[0])).splitlines()[where[1] - 1]
    except (KernelSourceError, IndexError):
        return ""


def _base_field(dtype):
    return next((n for n in dtype.names if dtype.fields[n][0] == ELE_BASE_TILING_DTYPE), None)


def _base(record):
    """The record's ``EleBaseTilingData``: a field of it, or the record itself (opbase's struct used as it is)."""
    return record if (record.dtype.metadata or {}).get("opbase") else record[_base_field(record.dtype)]


@dataclass(frozen=True)
class ReadTiling(OpTiling):
    """A read kernel's host tiling: the record and, for the A2 style, ``walk`` (the template's
    ``spec.a2.TilingFields``; None where it is to be worked out again from the launch)."""

    walk: object = None
    form: str = ""          # "a2": the A2 template's walk (a class-style kernel, on either architecture)


def ub_plan(program, info: DTypeInfo, buffer_num: int) -> tuple:
    """The A2 kernel's UB plan ``((count, bytes_per_element), ...)``: a queue of ``buffer_num`` buffers of
    the element type per input and for the output, one float32 buffer per other local tensor."""
    queues = ((buffer_num, info.itemsize),) * (len(program.inputs) + 1)
    return queues + tuple((1, 4 if t.dtype == "float32" else info.itemsize) for t in program.locals)


def _dag_buffers(program, info: DTypeInfo, dag_wide: bool | None = None) -> tuple:
    """``(BufferNum, MaxDtypeBytes)`` of a read DAG, as the Swish 950 DAGs' rule (``ops.swish.Dag``): its
    copy-ins and copy-out pinged and ponged, and two float32 temporaries where a 16-bit body widens:
    where a DAG node's result is float32 (``dag_wide``, the reader's :attr:`Body.dag_wide`; registers
    inside a MicroAPI node are not UB tensors), else where the program has a float32 local."""
    wide = any(t.dtype == "float32" for t in program.locals) if dag_wide is None else dag_wide
    widens = info.itemsize != 4 and wide
    return 2 * (len(program.inputs) + 1) + 2 * widens, 4 if widens else info.itemsize


def _a2_split(program, numel: int, info: DTypeInfo, platform: Platform, buffer_num: int, cores=None):
    units = -(-sum(c * b for c, b in ub_plan(program, info, buffer_num)) // info.itemsize)
    tile_block_num = (platform.ub_size // platform.block_size) // units
    if tile_block_num < 1 or platform.block_size % info.itemsize:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the kernel's {info.name} "
                         f"UB plan needs {units * platform.block_size} bytes for one block per buffer")
    if cores is not None:         # the host's own block dim, at most one core per block
        cores = max(1, min(int(cores), -(-numel * info.itemsize // platform.block_size)))
        return cores, spec_a2.split_over(numel, info.itemsize, tile_block_num, cores, platform.block_size)
    return spec_a2.split_blocks(numel, info.itemsize, tile_block_num, platform.core_num, platform.block_size)


def split_for_cores(program, numel: int, info: DTypeInfo, platform: Platform, buffer_num: int, cores: int):
    """The template's walk of ``numel`` elements over the ``cores`` a kernel's own host chose (at most one
    per 32-byte block): ``(block_dim, TilingFields)``."""
    return _a2_split(program, numel, info, platform, buffer_num, cores)


def host_tiling(op_name: str, style, dtype: np.dtype, program, numel: int, info: DTypeInfo,
                platform: Platform, attrs: dict, buffer_num: int, dag_wide: bool | None = None) -> ReadTiling:
    """The template's host tiling of ``numel`` (>= 1) elements, the attributes in the struct's float fields.
    ``style`` is the kernel's style, or (style, architecture) where a class-style kernel is a 950 entry's:
    it is then split as the A2 template splits, with the 950 platform's UB and cores."""
    style, arch = style if isinstance(style, tuple) else (style, ARCH_950 if style == "dag" else ARCH_A2)
    if style == "dag":
        if platform.architecture != ARCH_950:
            raise ValueError(f"platform (soc_version {platform.soc_version!r}) does not run the 950 DAG kernel "
                             f"{op_name}; give an Ascend 950 platform")
        bufs, widest = _dag_buffers(program, info, dag_wide)
        if broadcast_sch.is_broadcast(dtype):       # BroadcastSch (issue 43): opbase's BroadcastTiling
            return broadcast_sch.host_tiling(op_name, dtype, numel, info, platform, attrs, (bufs, widest))
        accepted, block_dim, f = spec_arch35.host_tiling(numel, info.itemsize, platform.ub_size, platform.core_num,
                                                         bufs, widest)
        if not accepted:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small for {bufs} buffers")
        if _is_short(dtype):           # the 16/32-byte struct keeps dim0, coreNum and ubFormer of the result
            data = checked_record(dtype, {**{n: getattr(f, n) for n in _HEAD_32B}, **attrs})
            return ReadTiling(op_name, ARCH_950, data, int(block_dim), 0, spec_arch35.WORKSPACE_SIZE)
        record = np.zeros((), dtype=dtype)
        base = checked_record(ELE_BASE_TILING_DTYPE, f._asdict())
        if (dtype.metadata or {}).get("opbase"):
            record[...] = base
        else:
            record[_base_field(dtype)] = base
        for name, value in attrs.items():
            record[name] = value
        return ReadTiling(op_name, ARCH_950, record[()], int(block_dim), 0, spec_arch35.WORKSPACE_SIZE)
    if platform.architecture != arch:
        which = "A2" if arch == ARCH_A2 else "Ascend 950"
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) does not run the {which} class-style "
                         f"kernel {op_name}; give an {which} platform")
    block_dim, f = _a2_split(program, numel, info, platform, buffer_num)
    values = {n: v for n, v in f._asdict().items() if n in dtype.names}
    data = checked_record(dtype, {**values, **attrs})
    return ReadTiling(op_name, arch, data, int(block_dim), 0, platform.lib_workspace_size, f, "a2")


def walk_fields(tiling: OpTiling, program, numel: int, info: DTypeInfo, platform: Platform | None,
                buffer_num: int):
    """The walk a record stands for: the 950's from its ``EleBaseTilingData``, the A2's carried beside it
    (or the template's split again, with the record's block dim as the core count)."""
    if tiling.architecture == ARCH_950 and getattr(tiling, "form", "") != "a2":
        if _is_short(tiling.data.dtype):   # the split done again (elewise_sch_with_scalar.h:37-48)
            return spec_arch35.kernel_fields_32b(*(int(tiling.data[n]) for n in _HEAD_32B))
        base = _base(tiling.data)
        return spec_arch35.TilingFields(*(int(base[n]) for n in spec_arch35.FIELDS))
    walk = getattr(tiling, "walk", None)
    if walk is None:
        platform = platform or (ASCEND950_PLATFORM if tiling.architecture == ARCH_950 else REFERENCE_PLATFORM)
        from dataclasses import replace
        _, walk = _a2_split(program, numel, info, replace(platform, core_num=tiling.block_dim), buffer_num)
    return walk


def walk_check(program_of, buffer_num: int, tiling: OpTiling, numel: int, info: DTypeInfo,
               platform: Platform, dag_wide: bool | None = None) -> WalkCheck:
    """The record for the validator: its walk in the template's core-class form and the kernel's UB plan."""
    program = program_of(info.name)
    if tiling.architecture == ARCH_950 and getattr(tiling, "form", "") != "a2":
        bufs, widest = _dag_buffers(program, info, dag_wide)
        if broadcast_sch.is_broadcast(tiling.data.dtype):
            return broadcast_sch.walk_check(tiling, numel, info, platform, (bufs, widest))
        if _is_short(tiling.data.dtype):
            bad = [n for n in _HEAD_32B if int(tiling.data[n]) < 1]
            fields = None if bad else walk_fields(tiling, program, numel, info, platform, buffer_num)
        else:
            fields = walk_fields(tiling, program, numel, info, platform or ASCEND950_PLATFORM, buffer_num)
            bad = [n for n in _HEAD_32B if getattr(fields, n) < 1]
        if bad:
            from ..tiling.findings import finding
            value = (lambda n: int(tiling.data[n])) if fields is None else (lambda n: getattr(fields, n))
            return WalkCheck(None, ((bufs, widest),), 0, tuple(
                finding("FIELD_RANGE", f"{n}={value(n)}: the kernel divides by it and needs it >= 1.")
                for n in bad))
        return WalkCheck(fields, ((bufs, widest),), fields.ubFormer)
    fields = walk_fields(tiling, program, numel, info, platform, buffer_num)
    return WalkCheck(fields, ub_plan(program, info, buffer_num), fields.tileDataNum)
