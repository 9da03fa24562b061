"""SoftplusV2Grad, the operator behind aclnnSoftplusBackward: structs, host tilings, tiling keys, programs (the
operator is described in :mod:`.description`).

docs/model.md, "SoftplusBackward (aclnnSoftplusBackward)", and docs/activation_tiling.md
("SoftplusV2Grad", both kernels) give the sources, file and line. Inputs ``(dy, x)`` of one dtype and
shape (the op_api checks equal shapes); 16-bit inputs widened exactly, the result narrowed CAST_RINT.

- Atlas A2 (ops-nn ``experimental/activation/softplus_v2_grad``): SwishGrad's big/small split on
  **512-byte** blocks, ``ubDataNumber`` 13 (float32) / 24 (16-bit); ``SoftplusV2GradTilingData`` adds the
  Compute lengths (tile and tail aligned up to 256 bytes: the CompareScalar's repeats) and
  ``typeLength``, then ``float beta, threshold``; key 0. ``dz = dy * (x beta > threshold ? 1 :
  1 / (exp(-x beta) + 1))``: two roundings. Its UB plan holds the uint8 mask of the CompareScalar
  (a quarter of a float32 tile: one byte per element of the aligned Compute length).
- Ascend 950 (``activation/softplus_v2_grad``, arch35): its own broadcast tiling
  (``SoftplusV2GradTilingData<RANK>``: split axis, multicore split, ``per_buf_bytes``, shapes and
  strides, beta, threshold), a MicroAPI loop: ``dz = t1 > (t1 - t1) + threshold ? dy : dy / (exp(-t1)
  + 1)``, ``t1 = x beta``; one rounding.

Plain Python: the programs are compiled by :mod:`swishgrad_numba.program` and run on the generic walk
(the 950's tiles of one flat tensor are whole ``a_i`` rows: the walk's A2 core-class form holds them;
its host tiling is :mod:`.arch35`); :data:`KERNELS` and :func:`registry_host_tiling` are what the description
registers.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Attr, compiled
from ...program.elementwise import elementwise
from ...program.form import V
from ...spec import a2 as spec_a2
from ...spec.arith import ceil_div
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck
from .arch35 import ARCH35_RECORD_DTYPE, PHYS_NODES, arch35_host_tiling, arch35_walk_fields

__all__ = ["NAME", "A2_RECORD_DTYPE", "A2_BLOCK", "A2_COMPUTE_ALIGN", "A2_UB_DATA_NUMBER", "a2_host_tiling",
           "a2_buffer_plan", "host_tiling", "registry_host_tiling", "programs", "run", "KERNELS"]

NAME = "softplus_grad"

# ---------------------------------------------------------------- A2 (exp/softplus_v2_grad/op_host)

#: ``SoftplusV2GradTilingData`` (``softplus_v2_grad_tiling_data.h:21-36``): SwishGrad's eight fields, the
#: four Compute lengths and ``typeLength`` as uint64, then ``float beta, threshold``: 112 bytes.
A2_COMPUTE_FIELDS = ("bigprocessDataNum_computes", "smallprocessDataNum_computes",
                     "tailbigprocessDataNum_computes", "tailsmallprocessDataNum_computes")
A2_RECORD_DTYPE = np.dtype([(n, "<u8") for n in spec_a2.FIELDS + A2_COMPUTE_FIELDS + ("typeLength",)]
                           + [("beta", "<f4"), ("threshold", "<f4")])
assert A2_RECORD_DTYPE.itemsize == 112
#: Bytes per block of the split (``BLOCK_SIZE``, tiling :19) and of a Compute repeat (:21).
A2_BLOCK, A2_COMPUTE_ALIGN = 512, 256
#: ``UB_DATA_NUMBER`` by itemsize (:88-100).
A2_UB_DATA_NUMBER = {4: 13, 2: 24}


def _compute_len(count: int, itemsize: int) -> int:
    """Elements a Compute of ``count`` runs on: ``count * b`` aligned up to 256 bytes."""
    return ceil_div(count * itemsize, A2_COMPUTE_ALIGN) * A2_COMPUTE_ALIGN // itemsize


def a2_host_tiling(numel: int, itemsize: int, platform: Platform):
    """``(accepted, block_dim, fields, computes)``: ``tileBlockNum = (U / 512) / ubDataNumber`` (:105),
    SwishGrad's split on 512-byte blocks (one core where a tile holds the tensor, :109-117), and the
    four Compute lengths (:127-140)."""
    tile_block_num = (platform.ub_size // A2_BLOCK) // A2_UB_DATA_NUMBER[itemsize]
    block_dim, f = spec_a2.split_blocks(numel, itemsize, max(tile_block_num, 1), platform.core_num, A2_BLOCK)
    computes = (_compute_len(f.tileDataNum, itemsize), _compute_len(f.tileDataNum, itemsize),
                _compute_len(f.bigTailDataNum, itemsize), _compute_len(f.smallTailDataNum, itemsize))
    return tile_block_num > 0, block_dim, f, computes


def a2_buffer_plan(itemsize: int) -> tuple:
    """``softplus_v2_grad.cpp:62-84``: three queues of two slots (dy, x, z), ``mainComputeBuf`` of three
    float32 tiles, ``intermediateBuf``, ``tempBuf1``, ``tempBuf2``, and ``maskBuf`` of a quarter of a
    float32 tile: the CompareScalar's uint8 mask, one byte per element of the 256-byte aligned count."""
    return ((6, itemsize), (6, 4), (1, 1))

