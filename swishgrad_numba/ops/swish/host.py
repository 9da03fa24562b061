"""The Swish forward's facts (docs/model.md "Swish and Silu (forward)"): both kernels' structs, the
beta classes and tiling key, the A2 host tiling, the 950 DAGs and their host tiling, and the checked
host tiling of the platform's kernel. :mod:`.kernel` holds the programs and launch, :mod:`.description` describes the operators.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import BFLOAT16, DTypeInfo
from ...platform import ARCH_950, ARCH_A2, Platform
from ...spec import a2 as spec_a2
from ...spec import arch35 as spec_arch35
from ...spec.arith import INIT_BUFFER_ALIGN, pad_to
from ...tiling.records import checked_record
from ..op_tiling import kept_per_tiling
from ..registry import OpTiling

__all__ = [
    "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "A2_FIELDS", "ARCH35_FIELDS", "ATTR_NEG_ONE", "ATTR_ZERO",
    "ATTR_OTHER", "SCH_MODE", "V_A2", "V_950_NEG_ONE", "V_950_ZERO", "V_950_OTHER", "Dag", "DAGS", "a2_attr",
    "arch35_attr", "is_float_equal", "tiling_key", "A2_UB_DATA_NUMBER", "A2_BUFFER_NUM", "a2_buffer_plan",
    "a2_ub_bytes", "a2_host_tiling", "arch35_dag", "arch35_host_tiling", "arch35_ub_bytes", "host_tiling",
    "walk_fields", "variant_of",
]

# ---------------------------------------------------------------- structs

#: ``SwishTilingData`` (A2): eight uint32, then the float32 ``scale`` (36 bytes).
#: Its integer fields carry the same names, in the same order, as SwishGrad's.
A2_FIELDS = spec_a2.FIELDS + ("scale",)
A2_RECORD_DTYPE = np.dtype([(name, "<u4") for name in spec_a2.FIELDS] + [("scale", "<f4")], align=True)

#: ``EleBaseTilingData32B`` (950): int64 ``dim0``, int32 ``coreNum`` and
#: ``ubFormer``, 16 bytes of ``scalarData`` whose first four hold the float32
#: ``scale`` (``SetScalar<float>``); the rest stays zero (32 bytes).
ARCH35_FIELDS = ("dim0", "coreNum", "ubFormer", "scale")
ARCH35_RECORD_DTYPE = np.dtype({"names": list(ARCH35_FIELDS), "formats": ["<i8", "<i4", "<i4", "<f4"],
                                "offsets": [0, 8, 12, 16], "itemsize": 32})

assert A2_RECORD_DTYPE.itemsize == 36 and ARCH35_RECORD_DTYPE.itemsize == 32

# ---------------------------------------------------------------- beta classes and tiling key

#: The ``attrWork`` template values (``TPL_SCALE_NEG_ONE``, ``_ZERO``, ``_OTHER``).
ATTR_NEG_ONE, ATTR_ZERO, ATTR_OTHER = 1, 2, 3
#: Both hosts set ``schMode`` 0 (the A2 explicitly, the 950 by never changing its member's 0).
SCH_MODE = 0


def tiling_key(attr: int) -> int:
    """``GET_TPL_TILING_KEY(schMode, attrWork)``: the schedule mode's index in
    its list {0, 1} in the lowest bit, the attribute class above it (2, 4, 6)."""
    return SCH_MODE | (attr << 1)


def a2_attr(scale32) -> int:
    """The A2 host's attribute class: exact float comparisons (``-0.0 == 0.0``; NaN is other)."""
    s = float(np.float32(scale32))
    if s == -1.0:
        return ATTR_NEG_ONE
    if s == 0.0:
        return ATTR_ZERO
    return ATTR_OTHER


def is_float_equal(a, b) -> bool:
    """opbase ``IsFloatEqual`` on float32: false with a NaN; with an infinity,
    whether the signs agree; else ``|a - b| <= FLT_EPSILON``, the difference
    rounded to float32."""
    a, b = np.float32(a), np.float32(b)
    if np.isnan(a) or np.isnan(b):
        return False
    if np.isinf(a) or np.isinf(b):
        return bool(np.signbit(a) == np.signbit(b))
    with np.errstate(over="ignore"):
        return bool(abs(np.float32(a - b)) <= np.finfo(np.float32).eps)


