"""SoftplusV2, the operator behind aclnnSoftplus: the Ascend 950 kernel's data (the operator is described in
:mod:`.description`).

docs/model.md, "Softplus (aclnnSoftplus, 950 only)", and docs/activation_tiling.md ("SoftplusV2") give
the sources, file and line, of every fact here.

- Ascend 950 (ops-nn ``activation/softplus_v2``, arch35): a class-style TPipe kernel with its own host
  tiling and ``SoftplusV2TilingData`` (``int64 totalLength, blockFactor, tileLength; float beta,
  threshold, invBeta``, 40 bytes with its tail padding); ``invBeta`` is +inf where ``|beta| <=
  FLT_EPSILON``, whatever beta's sign (``SafeInvBeta``). Core ``i`` takes ``blockFactor`` elements from
  ``i * blockFactor`` (the last core the rest), in tiles of ``tileLength``; each Compute rounds its count
  up to 64 (the Compare's 256 bytes), within the tile. log1p is computed as ``ln(u) * e / (u - 1)``
  with ``u = 1 + e`` (Compare, Select, Exp, Ln, Div); 16-bit results are narrowed with **CAST_ROUND**.
- No public A2 kernel: ``experimental/activation/soft_plus_v2`` registers another op type
  (``SoftPlusV2``), so an A2 platform is refused (``Operator.no_kernel``). The 950 has the Inf/NaN
  overflow mode only.

Plain Python: the struct, the host tiling, the program (compiled by :mod:`swishgrad_numba.program`) and
the launch on the generic walk, whose A2-form core classes express this split exactly; :data:`KERNELS`
and :func:`registry_host_tiling` are what the description registers.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, Platform
from ...program import Attr, compiled
from ...program.elementwise import elementwise
from ...program.form import V
from ...spec import a2 as spec_a2
from ...spec.arith import ceil_div
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "RECORD_DTYPE", "FLT_EPSILON", "SELECT_RESERVE", "ELEM_ALIGN", "MIN_BYTES_PER_CORE",
           "DTYPE_TEMPLATE", "NO_A2_KERNEL", "inv_beta", "mask_bytes", "tile_length", "used_cores",
           "host_tiling", "registry_host_tiling", "tiling_key", "buffer_plan", "walk_fields", "programs",
           "walk_check", "run", "KERNELS"]

NAME = "softplus"

#: ``SoftplusV2TilingData`` (``softplus_v2_tiling_data.h:23-30``): 36 bytes, padded to 40 (int64 alignment).
RECORD_DTYPE = np.dtype([("totalLength", "<i8"), ("blockFactor", "<i8"), ("tileLength", "<i8"),
                         ("beta", "<f4"), ("threshold", "<f4"), ("invBeta", "<f4")], align=True)
assert RECORD_DTYPE.itemsize == 40

#: ``std::numeric_limits<float>::epsilon()``: |beta| at or below it makes invBeta +inf.
FLT_EPSILON = np.float32(2.0 ** -23)
#: Bytes the host keeps free for Select mode 2 (``SELECT_RESERVE``, tiling :73-111).
SELECT_RESERVE = 8 * 1024
#: Tiles are multiples of 64 elements (Compare on 256 bytes of float32).
ELEM_ALIGN = 64
#: One more core per 2 KiB of input (``ComputeUsedCoreNum``).
MIN_BYTES_PER_CORE = 2048
#: UB bytes per element of a tile: 6 float32 buffers, or 2 + 2 16-bit queue slots and 3 float32 buffers.
_BYTES_PER_ELEM = {4: 24, 2: 20}
#: The position of x's dtype in ``ASCENDC_TPL_DATATYPE_DECL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, C_DT_BF16)``
#: (``softplus_v2_tiling_key.h``); the key is taken as that position (the template's encoding not traced).
DTYPE_TEMPLATE = {"float32": 0, "float16": 1, "bfloat16": 2}

NO_A2_KERNEL = ("ops-nn registers SoftplusV2 for the Ascend 950 only (experimental/activation/soft_plus_v2 "
                "registers another op type, SoftPlusV2), so the kernel a real A2 runs is not public and is not "
                "emulated; use an Ascend 950 platform")


def inv_beta(beta32) -> np.float32:
    """``SafeInvBeta`` (tiling :37-43): +inf where ``|beta| <= FLT_EPSILON`` (either sign), else ``1.0f / beta``."""
    beta32 = np.float32(beta32)
    if np.abs(beta32) <= FLT_EPSILON:
        return np.float32(np.inf)
    with np.errstate(all="ignore"):
        return np.float32(np.float32(1.0) / beta32)


def mask_bytes(tile: int) -> int:
    """One Compare mask of ``tile`` elements: a bit each, 256-byte aligned."""
    return ceil_div(tile // 8, 256) * 256


def tile_length(itemsize: int, ub_size: int) -> int:
    """``ComputeFp32TileLength`` / ``ComputeFp16TileLength`` (tiling :73-149): the largest multiple of 64
    whose buffers, two masks and the 8 KiB reserve fit the UB (64 where nothing fits)."""
    if ub_size <= SELECT_RESERVE:
        return ELEM_ALIGN
    per = _BYTES_PER_ELEM[itemsize]
    tile = (ub_size - SELECT_RESERVE) * 8 // (per * 8 + 2) // ELEM_ALIGN * ELEM_ALIGN
    if tile == 0:
        return ELEM_ALIGN
    while per * tile + 2 * mask_bytes(tile) + SELECT_RESERVE > ub_size and tile > ELEM_ALIGN:
        tile -= ELEM_ALIGN
    return tile


def used_cores(numel: int, itemsize: int, core_num: int) -> int:
    """``ComputeUsedCoreNum`` (tiling :198-210): one core per 2 KiB up to the AIV cores, then the cores
    that a block factor of ``ceil(n / cores)`` needs."""
    cores = max(min(ceil_div(numel * itemsize, MIN_BYTES_PER_CORE), core_num), 1)
    return ceil_div(numel, ceil_div(numel, cores))


def tiling_key(dtype: str) -> int:
    return DTYPE_TEMPLATE[dtype]


def host_tiling(numel: int, info: DTypeInfo, beta32, threshold32, platform: Platform) -> OpTiling:
    """The 950 host tiling of ``numel`` (>= 1) elements with float32 ``beta`` and ``threshold``."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {NAME}: {NO_A2_KERNEL}")
    cores = used_cores(numel, info.itemsize, platform.core_num)
    data = checked_record(RECORD_DTYPE, {
        "totalLength": numel, "blockFactor": ceil_div(numel, cores),
        "tileLength": tile_length(info.itemsize, platform.ub_size), "beta": np.float32(beta32),
        "threshold": np.float32(threshold32), "invBeta": inv_beta(beta32)})
    return OpTiling(NAME, ARCH_950, data, int(cores), tiling_key(info.name), 0)


