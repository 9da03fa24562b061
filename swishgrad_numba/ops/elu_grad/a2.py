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

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_A2, Platform
from ...program import Program, compiled
from ...program.form import Attr, V
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ..elu.kernel import float_program
from .a2_host import BLOCK, CORE_CHUNK, MODES, RECORD_DTYPE, host_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["RECORD_DTYPE", "MODES", "host_tiling", "core_ranges", "skipped", "program_variant", "programs",
           "walk_check", "run", "A2_KERNEL"]


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


def _schedule_of(r, tiling_key: int, info: DTypeInfo) -> tuple:
    """``((variant, start, stop, fields), ...)`` of each run of cores of one program, and the factors as
    ``((name, float32), ...)``: a pure function of the record, the mode and the dtype."""
    f, is_result, tile = factors(r), bool(r["isResult"]), int(r["tileDataNum"])
    runs = []
    for start, length in core_ranges(r):
        v = program_variant(is_result, skipped(tiling_key, info, is_result, length, tile), f["scale"],
                            f["input_scale"], f["factor_neg"])
        if runs and runs[-1][0] == v and runs[-1][2] == start:
            runs[-1][2] = start + length
        else:
            runs.append([v, start, start + length])
    out = []
    for v, s, e in runs:
        if e <= s:
            continue
        n, t = e - s, max(min(tile, e - s), 1)          # the run in passes of a tile (cache-sized rows)
        passes = -(-n // t)
        last = n - (passes - 1) * t
        out.append((v, s, e, spec_a2.TilingFields(n, n, passes, passes, t, last, last, 0)))
    return tuple(out), tuple(f.items())


@functools.lru_cache(maxsize=256)
def _schedule(record_dtype: np.dtype, record: bytes, tiling_key: int, info: DTypeInfo) -> tuple:
    """:func:`_schedule_of`, kept per record (its bytes and dtype), mode and dtype: a warm call of a few
    thousand elements would otherwise spend most of its time reading the record's fields (tuples of
    Python ints and float32 scalars: immutable, so one entry serves every thread)."""
    return _schedule_of(np.frombuffer(record, dtype=record_dtype)[0], tiling_key, info)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """Each core's range with its class's program (flat contiguous arrays of one dtype)."""
    if grad is None:
        raise ValueError("grad must be an array for elu_grad (its gradOutput)")
    info, r = dtype_info(out.dtype, argname="out.dtype"), tiling.data
    schedule, f = _schedule(r.dtype, r.tobytes(), int(tiling.tiling_key), info)
    f = dict(f)
    for v, s, e, fields in schedule:
        c = compiled("elu_grad", ARCH_A2, info.name, v, saturation)
        params = c.params(**{a: f[a] for a in c.program.attrs})
        plan = kernel_pkg.plan_launch(fields, 1, kernel_pkg.ARCH_A2, e - s)
        kernel_pkg.run_walk(params, (_bits(grad[s:e], info), _bits(x[s:e], info)), _bits(out[s:e], info), plan)


A2_KERNEL = Kernel(ARCH_A2, "experimental/activation/elu_grad_v2", "EluGradV2TilingData", RECORD_DTYPE, "CAST_RINT",
                   walk_check, run, programs=programs)
