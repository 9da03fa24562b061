"""EluGradV2 on the Atlas A2 (``experimental/activation/elu_grad_v2``): host tiling, kernel classes, programs.

docs/model.md "EluBackward (aclnnEluBackward)" and docs/activation_tiling.md ("Atlas A2", EluGradV2) cite
the sources.

- Host (``op_host/elu_grad_v2_tiling.cpp:200-420``): cores by 1,024-element chunks and 256-byte blocks
  (big and small cores of whole blocks, the last core the rest), a tile length from the UB left after the
  compute-chunk scratch (float32 buffers of ``computeChunk`` = 4,096 elements, one uint8 mask of as many
  bytes, 1 KiB reserved), single or double buffering, and one of eight schedule modes (the tiling key).
- Kernel (``op_kernel/elu_grad_v2.h``): per core, ``factorNeg = (alpha * scale) * inputScale`` and
  ``bias = inputScale == 0 ? 0 : factorNeg / inputScale`` in float; then per chunk CompareScalar LE 0, the
  negative branch, ``Muls(g, scale)``, Select. Its ``Compare`` runs on 256-byte repeats: each chunk's count
  rounds up (``GetExecLength``: to 256 bytes of the dtype, at most ``computeChunk``), into the mask buffer of
  ``computeChunk`` bytes; elements past the count are computed and never stored.
- The five kernel classes differ in which ``Muls`` they leave out when the factor lies in (0.999, 1.001)
  (``IsNearlyOne``): :func:`skipped`. A core's class, and so its bits, follow from the mode, the dtype and
  (``KernelEluGradV2``'s direct path: one tile of at most 1,024 elements) the core's length.

The launch runs each core's range on the generic walk (one flat range per run of cores of one program):
the results are element-wise, so the tiles and chunks inside a core change no bit; the validator checks
the cores' coverage and the UB plan (:func:`walk_check`).
"""
from __future__ import annotations

import numpy as np

from .. import kernel as kernel_pkg
from ..dtypes import FLOAT32, DTypeInfo, dtype_info
from ..platform import ARCH_A2, Platform
from ..program import Program, compiled
from ..program.form import Attr, V
from ..spec import a2 as spec_a2
from ..tiling.findings import finding
from ..tiling.records import checked_record
from .elu import float_program
from .registry import Kernel, OpTiling, WalkCheck

__all__ = ["RECORD_DTYPE", "MODES", "host_tiling", "core_ranges", "skipped", "program_variant", "programs",
           "walk_check", "run", "A2_KERNEL"]

_U32 = ("totalLength", "tileDataNum", "coreNum", "bigCoreNum", "bigCoreDataNum", "smallCoreDataNum",
        "lastCoreDataNum", "bufferOpen", "computeChunk")
#: ``EluGradV2TilingData`` (``elu_grad_v2_tiling_data.h:28-45``), 52 bytes.
RECORD_DTYPE = np.dtype([(n, "<u4") for n in _U32] + [("alpha", "<f4"), ("scale", "<f4"), ("inputScale", "<f4"),
                        ("isResult", "u1"), ("reserved", "u1", (3,))])
assert RECORD_DTYPE.itemsize == 52

CORE_CHUNK, COMPUTE_CHUNK, RESERVED_UB, BLOCK = 1024, 4096, 1024, 256   # elu_grad_v2_tiling_data.h:19-26
#: The schedule modes (``elu_grad_v2_tiling_key.h:19-26``); the tiling key is the mode.
MODES = ("SAFE_EXP", "SAFE_RESULT", "SINGLE_TILE_EXP", "SINGLE_TILE_RESULT", "MIXED_EXP_FAST", "MIXED_RESULT_FAST",
         "FLOAT16_EXP_FAST", "FLOAT16_RESULT_FAST")


def _near(v, w=1.0) -> bool:
    """``IsNearlyEqual`` (host: ``|v - w| <= 1e-3f`` in float)."""
    with np.errstate(all="ignore"):
        return bool(abs(np.float32(v) - np.float32(w)) <= np.float32(1e-3))