def buffer_plan(itemsize: int) -> tuple:
    """``softplus_v2.h:126-149``: in and out queues of two slots, ``tmpBuf`` and ``workBuf`` (and
    ``castBuf`` for 16-bit) of float32 tiles, two masks of a bit per element (``cmpMask``, ``logMask``;
    256-byte aligned, counted here as a byte per 8 elements)."""
    return ((4, itemsize), (2 + (itemsize != 4), 4))


def walk_fields(tiling: OpTiling) -> spec_a2.TilingFields:
    """The split in the walk's A2 core-class form: the first ``blockDim - 1`` cores are "big" with
    ``blockFactor`` elements, the last core takes the rest; passes of ``tileLength``."""
    d = tiling.data
    return spec_a2.last_core_rest(int(d["totalLength"]), int(d["blockFactor"]), int(d["tileLength"]), tiling.block_dim)

# ---------------------------------------------------------------- the program (softplus_v2.h:179-239)

_BODY = (
    V.Muls("t", "xf", Attr("beta")),                                           # tmp = beta * x
    V.Duplicate("y", Attr("threshold")), V.Compare("big", "t", "y", "GT"),    # cmpMask = tmp > threshold
    V.Duplicate("y", 0.0), V.Select("t", "y", "t", "big"),                     # tmp = big ? 0 : tmp
    V.Exp("t", "t"),                                                           # e
    V.Adds("w", "t", 1.0),                                                     # u = 1 + e
    V.Duplicate("y", 1.0), V.Compare("one", "w", "y", "EQ"),                   # logMask = u == 1
    V.Adds("y", "w", -1.0),                                                    # v = u - 1
    V.Ln("w", "w"),                                                            # ln u
    V.Div("y", "t", "y"),                                                      # e / v
    V.Mul("w", "w", "y"),                                                      # ln u * e / v
    V.Select("w", "t", "w", "one"),                                            # u == 1 ? e : .
    V.Adds("y", "t", 1.0), V.Duplicate("t", float("inf")),                     # 1 + e; inf
    V.Compare("one", "y", "t", "EQ"), V.Select("w", "t", "w", "one"),          # 1 + e == inf ? inf : .
    V.Muls("w", "w", Attr("invBeta")),                                         # times invBeta
    V.Select("r", "xf", "w", "big"),                                           # big ? x : softplus
)
_MASKS = ("big", "one")