def arch35_attr(scale32) -> int:
    """The 950 host's attribute class (``SetAttr``): ``IsFloatEqual(scale, -1)``,
    then ``IsFloatEqual(scale, 0)``, else other. So -inf is NEG_ONE, +inf is
    ZERO, NaN is OTHER; near -1: the four floats with ``|scale + 1| <= 2^-23``;
    near 0: every ``|scale| <= 2^-23``."""
    if is_float_equal(scale32, -1.0):
        return ATTR_NEG_ONE
    if is_float_equal(scale32, 0.0):
        return ATTR_ZERO
    return ATTR_OTHER

# ---------------------------------------------------------------- A2 host tiling

#: ``ubDataNumber``: UB words per element, by itemsize (float32 2, 16-bit 4).
A2_UB_DATA_NUMBER = {4: 2, 2: 4}
#: The A2 kernel's queue depth (``BUFFER_NUM``), host and kernel alike.
A2_BUFFER_NUM = 2


def a2_buffer_plan(itemsize):
    """The A2 kernel's UB plan ``((count, bytes_per_element), ...)``: the x and
    y queues of :data:`A2_BUFFER_NUM` buffers, plus two float32 ``TBuf`` s for
    the 16-bit types."""
    queues = ((A2_BUFFER_NUM, itemsize),) * 2
    return queues if itemsize == 4 else queues + ((2, 4),)


def a2_ub_bytes(tile_data_num, itemsize):
    """UB bytes the A2 kernel allocates for tiles of ``tile_data_num`` elements."""
    return spec_a2.plan_bytes(tile_data_num, a2_buffer_plan(itemsize))