def _max_tile(ub: int, b: int, buffers: int, float_bufs: int) -> int:
    """``GetMaxTileDataNum`` (:161-183)."""
    blk = BLOCK // b
    scratch = float_bufs * COMPUTE_CHUNK * 4 + COMPUTE_CHUNK + RESERVED_UB
    if ub <= scratch:
        return blk
    cap = (ub - scratch) // (buffers * 3 * b)
    return max(cap // blk * blk, blk) if cap else blk


def host_tiling(numel: int, info: DTypeInfo, alpha, scale, input_scale, is_result: bool,
                platform: Platform) -> OpTiling:
    """``TilingFuncEluGradV2`` for ``numel`` (>= 1) elements of one dtype (input and output alike)."""
    b, n, cores = info.itemsize, int(numel), min(platform.core_num, 64)
    blk, ceil = BLOCK // b, (lambda v, d: -(-v // d))
    f16_fast = (info.name == "float16" and not is_result and _near(alpha) and _near(scale) and _near(input_scale)
                and n % blk == 0 and n >= 4 * CORE_CHUNK)
    mixed_fast = info.name == "bfloat16" and n % blk == 0 and n >= 4 * CORE_CHUNK
    fast = f16_fast or mixed_fast
    mode = 1 if is_result else 0
    float_bufs = 2 if fast else (1 if b == 4 else 3)
    dbl, sgl = _max_tile(platform.ub_size, b, 2, float_bufs), _max_tile(platform.ub_size, b, 1, float_bufs)
    used = max(min(cores, ceil(n, CORE_CHUNK), max(ceil(n * b, BLOCK), 1)), 1)
    avg, blocks = ceil(n, used), ceil(n * b, BLOCK)
    values = dict(totalLength=n, computeChunk=COMPUTE_CHUNK, alpha=alpha, scale=scale, inputScale=input_scale,
                  isResult=int(is_result))
    if n <= CORE_CHUNK:
        mode = 3 if is_result else 2
        values.update(tileDataNum=min(max(ceil(n, blk) * blk, blk), sgl), coreNum=1, lastCoreDataNum=n)
        return _tiling(values, 1, mode)
    target = 2 if fast else ((3 if is_result else 4) if b == 4 else
                             ((3 if is_result else 2) if info.name == "float16" else 2))
    prefer_single = not fast and ((info.name == "bfloat16" and is_result and avg <= sgl)
                                  or (b != 4 and avg <= 2 * CORE_CHUNK))
    buffer_open, tiles = 0, 1
    if fast and not prefer_single and avg >= target * CORE_CHUNK:
        buffer_open, tiles = 1, target
    elif fast and not prefer_single and b == 4 and avg >= 2 * CORE_CHUNK:
        buffer_open, tiles = 1, 2
    tile = max(ceil(ceil(avg, tiles), blk) * blk, blk)
    if not fast:
        buffer_open = int((b != 4 or not is_result) and dbl >= COMPUTE_CHUNK)
        tile = min(COMPUTE_CHUNK, dbl if buffer_open else sgl)
    elif buffer_open:
        tile = min(tile, dbl)
    else:
        tile = min(ceil(avg, blk) * blk, sgl)
    tile = max(tile, blk)
    small_blocks, big = blocks // used, blocks % used
    small, big_data = small_blocks * blk, (small_blocks + (big > 0)) * blk
    last = used - 1
    start = 0 if used == 1 else (last * big_data if last < big else big * big_data + (last - big) * small)
    last_len = n if used == 1 else max(n - start, 0)
    biggest = big_data if big else small
    if buffer_open and ceil(biggest, tile) < 2:
        buffer_open, tile = 0, max(min(ceil(avg, blk) * blk, sgl), blk)
    if buffer_open == 0 and tile >= biggest and avg <= CORE_CHUNK:
        mode = 3 if is_result else 2
    elif f16_fast:
        mode = 6
    elif mixed_fast:
        mode = 5 if is_result else 4
    values.update(tileDataNum=tile, coreNum=used, bigCoreNum=big, bigCoreDataNum=big_data, smallCoreDataNum=small,
                  lastCoreDataNum=last_len, bufferOpen=buffer_open)
    return _tiling(values, used, mode)


def _tiling(values: dict, block_dim: int, mode: int) -> OpTiling:
    return OpTiling("elu_grad", ARCH_A2, checked_record(RECORD_DTYPE, values), block_dim, mode, 0)

# ---------------------------------------------------------------- the kernel classes


def core_ranges(r) -> list:
    """``(start, length)`` of each core (``KernelEluGradV2::Init``, lines 47-62; every class alike)."""
    out = []
    cores, big = int(r["coreNum"]), int(r["bigCoreNum"])
    for i in range(cores):
        if i < big:
            start, length = i * int(r["bigCoreDataNum"]), int(r["bigCoreDataNum"])
        else:
            start = big * int(r["bigCoreDataNum"]) + (i - big) * int(r["smallCoreDataNum"])
            length = int(r["smallCoreDataNum"])
        out.append((start, int(r["lastCoreDataNum"]) if i == cores - 1 else length))
    return out


def skipped(mode: int, info: DTypeInfo, is_result: bool, length: int, tile: int) -> str:
    """Which ``Muls`` a core's class leaves out when nearly one (the reference's ``a2_skips``): ``"none"``,
    ``"input_scale"`` (KernelEluGradV2, float32 result mode) or ``"all"`` (KernelEluGradV2's direct
    path for 16-bit, KernelEluGradV2SingleTile, KernelEluGradV2Float16AlignedFast); elu_grad_v2.cpp:28-97."""
    if mode in (2, 3) or (mode == 6 and info.name == "float16"):
        return "all"
    if mode in (4, 5):
        return "none"                                           # KernelEluGradV2MixedAlignedFast
    direct = -(-length // tile) == 1 and length <= CORE_CHUNK   # IsDirectSingleTilePath
    if info is not FLOAT32:
        return "all" if direct else "none"
    return "input_scale" if is_result else "none"


def program_variant(is_result: bool, skips: str, scale, input_scale, factor_neg) -> str:
    """The program that runs: the mode, then each factor left out (nearly one under ``skips``)."""
    near = (lambda v: bool(np.float32(0.999) < np.float32(v) < np.float32(1.001)))
    out = [("result" if is_result else "exp")]
    if skips in ("input_scale", "all") and near(input_scale):
        out.append("noinput")
    if skips == "all" and near(factor_neg) and not is_result:
        out.append("noneg")
    if skips == "all" and near(scale):
        out.append("nopos")
    return "_".join(out)


def programs(dtype: str, variant: str = "exp") -> Program:
    """The Compute of ``variant`` (:func:`program_variant`) on inputs ``g`` (grads), ``a`` (activations)."""
    mode, *skips = variant.split("_")
    if mode not in ("exp", "result", "main") or not set(skips) <= {"noinput", "noneg", "nopos"}:
        raise ValueError(f"no A2 EluGradV2 variant {variant!r}")
    body = [V.CompareScalar("le", "a", 0.0, "LE")]
    if mode == "result":
        body += [V.Adds("t", "a", Attr("bias"))]
        body += [] if "noinput" in skips else [V.Muls("t", "t", Attr("input_scale"))]
    else:
        body += [V.Exp("t", "a")] if "noinput" in skips else [V.Muls("t", "a", Attr("input_scale")), V.Exp("t", "t")]
        body += [] if "noneg" in skips else [V.Muls("t", "t", Attr("factor_neg"))]
    body += [V.Mul("t", "t", "g")]
    pos = "g" if "nopos" in skips else "p"
    body += ([] if "nopos" in skips else [V.Muls("p", "g", Attr("scale"))]) + [V.Select("y", "t", pos, "le")]
    attrs = tuple(a for a in ("input_scale", "bias", "factor_neg", "scale")
                  if any(isinstance(x, Attr) and x.name == a for i in body for x in i.args))
    return float_program("EluGradV2A2" + "".join(s.title() for s in [mode] + skips), ("g", "a"), tuple(body), dtype,
                         ("le",), attrs)

# ---------------------------------------------------------------- a record, checked and run


def factors(r) -> dict:
    """The core's scalars (lines 64-67), in float."""
    with np.errstate(all="ignore"):
        scale, input_scale = np.float32(r["scale"]), np.float32(r["inputScale"])
        factor_neg = (np.float32(r["alpha"]) * scale) * input_scale
        bias = np.float32(0.0) if input_scale == 0 else factor_neg / input_scale
    return dict(scale=scale, input_scale=input_scale, factor_neg=factor_neg, bias=bias)


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    r, own = tiling.data, []
    b, tile, chunk = info.itemsize, int(r["tileDataNum"]), int(r["computeChunk"])
    if tile < 1 or chunk < 1 or int(r["coreNum"]) != tiling.block_dim or tiling.tiling_key not in range(8):
        own.append(finding("FIELD_RANGE", f"tileDataNum {tile}, computeChunk {chunk}, coreNum {int(r['coreNum'])} "
                                          f"(block dim {tiling.block_dim}), key {tiling.tiling_key}: the kernel "
                                          f"needs lengths >= 1, coreNum = block dim and a mode in 0..7."))
        return WalkCheck(None, (), 0, tuple(own))
    if tile % (BLOCK // b) or (chunk % (BLOCK // b) and tile > chunk):
        own.append(finding("FIELD_RANGE", f"tileDataNum {tile} (or computeChunk {chunk}) is not a multiple of "
                                          f"{BLOCK // b} elements: Compare's count, rounded up to 256 bytes "
                                          f"(GetExecLength), would run past the tile's buffer."))
    ends = sorted(core_ranges(r))
    at = 0
    for start, length in ends:
        if start > at:
            own.append(finding("COVERAGE_GAP", f"elements [{at}, {min(start, numel)}) are computed by no core."))
        elif start < at and length:
            own.append(finding("COVERAGE_OVERLAP", f"elements from {start} are computed by two cores."))
        at = max(at, start + length)
    if at != numel:
        own.append(finding("COVERAGE_GAP" if at < numel else "OVERRUN_BEYOND_PADDING",
                           f"the cores end at element {at}, the tensor at {numel}."))
    queues = 3 * (2 if int(r["bufferOpen"]) else 1)
    scratch = chunk + 4 * chunk * (1 if b == 4 else 3)          # maskBuf_ (uint8), tmpBufF32_ (+ two widened)
    if queues * (-(-tile * b // 32) * 32) + scratch > platform.ub_size:
        own.append(finding("UB_OVERFLOW", f"{queues} queue buffers of {tile} elements and {scratch} bytes of "
                                          f"chunk scratch (the {chunk}-byte uint8 mask included) exceed the "
                                          f"{platform.ub_size}-byte unified buffer."))
    return WalkCheck(None, ((queues, b),), tile, tuple(own), whole_blocks=False)


def _bits(a, info):
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """Each core's range with its class's program (flat contiguous arrays of one dtype)."""
    if grad is None:
        raise ValueError("grad must be an array for elu_grad (its gradOutput)")
    info, r = dtype_info(out.dtype, argname="out.dtype"), tiling.data
    f, is_result, tile = factors(r), bool(r["isResult"]), int(r["tileDataNum"])
    runs = []
    for start, length in core_ranges(r):
        v = program_variant(is_result, skipped(tiling.tiling_key, info, is_result, length, tile), f["scale"],
                            f["input_scale"], f["factor_neg"])
        if runs and runs[-1][0] == v and runs[-1][2] == start:
            runs[-1][2] = start + length
        else:
            runs.append([v, start, start + length])
    for v, s, e in runs:
        if e <= s:
            continue
        c = compiled("elu_grad", ARCH_A2, info.name, v, saturation)
        params = c.params(**{a: f[a] for a in c.program.attrs})
        n, t = e - s, max(min(tile, e - s), 1)          # the run in passes of a tile (cache-sized rows)
        passes = -(-n // t)
        last = n - (passes - 1) * t
        fields = spec_a2.TilingFields(n, n, passes, passes, t, last, last, 0)
        plan = kernel_pkg.plan_launch(fields, 1, kernel_pkg.ARCH_A2, n)
        kernel_pkg.run_walk(params, (_bits(grad[s:e], info), _bits(x[s:e], info)), _bits(out[s:e], info), plan)


A2_KERNEL = Kernel(ARCH_A2, "experimental/activation/elu_grad_v2", "EluGradV2TilingData", RECORD_DTYPE, "CAST_RINT",
                   walk_check, run, programs=programs)