# ---------------------------------------------------------------- the host tiling, checked


def host_tiling(numel: int, info: DTypeInfo, beta32, threshold32, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements for the kernel ``platform``'s SoC runs."""
    if platform.architecture == ARCH_950:
        return arch35_host_tiling((numel,), beta32, threshold32, platform)
    accepted, block_dim, f, computes = a2_host_tiling(numel, info.itemsize, platform)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 SoftplusV2Grad kernel "
                         f"needs {A2_UB_DATA_NUMBER[info.itemsize] * A2_BLOCK} bytes")
    data = checked_record(A2_RECORD_DTYPE, {**f._asdict(), **dict(zip(A2_COMPUTE_FIELDS, computes)),
                                            "typeLength": info.itemsize, "beta": np.float32(beta32),
                                            "threshold": np.float32(threshold32)})
    return OpTiling(NAME, ARCH_A2, data, int(block_dim), 0, 2 * A2_COMPUTE_ALIGN)

# ---------------------------------------------------------------- the programs (inputs dy, x)

_BETA, _THRESHOLD = Attr("beta"), Attr("threshold")
_BODIES = {
    ARCH_A2: (                                                          # softplus_v2_grad.cpp:172-184
        V.Muls("i", "xf", _BETA), V.CompareScalar("big", "i", _THRESHOLD, "GT"),
        V.Muls("i", "i", -1.0), V.Exp("t1", "i"), V.Adds("t2", "t1", 1.0),
        V.Duplicate("i", 1.0), V.Div("t1", "i", "t2"), V.Select("i", "i", "t1", "big"),
        V.Mul("r", "dyf", "i")),
    ARCH_950: (                                                         # softplus_v2_grad_kernel.h:95-121
        V.Muls("t1", "xf", _BETA), V.Neg("t2", "t1"), V.Exp("t3", "t2"), V.Adds("t4", "t3", 1.0),
        V.Div("t5", "dyf", "t4"), V.Sub("t2", "t1", "t1"), V.Adds("th", "t2", _THRESHOLD),
        V.Compare("big", "t1", "th", "GT"), V.Select("r", "dyf", "t5", "big")),
}
_NAMES = {ARCH_A2: "SoftplusV2Grad", ARCH_950: "SoftplusV2GradArch35"}


def programs(architecture: str, dtype: str, variant: str = "main"):
    """The Compute for ``dtype``: 16-bit inputs widened (CAST_NONE), the result narrowed CAST_RINT."""
    if variant != "main":
        raise ValueError(f"no SoftplusV2Grad variant {variant!r}")
    return elementwise(_NAMES[architecture], (("dy", "dyf"), ("x", "xf")), _BODIES[architecture], "r", dtype,
                       "CAST_RINT", masks=("big",))