def programs(dtype: str, variant: str = "main"):
    """The Compute for ``dtype``: 16-bit x widened (CAST_NONE) first, the result narrowed with CAST_ROUND
    (``softplus_v2.h:322``). Compares write uint8 masks."""
    if variant != "main":
        raise ValueError(f"no Softplus variant {variant!r}")
    return elementwise("SoftplusV2", (("x", "xf"),), _BODY, "r", dtype, "CAST_ROUND", masks=_MASKS)

# ---------------------------------------------------------------- a record, checked and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The record for the validator: its walk, the kernel's buffers and key."""
    own = () if tiling.tiling_key == tiling_key(info.name) else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the SoftplusV2 host gives "
                               f"{tiling_key(info.name)} for {info.name}."),)
    bad = [n for n in ("totalLength", "blockFactor", "tileLength") if int(tiling[n]) < 1]
    if int(tiling["tileLength"]) % ELEM_ALIGN:
        bad.append("tileLength")
    plan = buffer_plan(info.itemsize)
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(finding(
            "FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel needs it >= 1 (tileLength a multiple of "
                           f"{ELEM_ALIGN}).") for n in dict.fromkeys(bad)))
    tile = int(tiling["tileLength"])
    masks = 2 * mask_bytes(tile) + SELECT_RESERVE
    if sum(c * b for c, b in plan) * tile + masks > platform.ub_size:
        own += (finding("UB_OVERFLOW", f"tileLength {tile}: buffers, two {mask_bytes(tile)}-byte masks and "
                                       f"the {SELECT_RESERVE}-byte Select reserve exceed ub_size "
                                       f"{platform.ub_size}."),)
    # the walk is this kernel's own (not the template's core classes): its coverage, checked here
    n, bf, bd = int(tiling["totalLength"]), int(tiling["blockFactor"]), tiling.block_dim
    if n < numel or bd * bf < n:
        own += (finding("COVERAGE_GAP", f"totalLength={n}, blockFactor={bf} over {bd} cores cover "
                                        f"{min(n, bd * bf)} of the {numel} elements."),)
    if n > numel:
        own += (finding("OVERRUN_BEYOND_PADDING", f"totalLength={n}: the kernel reads and writes past the "
                                                  f"tensor's {numel} elements."),)
    if (bd - 1) * bf >= n:
        own += (finding("IDLE_CORE", f"block dim {bd}: cores from {ceil_div(n, bf)} on start past totalLength."),)
    return WalkCheck(None, plan, tile, own, whole_blocks=False)


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None)."""
    if grad is not None:
        raise ValueError("grad must be None for the forward operator 'softplus' (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    d = tiling.data
    params = compiled(NAME, ARCH_950, info.name).params(beta=d["beta"], threshold=d["threshold"],
                                                        invBeta=d["invBeta"])
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    kernel_pkg.run_walk(params, (_bits(x, info),), _bits(out, info), plan)


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture: the 950's only.
KERNELS = {ARCH_950: Kernel(ARCH_950, "activation/softplus_v2 (arch35)", "SoftplusV2TilingData", RECORD_DTYPE,
                            "CAST_ROUND", walk_check, run, _device_instructions, programs=programs)}


def registry_host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The registry's host tiling: ``attrs`` the float32 ``(beta, threshold)``, the defaults where None."""
    return host_tiling(numel, info, *(attrs or (1.0, 20.0)), platform)