def a2_host_tiling(numel, itemsize, ub_size, core_num, block_size):
    """``SwishTilingFunc``'s split: ``(accepted, block_dim, fields)``.

    ``tileBlockNum = (ub / block / BUFFER_NUM) / ubDataNumber``; the rest is
    the split SwishGrad's host shares (:func:`spec.a2.split_blocks`).
    ``accepted`` is false where ``tileBlockNum`` is 0 (the host would divide
    by it). ``numel`` must be >= 1.
    """
    tile_block_num = (ub_size // block_size // A2_BUFFER_NUM) // A2_UB_DATA_NUMBER[itemsize]
    accepted = tile_block_num > 0
    block_dim, fields = spec_a2.split_blocks(numel, itemsize, max(tile_block_num, 1), core_num, block_size)
    return accepted, block_dim, fields

# ---------------------------------------------------------------- 950 DAGs and host tiling


@dataclass(frozen=True)
class Dag:
    """One 950 DAG: its name, attribute class and kernel variant, and, per
    input itemsize, opbase ``dag.h``'s ``BufferNum`` and ``MaxDtypeBytes``
    (``MinDtypeBytes`` is the input's). Derivation in docs/model.md."""

    name: str
    attr: int
    variant: int
    widens_16: bool          # its nodes hold 16-bit x as float32 (SwishZero's Casts)

    def buffer_num(self, itemsize: int) -> int:
        """CopyIn and CopyOut pinged and ponged (4); SwishZero on 16-bit adds
        two temporaries alive at once (the widened x and the product)."""
        return 4 + 2 * (self.widens_16 and itemsize != 4)

    def max_itemsize(self, itemsize: int) -> int:
        return 4 if self.widens_16 else itemsize


#: Kernel-variant codes for the jitted code.
V_A2, V_950_NEG_ONE, V_950_ZERO, V_950_OTHER = 0, 1, 2, 3

#: The 950 DAGs by attribute class. NegOne and Other compute inside one
#: node in float32 registers and so keep the input dtype between nodes;
#: Zero's ``Vec::Cast`` nodes widen 16-bit x to float32 (a same-type Cast
#: is a no-op that ``dag.h`` removes).
DAGS = {
    ATTR_NEG_ONE: Dag("SwishNegOne", ATTR_NEG_ONE, V_950_NEG_ONE, widens_16=False),
    ATTR_ZERO: Dag("SwishZero", ATTR_ZERO, V_950_ZERO, widens_16=True),
    ATTR_OTHER: Dag("SwishOther", ATTR_OTHER, V_950_OTHER, widens_16=False),
}


def arch35_dag(scale32) -> Dag:
    """The DAG the 950 host picks for ``scale``."""
    return DAGS[arch35_attr(scale32)]


def arch35_host_tiling(numel, itemsize, ub_size, vector_core_num, dag: Dag):
    """``ElewiseBaseTiling::DoTiling32B<Dag>``: ``(accepted, block_dim, fields)``
    with ``fields`` the full ElewiseTilingData (a ``spec.arch35.TilingFields``),
    of which the struct keeps ``dim0``, ``coreNum`` and ``ubFormer``."""
    return spec_arch35.host_tiling(numel, itemsize, ub_size, vector_core_num, dag.buffer_num(itemsize),
                                   dag.max_itemsize(itemsize))


def arch35_ub_bytes(ub_former, itemsize, dag: Dag):
    """UB bytes the 950 schedule allocates: ``BufferNum`` slots of
    ``ubFormer * MaxDtypeBytes`` bytes, padded by InitBuffer."""
    return pad_to(dag.buffer_num(itemsize) * ub_former * dag.max_itemsize(itemsize), INIT_BUFFER_ALIGN)

# ---------------------------------------------------------------- the host tiling, checked


def host_tiling(op_name: str, numel: int, info: DTypeInfo, scale32, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements for the kernel the
    platform's SoC runs; ValueError where that host refuses."""
    b = info.itemsize
    if platform.architecture == ARCH_950:
        dag = arch35_dag(scale32)
        accepted, block_dim, f = arch35_host_tiling(numel, b, platform.ub_size, platform.core_num, dag)
        if not accepted:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 {dag.name} kernel "
                             f"needs {dag.buffer_num(b)} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
        data = checked_record(ARCH35_RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer,
                                             "scale": scale32})
        return OpTiling(op_name, ARCH_950, data, int(block_dim), tiling_key(dag.attr), spec_arch35.WORKSPACE_SIZE)
    # SwishTilingFunc refuses bfloat16 on any SoC but ASCEND910B and ASCEND310B.
    if info is BFLOAT16 and platform.soc_family not in ("ascend910b", "ascend310b"):
        raise ValueError(f"x.dtype bfloat16 is refused by the A2 Swish host tiling on SoC {platform.soc_version!r}: "
                         f"it accepts bfloat16 on ascend910b and ascend310b only")
    accepted, block_dim, f = a2_host_tiling(numel, b, platform.ub_size, platform.core_num, platform.block_size)
    if not accepted:
        need = A2_BUFFER_NUM * A2_UB_DATA_NUMBER[b] * platform.block_size
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 {info.name} kernel "
                         f"needs at least {need} bytes (one block per tile buffer)")
    data = checked_record(A2_RECORD_DTYPE, {**f._asdict(), "scale": scale32})
    return OpTiling(op_name, ARCH_A2, data, int(block_dim), tiling_key(a2_attr(scale32)),
                    platform.lib_workspace_size)


@kept_per_tiling
def walk_fields(tiling: OpTiling):
    """The integer fields the kernel walks by (``spec.a2.TilingFields`` or
    ``spec.arch35.TilingFields``), from a host tiling's record."""
    d = tiling.data
    if tiling.architecture == ARCH_950:
        return spec_arch35.kernel_fields_32b(int(d["dim0"]), int(d["coreNum"]), int(d["ubFormer"]))
    return spec_a2.TilingFields(*(int(d[name]) for name in spec_a2.FIELDS))


def variant_of(architecture: str, scale32) -> int:
    """The jitted code's kernel variant: the A2's one sequence, or the 950's DAG."""
    if architecture == ARCH_950:
        return arch35_dag(scale32).variant
    return V_A2