# ---------------------------------------------------------------- a record, checked and run


def _a2_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    own = () if tiling.tiling_key == 0 else (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; "
                                                     "the A2 SoftplusV2Grad host sets 0."),)
    fields = spec_a2.TilingFields(*(int(tiling[n]) for n in spec_a2.FIELDS))
    for name, count in zip(A2_COMPUTE_FIELDS, (fields.tileDataNum, fields.tileDataNum, fields.bigTailDataNum,
                                               fields.smallTailDataNum)):
        want = _compute_len(count, info.itemsize)
        if int(tiling[name]) != want:
            own += (finding("FIELD_RANGE", f"{name}={int(tiling[name])}: the Compute of {count} elements runs on "
                                           f"{want} (256-byte repeats); its mask and buffers are sized by it."),)
        elif want > fields.tileDataNum:
            own += (finding("UB_OVERFLOW", f"{name}={want} exceeds tileDataNum {fields.tileDataNum}: the Compute "
                                           f"and its uint8 mask run past the float32 buffers."),)
    return WalkCheck(fields, a2_buffer_plan(info.itemsize), fields.tileDataNum, own)


def _arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    d = tiling.data
    want = arch35_host_tiling((numel,), d["beta"], d["threshold"], platform)
    own = () if tiling.tiling_key == want.tiling_key else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the host gives {want.tiling_key}."),)
    bad = [n for n in ("split", "multicore", "per_buf_bytes") if np.asarray(d[n]).tolist() != np.asarray(
        want.data[n]).tolist()]
    plan = ((PHYS_NODES, 4),)
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(finding(
            "FIELD_RANGE", f"{n}={np.asarray(d[n]).tolist()}: the 950 host gives {np.asarray(want.data[n]).tolist()} "
                           f"for {numel} elements.") for n in bad))
    # its own walk (not the template's core classes): the split equal to the host's covers the tensor
    return WalkCheck(None, plan, int(d["per_buf_bytes"]) // 4, own, whole_blocks=False)


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a.reshape(-1) if info is FLOAT32 else a.reshape(-1).view(np.uint16)


@kept_per_tiling
def _launch_of(tiling: OpTiling) -> tuple:
    """``(walk fields, beta, threshold)`` of a record: read once per (cached) tiling, not per call."""
    d = tiling.data
    if tiling.architecture == ARCH_950:
        fields = arch35_walk_fields(tiling)
    else:
        fields = spec_a2.TilingFields(*(int(d[n]) for n in spec_a2.FIELDS))
    return fields, d["beta"], d["threshold"]


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """The registry's launch: flat contiguous ``grad`` (dy), ``x`` and ``out`` of one dtype and size."""
    if grad is None:
        raise ValueError("grad must be an array for softplus_grad (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    arch = tiling.architecture
    if arch == ARCH_950:
        if saturation:
            raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
    fields, beta, threshold = _launch_of(tiling)
    params = compiled(NAME, arch, info.name, saturation=saturation).params(beta=beta, threshold=threshold)
    plan = kernel_pkg.plan_launch(fields, tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    kernel_pkg.run_walk(params, (_bits(grad, info), _bits(x, info)), _bits(out, info), plan)


def _device_instructions(architecture: str, tiling: OpTiling, itemsize: int) -> tuple:
    return programs(architecture, "float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture: the A2's (experimental/) and the 950's.
KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/softplus_v2_grad", "SoftplusV2GradTilingData", A2_RECORD_DTYPE,
                    "CAST_RINT", _a2_walk_check, run, functools.partial(_device_instructions, ARCH_A2),
                    programs=functools.partial(programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/softplus_v2_grad (arch35)", "SoftplusV2GradTilingData<4>",
                     ARCH35_RECORD_DTYPE, "CAST_RINT", _arch35_walk_check, run,
                     functools.partial(_device_instructions, ARCH_950), programs=functools.partial(programs, ARCH_950))}


def registry_host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The registry's host tiling: ``attrs`` the float32 ``(beta, threshold)``, the defaults where None."""
    return host_tiling(numel, info, *(attrs or (1.0, 20.0)), platform)
